package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/fitbot/fitbot/display"
)

// ErrUnavailable means the language model could not be asked or gave no
// usable reply: not configured, unreachable, timed out, rate limited,
// failing, or replying with something that is not the requested JSON. The
// asker gets the grammar's reading instead, and is told. Errors from
// Reader.Read match it with errors.Is and wrap the cause.
var ErrUnavailable = errors.New("language model unavailable")

// ErrNotUnderstood means the language model read the question and found
// nothing to read into the request. Errors from Reader.Read match it with
// errors.Is; errors.As with *NotUnderstoodError gives the question to ask
// back.
var ErrNotUnderstood = errors.New("not understood as a sizing question")

// NotUnderstoodError is the model's verdict that a question is not one
// it can read into the request, with what to ask the user instead.
type NotUnderstoodError struct {
	// QuestionBack is a short question for the user, written by the model
	// or, when it gave none, by this package. Show it as the model's words.
	QuestionBack string
}

func (e *NotUnderstoodError) Error() string {
	return ErrNotUnderstood.Error() + ": " + e.QuestionBack
}

// errRefused is the cause of ErrUnavailable when the model refused to
// read the question (the structured-output refusal, a content filter):
// it gave no reading, so the asker is told it was unavailable.
var errRefused = errors.New("the language model refused to read the question")

// refusal is errRefused with the model's words, when it gave any.
func refusal(words string) error {
	if words == "" {
		return errRefused
	}
	return fmt.Errorf("%w: %q", errRefused, clip(words))
}

// Is makes errors.Is(err, ErrNotUnderstood) true.
func (e *NotUnderstoodError) Is(target error) bool { return target == ErrNotUnderstood }

// AskBack is the question to ask the asker back: how answer.QuestionBack
// tells a question back from a model that was unavailable.
func (e *NotUnderstoodError) AskBack() string { return e.QuestionBack }

// unavailableError is ErrUnavailable with its cause, described without the
// API key and without unbounded server bodies.
type unavailableError struct {
	cause  error
	detail string
}

func (e *unavailableError) Error() string { return ErrUnavailable.Error() + ": " + e.detail }

func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }

// unavailable wraps cause as ErrUnavailable. The message says what went
// wrong in one line, with apiKey scrubbed from anything the server echoed.
func unavailable(cause error, apiKey string) error {
	return &unavailableError{cause: cause, detail: describe(cause, apiKey)}
}

// maxDetail caps how much of a server's error text reaches a message.
const maxDetail = 200

func describe(err error, apiKey string) string {
	clean := func(s string) string {
		return clip(redact(s, apiKey))
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no reply before the deadline"
	case errors.Is(err, context.Canceled):
		return "request canceled"
	case errors.As(err, &apiErr):
		code := ""
		if s, ok := apiErr.Code.(string); ok && s != "" {
			code = " " + clean(s)
		}
		return fmt.Sprintf("HTTP %d%s: %s", apiErr.HTTPStatusCode, code, clean(apiErr.Message))
	case errors.As(err, &reqErr):
		return fmt.Sprintf("HTTP %d: %s", reqErr.HTTPStatusCode, clean(string(reqErr.Body)))
	default:
		return clean(err.Error())
	}
}

// redact removes the API key from s, should a server or proxy echo it.
func redact(s, apiKey string) string {
	if apiKey == "" {
		return s
	}
	return strings.ReplaceAll(s, apiKey, "[redacted]")
}

// clip folds s onto one line and cuts it to maxDetail characters
// (display.Truncate).
func clip(s string) string { return display.Truncate(strings.Join(strings.Fields(s), " "), maxDetail) }
