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
// bot answers with the deterministic parser's own message instead. Errors
// from Interpret match it with errors.Is and wrap the cause.
var ErrUnavailable = errors.New("language model unavailable")

// ErrNotUnderstood means the language model read the question and said it
// is not a sizing question (or refused it). Errors from Interpret match it
// with errors.Is; errors.As with *NotUnderstoodError gives the question to
// ask back.
var ErrNotUnderstood = errors.New("not understood as a sizing question")

// NotUnderstoodError is the model's verdict that a question is not a
// sizing question, with what to ask the user instead.
type NotUnderstoodError struct {
	// QuestionBack is a short question for the user, written by the model
	// or, when it gave none, by this package. Show it as the model's words.
	QuestionBack string
	// Refused is true when the model refused to answer rather than
	// classifying the question.
	Refused bool
}

func (e *NotUnderstoodError) Error() string {
	if e.Refused {
		return "language model refused the question"
	}
	return ErrNotUnderstood.Error() + ": " + e.QuestionBack
}

// Is makes errors.Is(err, ErrNotUnderstood) true.
func (e *NotUnderstoodError) Is(target error) bool { return target == ErrNotUnderstood }

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
