package main

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/llm"
	"github.com/fitbot/fitbot/reading"
)

// The language model reads fitbot's request as answer's model reader,
// follow-ups in a thread included.
var _ answer.ThreadReader = (*llm.Reader[reading.Request])(nil)

// modelSettings are the language model's settings in env, the key
// included: the command line's (serve keeps the key apart, Config.LLMKey).
func modelSettings(env environ) llm.Config {
	return llm.Config{BaseURL: env.get("OPENAI_BASE_URL"), Model: env.get("OPENAI_MODEL"), APIKey: env.get("OPENAI_API_KEY")}
}

// modelReader is the language model cfg names as a second reader of
// questions, for both faces (answer.Service.Reader: Slack's and the
// command line's alike), or nil when cfg turns none on (no
// OPENAI_API_KEY and no OPENAI_BASE_URL). Its calls go through hc (nil:
// a client bounded by the settings' timeout alone) and are logged to log
// (nil discards).
func modelReader(cfg llm.Config, hc *http.Client, log *slog.Logger) (answer.ModelReader, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	r, err := llm.NewRequestReader(llm.New(cfg, hc, log))
	if err != nil {
		return nil, fmt.Errorf("the language model's request schema: %w", err)
	}
	return r, nil
}
