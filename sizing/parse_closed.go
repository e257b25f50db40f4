package sizing

import (
	"fmt"
	"regexp"
	"strings"
)

// Closed models: GPT-4, Claude, Gemini and the like run only behind their
// makers' APIs, so no GPU can be sized for them. A question naming one is
// refused by that name (trial H14 Q32 and H15 Q32 tried GPT-2 for
// "gpt-4"), never searched on the Hugging Face Hub, and its Try sizes an
// open model of its class only where the hardware asked about holds it.
// GPT-2, GPT-J, GPT-NeoX, gpt-oss, Gemma and Grok 1 and 2 have open
// weights and are not closed.

// closedFamily is a maker's closed models: their names as keys run
// together, and the API they run behind.
type closedFamily struct {
	name *regexp.Regexp
	api  string
}

// closedFamilies are the closed models people ask to run themselves.
var closedFamilies = []closedFamily{
	{regexp.MustCompile(`^(chatgpt|gpt(3|3\.5|35|4|4o|4\.1|4\.5|5|5\.\d)(turbo|mini|nano|pro|o|preview|\d+k)*|o[134](mini|pro|preview)?)$`), "OpenAI's API"},
	{regexp.MustCompile(`^claude(\d(\.\d)?)?(opus|sonnet|haiku|instant)?(\d(\.\d)?)?$`), "Anthropic's API"},
	{regexp.MustCompile(`^gemini(\d(\.\d)?)?(pro|ultra|flash|nano|lite|flashlite)*$`), "Google's API"},
	{regexp.MustCompile(`^grok([3-9](\.\d)?)(mini|fast)*$`), "xAI's API"}, // Grok 1 and 2 weights were released
}

// closedSmall are the words of a closed model of the small class, whose
// open counterpart is gpt-oss-20b rather than gpt-oss-120b; Gemini's
// name is taken off first, since it holds "mini".
var closedSmall = regexp.MustCompile(`mini|nano|haiku|flash|instant|^gpt3`)

// closedStart reports whether a key may start a closed model's name, so
// that most words skip the patterns.
func closedStart(key string) bool {
	for _, pre := range []string{"gpt", "chatgpt", "o1", "o3", "o4", "claude", "gemini", "grok"} {
		if strings.HasPrefix(key, pre) {
			return true
		}
	}
	return false
}

// closedModelAt reads a closed model's name starting at token i, over up
// to four tokens ("gpt-4", "claude 3.5 sonnet"): its API and the tokens
// it covers, 0 when none starts there.
func (p *parser) closedModelAt(i int) (api string, small bool, n int) {
	if !closedStart(p.toks[i].key) {
		return "", false, 0
	}
	for n := min(4, len(p.toks)-i); n >= 1; n-- {
		var b strings.Builder
		for j := i; j < i+n; j++ {
			b.WriteString(p.toks[j].key)
		}
		for _, f := range closedFamilies {
			if f.name.MatchString(b.String()) {
				return f.api, closedSmall.MatchString(strings.TrimPrefix(b.String(), "gemini")), n
			}
		}
	}
	return "", false, 0
}

// closed refuses a closed model named at token i, over any problem found
// before it, and reports the tokens it covered (0 when none starts
// there). The Try, decided once the question is read (closedHint), sizes
// the open model of its class.
func (p *parser) closed(i int) int {
	api, small, n := p.closedModelAt(i)
	if n == 0 || p.closedErr != nil || p.q.Model != "" {
		return 0
	}
	words := p.text(i, i+n)
	name := closedName(words)
	open := "gpt-oss-120b"
	if small {
		open = "gpt-oss-20b"
	}
	p.closedErr = &InputError{Problem: fmt.Sprintf("%s: %s's weights are not released: it runs only behind %s, so no GPU can be sized for it; "+
		"an open model of its class that fitbot sizes is %s", quote(words), name, api, open)}
	p.closedOpen = open
	p.err, p.missing = p.closedErr, NameSpan{}
	p.fix = func(q *Query) { q.Model, q.Params, q.Experts = open, 0, 0 }
	return n
}

// closedName is a closed model's name as written, its maker's capitals
// first: "gpt-4o" is "GPT-4o", "claude 3 opus" "Claude 3 opus".
func closedName(words string) string {
	lower := strings.ToLower(words)
	switch {
	case strings.HasPrefix(lower, "gpt"):
		return "GPT" + words[3:]
	case strings.HasPrefix(lower, "chatgpt"):
		return "ChatGPT" + words[7:]
	case strings.HasPrefix(lower, "o"):
		return lower[:1] + words[1:]
	}
	return strings.ToUpper(words[:1]) + words[1:]
}

// closedHint is the Try of a closed model's refusal: the question with
// the open model of its class, when it fits the GPUs said as asked; ""
// otherwise (no GPUs said, or too few), the problem then saying why.
func (p *parser) closedHint() string {
	if p.q.GPU == "" {
		p.err.Problem += " (no similar question to offer until you name your GPUs)"
		return ""
	}
	q := p.q
	p.fix(&q)
	if a, err := (&Estimator{}).Answer(q); err != nil || !a.Fits {
		p.err.Problem += ", which does not fit the GPUs asked about, so there is no similar question to offer"
		return ""
	}
	return p.hint()
}
