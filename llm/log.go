package llm

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

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

// log records one Reader.Read call: latency, outcome, attempts, HTTP
// status and token usage. It never logs the API key or the question's
// text.
func (c *Client) log(ctx context.Context, start time.Time, info call, questionBytes int, err error) {
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
		slog.Any("error", errString(err)),
	)
}

func outcomeOf(err error) (string, slog.Level) {
	var nu *NotUnderstoodError
	var ie *sizing.InputError
	switch {
	case err == nil:
		return "ok", slog.LevelInfo
	case errors.Is(err, errRefused):
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
