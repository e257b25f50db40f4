package reading

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestPeopleCorpus reads testdata/people.txt, questions written the way
// people write in Slack, and checks each reading: the route (sizing,
// price, chat, help) and, for a sizing question, the Query. Lines marked
// "miss:" are known not to be read as meant; the test reports the share
// understood and fails below 95 %, or when a line reads otherwise than
// it says (a miss that now reads right must be promoted).
func TestPeopleCorpus(t *testing.T) {
	data, err := os.ReadFile("testdata/people.txt")
	if err != nil {
		t.Fatal(err)
	}
	total, right := 0, 0
	for n, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		q, want, ok := strings.Cut(l, " => ")
		if !ok {
			t.Fatalf("people.txt:%d: no \" => \" in %q", n+1, l)
		}
		total++
		// "outside NAME: READING": the question also asks what fitbot
		// cannot do (Outside), which the answer says first.
		out := ""
		if names := Outside(q); len(names) > 0 {
			out = "outside " + strings.Join(names, " ") + ": "
		}
		if rest, ok := strings.CutPrefix(want, out); !ok || out == "" && strings.HasPrefix(want, "outside ") {
			t.Errorf("people.txt:%d: %q asks outside %q, want %q", n+1, q, out, want)
			continue
		} else {
			want = rest
		}
		got := reading(q)
		if meant, miss := strings.CutPrefix(want, "miss: "); miss {
			if got == meant {
				t.Errorf("people.txt:%d: %q now reads as meant (%q): drop the miss", n+1, q, meant)
			}
			continue
		}
		want, wantTry, tried := strings.Cut(want, " | try: ")
		if got != want && !(strings.HasPrefix(want, "error: ") && strings.HasPrefix(got, "error: ") && strings.Contains(got, want[len("error: "):])) {
			t.Errorf("people.txt:%d: %q reads as %q, want %q", n+1, q, got, want)
			continue
		}
		if tried {
			if try := tryOf(q); try != wantTry {
				t.Errorf("people.txt:%d: %q has the Try %q, want %q", n+1, q, try, wantTry)
				continue
			}
		}
		right++
	}
	if total < 120 {
		t.Errorf("people.txt has %d questions, want at least 120", total)
	}
	share := float64(right) / float64(total)
	t.Logf("understood as meant: %d of %d (%.1f%%)", right, total, 100*share)
	if share <= 0.95 {
		t.Errorf("understood %.1f%%, want over 95%%", 100*share)
	}
}

// tryOf is the Try line a refused question gets, from its reading or
// from resolving what was read, as people.txt writes it: the
// InputError's Hint, or "none" when it has none.
func tryOf(q string) string {
	p, err := Parse(q)
	if err == nil {
		_, _, err = sizing.Resolve(p.Query)
	}
	var ie *sizing.InputError
	if !errors.As(err, &ie) || ie.Hint == "" {
		return "none"
	}
	return ie.Hint
}

// reading is how a message is read, written as people.txt writes it;
// "THREAD || REPLY" is a reply read against the thread's question, and a
// comparison is read as each option's question.
func reading(q string) string {
	if base, reply, ok := strings.Cut(q, " || "); ok {
		b, err := Parse(base)
		if err != nil {
			return "error: " + err.Error()
		}
		p, ok := FollowUp(b, reply)
		if !ok {
			return "(left alone)"
		}
		if p.Intent != sizing.IntentFit {
			return sizing.Format(p.Query) + " (" + string(p.Intent) + ")"
		}
		return sizing.Format(p.Query)
	}
	if alts := Unsure(q); len(alts) >= 2 {
		words := make([]string, len(alts))
		for i, a := range alts {
			words[i] = a.Words
		}
		return "unsure: " + strings.Join(words, " | ")
	}
	r := Route(q)
	switch r.Kind {
	case RouteChat, RouteHelp:
		if r.Topic != "" {
			return string(r.Kind) + ": " + r.Topic
		}
		return string(r.Kind)
	case RouteCluster, RoutePlan, RouteHardware, RouteGPUs, RouteModels:
		return strings.TrimSpace("command: " + string(r.Kind) + " " + r.Args)
	case RoutePlans:
		return "plans: " + r.Plans
	case RoutePrice:
		parts := append([]string{"price:"}, r.GPUs...)
		if r.Spot {
			parts = append(parts, "spot")
		}
		if r.Reserved {
			parts = append(parts, "reserved")
		}
		if r.Power {
			parts = append(parts, "power")
		}
		if r.Week {
			parts = append(parts, "week")
		}
		if r.History {
			parts = append(parts, "history")
		}
		if len(r.Providers) > 0 {
			parts = append(append(parts, "on"), r.Providers...)
		}
		return strings.Join(parts, " ")
	}
	if c, ok := ParseComparison(q); ok {
		out := "compare: " + reading(c.Options[0].Text) + " | " + reading(c.Options[1].Text)
		if c.Figure != FigureUnsaid {
			out += " by " + string(c.Figure)
		}
		return out
	}
	p, err := Parse(q)
	if err != nil {
		var ie *sizing.InputError
		if errors.As(err, &ie) {
			return "error: " + ie.Problem
		}
		return "error: " + err.Error()
	}
	if p.Intent != sizing.IntentFit {
		return sizing.Format(p.Query) + " (" + string(p.Intent) + ")"
	}
	return sizing.Format(p.Query)
}
