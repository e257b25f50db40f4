package main

import (
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/answer"
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

// clarifyReadings are the answer's alternatives as the readings offered.
func clarifyReadings(alts []answer.Alternative) []clarifyReading {
	out := make([]clarifyReading, len(alts))
	for i, alt := range alts {
		out[i] = clarifyReading{Label: alt.Label, Command: alt.Words}
	}
	return out
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

// interpretedOf is the answer's interpreted object (docs/json.md): by
// the model when it read or added to the question, by the grammar with
// the model's error when it was asked and failed; nil when it was not
// asked (asked says whether one is configured). unused are the words
// the grammar left, which sent the question to the model.
func interpretedOf(r answer.Result, unused []string, asked bool) *interpretedJSON {
	switch {
	case !asked:
		return nil
	case r.ModelError != nil:
		return &interpretedJSON{By: "grammar", UnusedWords: unused, ModelError: r.ModelError.Error()}
	case r.Interpreted:
		return &interpretedJSON{By: "model", UnusedWords: unused}
	}
	return nil
}
