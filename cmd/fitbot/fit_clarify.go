package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/llm"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// kindClarify is the kind `fit --json` prints for a question read more
// than one way (docs/json.md).
const kindClarify answer.Kind = "clarify"

// clarifyReading is one reading of a question fitbot can read more than
// one way: what it asks, and the words after `fitbot fit` that ask it.
type clarifyReading struct {
	Label   string `json:"label"`
	Command string `json:"command"`
}

// clarifyJSON is `fit --json` for such a question: exit 0, the readings.
type clarifyJSON struct {
	Kind     answer.Kind      `json:"kind"`
	Text     string           `json:"text"`
	Readings []clarifyReading `json:"readings"`
}

// clarify asks back about text rather than answer one reading silently:
// with --json one object and exit 0; otherwise the question on stderr,
// one `fitbot fit` line per reading, and exit 2, as for any input fitbot
// could not use.
func (a *app) clarify(text string, readings []clarifyReading, asJSON bool) error {
	if asJSON {
		return a.writeJSON(clarifyJSON{Kind: kindClarify, Text: text, Readings: readings})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fitbot: %q can be read more than one way. Which do you mean?\n", text)
	for _, r := range readings {
		fmt.Fprintf(&b, "  %s:\n    fitbot fit %s\n", r.Label, r.Command)
	}
	fmt.Fprint(a.stderr, b.String())
	return quietError(exitUsage)
}

// interpretedJSON is the `interpreted` key of a fit answer the language
// model was asked about (docs/json.md): by "model" with the words it was
// asked about when its reading shaped the answer, by "grammar" with why
// when it failed.
type interpretedJSON struct {
	By          string   `json:"by"`
	UnusedWords []string `json:"unused_words,omitempty"`
	ModelError  string   `json:"model_error,omitempty"`
}

// modelReader is the language model the settings name (OPENAI_API_KEY or
// OPENAI_BASE_URL, OPENAI_MODEL) as a reader of fitbot's request, or nil
// when none is configured.
func (a *app) modelReader() (*llm.Reader[reading.Request], error) {
	cfg := llm.Config{BaseURL: a.env.get("OPENAI_BASE_URL"), Model: a.env.get("OPENAI_MODEL"), APIKey: a.env.get("OPENAI_API_KEY")}
	if !cfg.Enabled() {
		return nil, nil
	}
	return llm.NewRequestReader(llm.New(cfg, &http.Client{}, nil))
}

// interpret asks the configured language model about q when the
// grammar's reading needs it (answer.NeedsInterpreter), as Slack does,
// giving it the grammar's reading: what it reads is added to a question
// the grammar understood (answer.Interpreted), or stands for one the
// grammar could not read, its kind and intent included (a price or plans
// question goes there). When the model fails, the asker is told on
// stderr and the grammar's reading stands; when it asks back, its
// question becomes the error. The second result is the answer's
// `interpreted` object; nil when the model was not asked.
func (a *app) interpret(ctx context.Context, q answer.Question) (answer.Question, *interpretedJSON) {
	if !answer.NeedsInterpreter(q) {
		return q, nil
	}
	r, err := a.modelReader()
	if r == nil && err == nil {
		return q, nil
	}
	unused := q.Parsed.Unused
	var m reading.Request
	if err == nil {
		m, err = r.Read(ctx, q.Text, q.Parsed)
	}
	var nu *llm.NotUnderstoodError
	switch {
	case errors.As(err, &nu) && !answer.Understood(q):
		q.Err = &sizing.InputError{Problem: nu.QuestionBack, Hint: "fit 13B lora 4090"}
		return q, &interpretedJSON{By: "model", UnusedWords: unused}
	case err != nil:
		fmt.Fprintf(a.stderr, "fitbot: the language model was unavailable (%v); this is fitbot's own reading.\n", err)
		return q, &interpretedJSON{By: "grammar", UnusedWords: unused, ModelError: err.Error()}
	case answer.Understood(q):
		if both, ok := answer.Interpreted(q, m); ok {
			return both, &interpretedJSON{By: "model", UnusedWords: unused}
		}
		return q, nil
	}
	read := answer.Question{Text: q.Text, Route: q.Route, Parsed: m, Scope: q.Scope}
	if m.Kind != "" && m.Kind != reading.RouteSizing {
		read.Route = reading.Routing{Kind: m.Kind}
		if m.Route != nil {
			read.Route = *m.Route
			read.Route.Kind = m.Kind
		}
	}
	return read, &interpretedJSON{By: "model", UnusedWords: unused}
}
