package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// maxQuestionBack caps the question the model asks back.
const maxQuestionBack = 300

// askForModel is asked when the model's fields name no model at all.
const askForModel = "Which model do you mean, by name (e.g. Llama 3.1 8B) or size (e.g. 13B)?"

// Interpret asks the language model to read question into request
// fields, turns them into command words and validates those with
// reading.Parse, exactly as if the asker had typed them. The result carries
// a first Note saying the question was interpreted by the language model;
// its Fields quote the command words, not the asker's.
//
// Errors: ErrUnavailable (errors.Is) when no usable reply came within
// Config.Timeout; ErrNotUnderstood (errors.As *NotUnderstoodError for the
// question to ask back) when the model says it is not a sizing question,
// refuses, or names no model; an *sizing.InputError (errors.As), wrapped
// with the words the model chose, when the parser rejects those words
// (an unknown GPU gets its "did you mean", an absurd number its limit);
// an *sizing.InputError for a question over reading.MaxQuestionBytes.
func (c *Client) Interpret(ctx context.Context, question string) (parsed reading.Request, err error) {
	start := time.Now()
	var info call
	var words string
	defer func() { c.log(ctx, start, info, len(question), words, err) }()

	if len(question) > reading.MaxQuestionBytes {
		return reading.Request{}, &sizing.InputError{
			Problem: fmt.Sprintf("the question is too long (%d bytes; the limit is %d)", len(question), reading.MaxQuestionBytes),
			Hint:    "ask in one short sentence, e.g. fit 13b lora rtx-4090",
		}
	}
	q := sanitize(question)
	if q == "" {
		return reading.Request{}, &NotUnderstoodError{QuestionBack: defaultQuestionBack}
	}
	x, info, err := c.extract(ctx, q)
	if err != nil {
		return reading.Request{}, err
	}
	if !x.Understood {
		return reading.Request{}, &NotUnderstoodError{QuestionBack: questionBack(x.QuestionBack, defaultQuestionBack)}
	}
	words = x.command()
	if words == "" {
		return reading.Request{}, &NotUnderstoodError{QuestionBack: questionBack(x.QuestionBack, askForModel)}
	}
	parsed, err = reading.Parse(words)
	if err != nil {
		return reading.Request{}, fmt.Errorf("the language model read the question as %q: %w", words, err)
	}
	if parsed.Query.Model == "" && parsed.Query.Params == 0 {
		return reading.Request{}, &NotUnderstoodError{QuestionBack: questionBack(x.QuestionBack, askForModel)}
	}
	parsed.Notes = append([]string{interpretedNote(q)}, parsed.Notes...)
	return parsed, nil
}

// interpretedNote marks an answer as the language model's reading of the
// question, quoting (a prefix of) the question.
func interpretedNote(question string) string {
	return fmt.Sprintf("interpreted by the language model from: %q", clip(question))
}

// questionBack makes the model's question safe to show: one line, no
// Slack control sequences (<!channel>, <@U…>, links) or HTML entities,
// bounded; fallback when nothing is left.
func questionBack(s, fallback string) string {
	s = strings.Map(func(r rune) rune {
		if r == '<' || r == '>' || r == '&' {
			return ' '
		}
		return r
	}, sanitize(s))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return fallback
	}
	if len(s) > maxQuestionBack {
		return clip(s[:maxQuestionBack])
	}
	return s
}

// log records one Interpret call: latency, outcome, attempts, HTTP status
// and token usage. It never logs the API key or the question's text.
func (c *Client) log(ctx context.Context, start time.Time, info call, questionBytes int, words string, err error) {
	outcome, level := outcomeOf(err)
	c.logger.LogAttrs(ctx, level, "llm interpret",
		slog.String("outcome", outcome),
		slog.Duration("latency", time.Since(start)),
		slog.String("model", c.cfg.model()),
		slog.Int("attempts", info.attempts),
		slog.Int("status", info.status),
		slog.String("id", info.id),
		slog.Int("prompt_tokens", info.promptTokens),
		slog.Int("completion_tokens", info.completionTokens),
		slog.Int("question_bytes", questionBytes),
		slog.String("words", words),
		slog.Any("error", errString(err)),
	)
}

func outcomeOf(err error) (string, slog.Level) {
	var nu *NotUnderstoodError
	var ie *sizing.InputError
	switch {
	case err == nil:
		return "ok", slog.LevelInfo
	case errors.As(err, &nu) && nu.Refused:
		return "refused", slog.LevelInfo
	case errors.As(err, &nu):
		return "not_understood", slog.LevelInfo
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", slog.LevelWarn
	case errors.Is(err, ErrUnavailable):
		return "unavailable", slog.LevelWarn
	case errors.As(err, &ie):
		return "rejected", slog.LevelInfo
	default:
		return "error", slog.LevelWarn
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
