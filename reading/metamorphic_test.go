package reading

import (
	"encoding/json"
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateMetamorphic = flag.Bool("update-metamorphic", false, "rewrite testdata/metamorphic_failures.txt (it may only shrink)")

// perturbation rewrites a question in a way that must not change what it
// asks, or may change only the slots listed: a preposition for another,
// a period word for another, a word for its synonym, a quantity moved
// after its noun.
type perturbation struct {
	name string
	re   *regexp.Regexp
	to   string
	// slots are the JSON keys of the Request (query keys as "query.KEY")
	// the rewrite may change; none: the reading must stay as it was.
	slots []string
}

// periodSlots are what a period word may change: the rates and costs
// said per period, and the period a price question asks the cost of.
var periodSlots = []string{"query.serve", "query.per_month", "query.cadence", "query.tokens", "workload", "money", "deadline", "fields", "notes",
	"route.hours", "route.period", "route.month"}

var perturbations = []perturbation{
	{"with->for", regexp.MustCompile(`\bwith\b`), "for", nil},
	{"for->with", regexp.MustCompile(`\bfor\b`), "with", nil},
	{"at->with", regexp.MustCompile(`\bat\b`), "with", nil},
	{"on->with", regexp.MustCompile(`\bon (an? |one |two |\d)`), "with $1", nil},
	{"per hour->per day", regexp.MustCompile(`\bper hour\b`), "per day", periodSlots},
	{"per day->per hour", regexp.MustCompile(`\bper day\b`), "per hour", periodSlots},
	{"a day->a week", regexp.MustCompile(`\ba day\b`), "a week", periodSlots},
	{"per month->per week", regexp.MustCompile(`\bper month\b`), "per week", periodSlots},
	{"/hr->/day", regexp.MustCompile(`/hr\b`), "/day", periodSlots},
	{"gpus->cards", regexp.MustCompile(`\bgpus\b`), "cards", nil},
	{"fine-tune->finetune", regexp.MustCompile(`\bfine-tune\b`), "finetune", nil},
	{"finetune->fine-tune", regexp.MustCompile(`\bfinetune\b`), "fine-tune", nil},
	{"serve->host", regexp.MustCompile(`\bserve\b`), "host", nil},
	{"users->people", regexp.MustCompile(`\b(\d+) users\b`), "$1 people", nil},
	{"context->ctx", regexp.MustCompile(`\bcontext\b`), "ctx", nil},
	{"Nx card->card xN", regexp.MustCompile(`\b(\d+)x ?(h100|a100|h200|l4|l40s|a10g|rtx-?4090|4090|3090|b200)\b`), "$2 x$1", nil},
	{"N cards->cards: N", regexp.MustCompile(`\b(\d+) (h100s|a100s|l4s|l40s|4090s|a10gs)\b`), "$2 x$1", nil},
	{"spaces", regexp.MustCompile(` `), "  ", nil},
}

// rewritePerturbations are the rewrites of vocab.txt run backwards: a
// question that says TO must read alike when it says FROM.
func rewritePerturbations() []perturbation {
	var out []perturbation
	for from, to := range vocab.rewrites {
		out = append(out, perturbation{name: to + "->" + from, re: regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(to) + `(\s|$)`), to: "${1}" + from + "${2}"})
	}
	slices.SortFunc(out, func(a, b perturbation) int { return strings.Compare(a.name, b.name) })
	return out
}

// metamorphicQuestions are the corpus questions read as meant: the
// sizing lines of people.txt that are not misses, thread replies or
// questions back (unsure: asking back is already the outcome), and
// the query lines of questions.txt.
func metamorphicQuestions(t *testing.T) []string {
	t.Helper()
	var qs []string
	for _, c := range readCorpus(t) {
		if c.kind == "query" {
			qs = append(qs, c.question)
		}
	}
	data, err := os.ReadFile("testdata/people.txt")
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.Lines(string(data)) {
		q, want, ok := strings.Cut(strings.TrimSpace(l), " => ")
		if !ok || strings.HasPrefix(q, "#") || strings.Contains(q, " || ") || strings.HasPrefix(want, "miss: ") || strings.HasPrefix(want, "error: ") || strings.HasPrefix(want, "unsure: ") {
			continue
		}
		qs = append(qs, q)
	}
	return qs
}

