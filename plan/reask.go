package plan

import (
	"fmt"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// AskFunc answers a question that runs the other way round (a caller's
// asker bound to its request's context); (*sizing.Estimator).Ask is one.
type AskFunc func(reading.Request) (sizing.AskAnswer, error)

// AskChanged says which parts of an inverse plan's answer differ today.
// They are compared as figures, the ones the answer's request carries
// (kept with every plan), never as the one-line text shown for it.
type AskChanged struct {
	// Figure is the number the question asked for: the largest model of
	// the asked method (its parameters), the longest context (tokens).
	Figure bool
	// Hardware is the card and count the answer names: which GPU's
	// cheapest fitting card; the hardware asked about for the others
	// (and, with it, a buy-or-rent question's machine).
	Hardware bool
	// Verdict is a buy-or-rent answer's buy or rent (kept since this
	// field; a plan kept before it is compared without it).
	Verdict bool
}

// Any reports whether anything changed.
func (c AskChanged) Any() bool { return c.Figure || c.Hardware || c.Verdict }

// AskDiff is a saved inverse plan next to today's answer to its question.
type AskDiff struct {
	Then Summary
	// Parsed is the plan's question as today's parser reads it.
	Parsed reading.Request
	// Now is today's answer, with the parser's notes first; nil when the
	// plan cannot be answered today, and then Problem says why and Err is
	// the cause.
	Now     *sizing.AskAnswer
	Problem string
	Err     error
	Changed AskChanged
}

// Reask asks an inverse plan's canonical question again with today's
// parser (parse, reading.Parse when nil) and asker, and says what changed.
// Reanswer is the same for a fit plan.
func Reask(then Summary, parse Parser, ask AskFunc) AskDiff {
	d := AskDiff{Then: then}
	if parse == nil {
		parse = reading.Parse
	}
	text := then.Text()
	parsed, err := parse(text)
	if err != nil {
		d.Problem, d.Err = fmt.Sprintf("today's parser cannot read its question: %v", err), err
		return d
	}
	if KindOf(parsed.Intent) != then.Kind {
		d.Problem = fmt.Sprintf("today's parser cannot read its question: it no longer reads as a %s question", then.Kind)
		d.Err = &sizing.InputError{Problem: fmt.Sprintf("%q no longer reads as a %s question", text, then.Kind)}
		return d
	}
	d.Parsed = parsed
	now, err := ask(parsed)
	if err != nil {
		d.Problem, d.Err = fmt.Sprintf("it cannot be answered today: %v", err), err
		return d
	}
	now.Assumptions = sizing.MergeAssumptions(parsed.Notes, now.Assumptions)
	d.Now = &now
	r := now.Request
	d.Changed.Hardware = then.GPU != r.GPU || then.GPUs != r.GPUs
	switch then.Kind {
	case KindLargest:
		d.Changed.Figure = then.Request.Params != r.Params
	case KindContext:
		d.Changed.Figure = then.Request.SeqLen != r.SeqLen
	case KindBuyRent:
		d.Changed.Verdict = then.Headroom != "" && now.BuyRent != nil && then.Headroom != now.BuyRent.Verdict
	}
	return d
}
