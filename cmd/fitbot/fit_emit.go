package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/sizing"
)

// setValue records a fit flag that takes a value (--emit, --chart).
func (f *fitArgs) setValue(name, value string) {
	switch name {
	case "emit":
		f.emit = value
	case "chart":
		f.chart = value
	}
}

// emitConflict refuses --emit with the flags whose output it would
// mix with the config's (--json) or silently skip (--save).
func (f *fitArgs) emitConflict() error {
	switch {
	case f.emit != "" && f.json:
		return errors.New("--emit prints the launch config and --json the answer: ask for one at a time")
	case f.emit != "" && f.save:
		return errors.New("--emit prints only the launch config: save the plan with a separate fitbot fit --save")
	}
	return nil
}

// emitLaunch is `fitbot fit --emit KIND`: the launch config of the answer
// on stdout and its notes on stderr. When the asked configuration does not
// fit, the config is for the first alternative that does, and stderr says
// so.
func (a *app) emitLaunch(ctx context.Context, svc *answer.Service, q sizing.Query, ans sizing.Answer, kindName, words string) error {
	kind, err := launch.ParseKind(kindName)
	if err != nil {
		return usageError(err.Error(), "fitbot fit --emit deepspeed llama 3.1 8b full on 8 a100")
	}
	if !ans.Fits {
		alt, ok := firstFitting(ans.Alternatives)
		if !ok {
			return failure(fmt.Sprintf("%s does not fit as asked and no alternative fits: no %s config to emit", ans.ModelName, kind), "")
		}
		fitting, err := svc.Replica(ctx, q, alt.Request)
		if err != nil {
			return inputError(err, "")
		}
		fmt.Fprintf(a.stderr, "fitbot: the asked configuration does not fit (%s per GPU on %s); this %s config is for the first alternative that fits: %s\n",
			display.GiB(ans.PerGPU.TotalBytes), ans.GPUName, kind, alt.Why)
		ans = fitting
	}
	return a.writeConfig(kind, launch.PlanOf(ans), words)
}

// writeConfig prints the launch config of a plan on stdout and its notes
// on stderr; a kind that cannot run the plan is a usage error naming the
// kind that can.
func (a *app) writeConfig(kind launch.Kind, p launch.Plan, words string) error {
	cfg, err := launch.Emit(kind, p)
	var u *launch.Unsupported
	if errors.As(err, &u) {
		hint := ""
		if u.Try != "" {
			hint = fmt.Sprintf("fitbot fit --emit %s %s", u.Try, words)
		}
		return usageError(u.Error(), hint)
	}
	if err != nil {
		return failure(err.Error(), "")
	}
	fmt.Fprint(a.stdout, cfg.Text)
	for _, n := range cfg.Notes {
		fmt.Fprintf(a.stderr, "note: %s\n", n)
	}
	return nil
}

// firstFitting is the first alternative that fits, in the answer's order.
func firstFitting(alts []sizing.Alternative) (sizing.Alternative, bool) {
	for _, alt := range alts {
		if alt.Fits {
			return alt, true
		}
	}
	return sizing.Alternative{}, false
}