// readingKeys is a Request as JSON keys and values, the keys of its
// objects as "query.KEY", "route.KEY", "money.KEY" and "deadline.KEY",
// for comparing two readings slot by slot. Ignored and unused words are
// left out, a rewrite changes them, and so are the words a money or
// deadline slot quotes as said ("at $2/hr" or "$2/hr") and the
// byte offsets of a missing name; the asker's words quoted in a value
// are compared with their runs of spaces as one.
func readingKeys(r Request) map[string]string {
	out := map[string]string{}
	r.Ignored, r.Unused, r.Fields, r.Notes = nil, nil, nil, nil
	if r.Comparison != nil {
		// Each option's text is the question as said with the other option
		// left out: compared by what it reads as, not by its words.
		c := *r.Comparison
		for i, o := range c.Options {
			if read, err := Read(o.Text); err == nil {
				keys := readingKeys(read)
				lines := make([]string, 0, len(keys))
				for k, v := range keys {
					lines = append(lines, k+"="+v)
				}
				slices.Sort(lines)
				c.Options[i].Text = strings.Join(lines, "\n")
			}
		}
		r.Comparison = &c
	}
	r.Missing.Start, r.Missing.End = 0, 0
	var top map[string]json.RawMessage
	b, _ := json.Marshal(r)
	_ = json.Unmarshal(b, &top)
	for k, v := range top {
		var q map[string]json.RawMessage
		if !flattened[k] || json.Unmarshal(v, &q) != nil {
			out[k] = spaces.ReplaceAllString(string(v), " ")
			continue
		}
		for qk, qv := range q {
			if k != "query" && (qk == "words" || strings.HasSuffix(qk, "_words")) {
				continue // the asker's words quoted, as said: "at $2/hr" or "$2/hr"
			}
			out[k+"."+qk] = spaces.ReplaceAllString(string(qv), " ")
		}
	}
	return out
}

var spaces = regexp.MustCompile(` +`)

// flattened are the Request's objects compared key by key.
var flattened = map[string]bool{"query": true, "route": true, "money": true, "deadline": true}

// metamorphicVerdict is "" when the perturbed question reads as the
// original except in the perturbation's slots, or leaves the rewritten
// word unused (a second reader is asked); otherwise what went wrong.
func metamorphicVerdict(p perturbation, q, changed string) string {
	base, err := Read(q)
	if err != nil {
		return "" // not read as meant: nothing to keep
	}
	got, err := Read(changed)
	if err != nil {
		return "refused: " + err.Error()
	}
	if got.Kind != base.Kind || got.Intent != base.Intent {
		return "another question: " + string(got.Kind) + "/" + string(got.Intent) + " for " + string(base.Kind) + "/" + string(base.Intent)
	}
	if len(got.Unused) > len(base.Unused) {
		return "" // unsure: the new word goes to the second reader
	}
	bk, gk := readingKeys(base), readingKeys(got)
	var diff []string
	for k := range mergeKeys(bk, gk) {
		if bk[k] == gk[k] || slices.ContainsFunc(p.slots, func(s string) bool { return k == s || strings.HasPrefix(k, s+".") }) {
			continue
		}
		diff = append(diff, k)
	}
	if len(diff) == 0 {
		return ""
	}
	slices.Sort(diff)
	return "changed " + strings.Join(diff, ", ")
}

func mergeKeys(a, b map[string]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

const metamorphicFailuresFile = "testdata/metamorphic_failures.txt"

// TestMetamorphic rewrites every corpus question read as meant by each
// perturbation that applies, and requires that the reading changes only
// in the perturbed slot, or that the rewritten word is left unused for
// the second reader: never a refusal, never another question. Today's
// failures are listed in testdata/metamorphic_failures.txt ("NAME<TAB>
// QUESTION"); the list may only shrink: a new failure fails the test, and
// so does a listed one that now passes (remove it, or run with
// -update-metamorphic, which refuses to add lines).
func TestMetamorphic(t *testing.T) {
	listed := map[string]bool{}
	if data, err := os.ReadFile(metamorphicFailuresFile); err == nil {
		for l := range strings.Lines(string(data)) {
			if l = strings.TrimRight(l, "\n"); l != "" && !strings.HasPrefix(l, "#") {
				listed[l] = true
			}
		}
	} else if !*updateMetamorphic {
		t.Fatal(err)
	}
	var failing []string
	tried := 0
	for _, q := range metamorphicQuestions(t) {
		for _, p := range append(slices.Clone(perturbations), rewritePerturbations()...) {
			changed := p.re.ReplaceAllString(q, p.to)
			if changed == q {
				continue
			}
			tried++
			key := p.name + "\t" + q
			v := metamorphicVerdict(p, q, changed)
			switch {
			case v != "" && !listed[key]:
				failing = append(failing, key)
				if !*updateMetamorphic {
					t.Errorf("%s: %q as %q: %s", p.name, q, changed, v)
				}
			case v != "":
				failing = append(failing, key)
			case listed[key] && !*updateMetamorphic:
				t.Errorf("%s: %q as %q now reads right: remove it from %s", p.name, q, changed, metamorphicFailuresFile)
			}
		}
	}
	t.Logf("metamorphic: %d rewrites, %d failing (%d listed)", tried, len(failing), len(listed))
	if !*updateMetamorphic {
		return
	}
	if len(listed) > 0 {
		for _, f := range failing {
			if !listed[f] {
				t.Fatalf("%q fails and is not listed: the list may only shrink; fix the reading instead", f)
			}
		}
	}
	slices.Sort(failing)
	head := "# Metamorphic rewrites of corpus questions that read otherwise than the original today\n" +
		"# (TestMetamorphic). NAME<TAB>QUESTION. This list may only shrink.\n"
	if err := os.WriteFile(metamorphicFailuresFile, []byte(head+strings.Join(failing, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
