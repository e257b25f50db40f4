package answer

import (
	"context"
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/measure"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/store"
)

// RunWordsError is the error of a measured run's words that do not read
// as a measurement ("peak 71 GiB, 3150 tok/s, 5.2 h"): its text says
// which word was not understood, for the face to show beside its usage.
type RunWordsError struct{ Err error }

func (e RunWordsError) Error() string { return e.Err.Error() }

// Unwrap returns the reading's error.
func (e RunWordsError) Unwrap() error { return e.Err }

// MeasuredWords reads the words of a plan command that record a run
// ("42 measured peak 71 GiB, 3150 tok/s, 5.2 h", Slack's `/fit plan` or a
// plan command said in words): the plan's id and the run's words; ok is
// false for any other words.
func MeasuredWords(args string) (id int64, words string, ok bool) {
	return reading.MeasuredRun(args)
}

// RecordRunWords reads a run's words ("peak 71 GiB, 3,150 tok/s, 5.2 h")
// and keeps them as RecordRun does. Words that do not read as a
// measurement are a RunWordsError, and nothing is stored.
func (s *Service) RecordRunWords(ctx context.Context, scope store.Scope, id int64, via, by, words string) (Recorded, error) {
	if s.Runs == nil {
		return Recorded{}, ErrNoRunBook
	}
	run, err := measure.ParseWords(words)
	if err != nil {
		return Recorded{}, RunWordsError{Err: err}
	}
	return s.RecordRun(ctx, scope, id, via, by, run)
}

// SaidLine says the run beside fitbot's figures for its plan, in one
// line ("fitbot said peak 70 GiB (measured 2% more); speed 5% less."),
// or "" when neither figure can be compared.
func (r Recorded) SaidLine() string {
	p := r.Pair
	var parts []string
	if ratio, ok := p.MemoryRatio(); ok {
		parts = append(parts, fmt.Sprintf("peak %s (measured %s)", display.GiB(p.Predicted.PeakBytes), measure.Relative(ratio)))
	}
	if ratio, ok := p.SpeedRatio(); ok {
		parts = append(parts, "speed "+measure.Relative(ratio))
	}
	if len(parts) == 0 {
		return ""
	}
	return "fitbot said " + strings.Join(parts, "; ") + "."
}
