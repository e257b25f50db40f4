package reading

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// Closed models: GPT-4, Claude, Gemini and the like run only behind their
// makers' APIs, so no GPU can be sized for them. A question naming one is
// refused by that name (never offered GPT-2 for "gpt-4"), never
// searched on the Hugging Face Hub, and its Try sizes an
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

// closedStarts are what a closed model's key may start with (vocab.txt).
var closedStarts = slices.Sorted(maps.Keys(vocab.set("closed_start").words))

// closedSmall are the words of a closed model of the small class, whose
// open counterpart is gpt-oss-20b rather than gpt-oss-120b; Gemini's
// name is taken off first, since it holds "mini".
var closedSmall = regexp.MustCompile(`mini|nano|haiku|flash|instant|^gpt3`)

// closedStart reports whether a key may start a closed model's name, so
// that most words skip the patterns.
func closedStart(key string) bool {
	for _, pre := range closedStarts {
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
	if p.try == tryClosed {
		return 0
	}
	if c, ok := p.closedProductAt(i); ok {
		p.closedProducts = append(p.closedProducts, c)
		return c.to - i
	}
	_, _, n := p.closedModelAt(i)
	if n == 0 || p.q.Model != "" {
		return 0
	}
	words := p.text(i, i+n)
	if i+n < len(p.toks) && sizeLikeWords.has(p.toks[i+n].key) {
		return p.closedSize(i, n, closedName(words))
	}
	p.refuseClosed(i, n)
	return n
}

// refuseClosed refuses the closed model named by the n tokens at i.
func (p *parser) refuseClosed(i, n int) {
	api, small, _ := p.closedModelAt(i)
	words := p.text(i, i+n)
	name := closedName(words)
	open := "gpt-oss-120b"
	if small {
		open = "gpt-oss-20b"
	}
	p.refuse(&sizing.InputError{Problem: fmt.Sprintf("%s: %s's weights are not released: it runs only behind %s, so no GPU can be sized for it; "+
		"an open model of its class that fitbot sizes is %s", quote(words), name, api, open)},
		tryClosed, func(q *sizing.Query) { q.Model, q.Params, q.Experts = open, 0, 0 })
	p.swap = typoFix{from: i, to: i + n, text: open}
}

// A closed model's name used to describe what is built ("an internal
// chatgpt", "our own chatgpt", "a claude-like assistant") is phrasing
// when an open model is named too: the open model is sized and the
// phrase noted ("an internal chatgpt with mistral 7b" sizes Mistral
// 7B rather than refusing it as ChatGPT). With no open model named it
// is refused as the closed model itself.
var (
	// closedProductBefore say just before a closed name that it is the
	// kind of thing built.
	closedProductBefore = vocab.set("closed_product_before")
	// closedProductAfter say just after one that it describes a product
	// ("chatgpt like", "chatgpt clone", "claude style assistant").
	closedProductAfter = vocab.set("closed_product_after")
	// closedProductSuffixes glued to one ("chatgpt-like", "gpt-4-style").
	closedProductSuffixes = slices.Sorted(maps.Keys(vocab.set("closed_product_suffix").words))
	// closedProductLeads are taken into the phrase quoted ("our own
	// chatgpt", "an internal chatgpt").
	closedProductLeads = vocab.set("closed_product_leads")
)

// closedProduct is a closed model's name said as what is built: tokens
// [from, to), the name among them at [at, at+n).
type closedProduct struct{ from, to, at, n int }

// closedProductAt reads a closed name used as a product description
// starting at token i ("internal chatgpt", "chatgpt-like", "claude style").
func (p *parser) closedProductAt(i int) (closedProduct, bool) {
	key := p.toks[i].key
	for _, suf := range closedProductSuffixes {
		base, ok := strings.CutSuffix(key, suf)
		if !ok || base == "" || !closedStart(base) {
			continue
		}
		for _, f := range closedFamilies {
			if f.name.MatchString(base) {
				c := closedProduct{from: i, to: i + 1, at: i, n: 1}
				if i+1 < len(p.toks) && closedProductAfter.has(p.toks[i+1].key) {
					c.to++ // "a claude-like assistant"
				}
				return c, true
			}
		}
	}
	at := i
	if closedProductBefore.has(key) {
		at = i + 1
	}
	if at >= len(p.toks) {
		return closedProduct{}, false
	}
	_, _, n := p.closedModelAt(at)
	if n == 0 {
		return closedProduct{}, false
	}
	c := closedProduct{from: i, to: at + n, at: at, n: n}
	if at+n < len(p.toks) && closedProductAfter.has(p.toks[at+n].key) {
		c.to++
		if k := p.toks[at+n].key; (likeWords.has(k)) && c.to < len(p.toks) && closedProductAfter.has(p.toks[c.to].key) {
			c.to++ // "chatgpt like bot"
		}
	} else if at == i {
		return closedProduct{}, false // the name alone: the model itself
	}
	return c, true
}

// settleClosedProducts decides, once the question is read, what each
// closed name said as a product is: phrasing, noted, when an open model
// is named too; else the closed model, refused.
func (p *parser) settleClosedProducts() {
	if len(p.closedProducts) == 0 || p.try == tryClosed {
		return
	}
	if p.q.Model == "" && p.q.Params == 0 && p.hub == "" && p.missing.Words == "" {
		c := p.closedProducts[0]
		p.refuseClosed(c.at, c.n)
		return
	}
	for _, c := range p.closedProducts {
		from := c.from
		if from > 0 && closedProductLeads.has(p.toks[from-1].key) {
			from-- // "an internal chatgpt"
		}
		words := p.text(from, c.to)
		name := closedName(p.text(c.at, c.at+c.n))
		if c.n == 1 && c.from == c.at {
			for _, suf := range closedProductSuffixes { // "chatgpt-like": the name without its suffix
				if k := p.toks[c.at].key; strings.HasSuffix(k, suf) {
					raw := p.toks[c.at].raw
					name = closedName(strings.TrimRight(raw[:len(raw)-len(suf)], "-"))
					break
				}
			}
		}
		p.note(fmt.Sprintf("%s read as what you are building, not the model to run (%s's weights are not released): the open model named is sized", quote(words), name))
	}
}

// sizeLikeWords after a closed model's name ask for a model of its size
// ("a gpt-4 sized model", "gpt-3 class"), not for the model itself.
var sizeLikeWords = vocab.set("size_like_words")

// closedSizes are the closed models whose size is known: GPT-3's 175B from
// its paper, and GPT-4's reported 1.8T (a mixture of experts; OpenAI has
// not published it).
var closedSizes = map[string]struct {
	params int64
	source string
}{
	"gpt3": {175e9, "175B, from the GPT-3 paper (Brown et al., 2020)"},
	"gpt4": {1.8e12, "about 1.8T, a mixture of experts, as reported in 2023 (OpenAI has not published it)"},
}

// closedSize reads "a gpt-4 sized model" (the name at token i, n tokens,
// and the size word after it): a bare model of the size known for it,
// said where the size comes from; a closed model whose size is not known
// is refused, asking for a size (rather than offering a model such as
// gpt-oss-120b, 15× smaller).
func (p *parser) closedSize(i, n int, name string) int {
	var b strings.Builder
	for j := i; j < i+n; j++ {
		b.WriteString(p.toks[j].key)
	}
	words := p.text(i, i+n+1)
	known, ok := closedSizes[b.String()]
	if !ok {
		p.fail(fmt.Sprintf("%s: %s's size is not published, so I cannot size a model like it; give a size (\"a 400b model\")", quote(words), name), nil)
		p.try = tryNone
		return n + 1
	}
	if p.claim(fModel, p.q.Params == known.params, words) {
		p.q.Params = known.params
		p.note(fmt.Sprintf("%s taken as a dense model of %s's size: %s", quote(words), name, known.source))
	}
	return n + 1
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
	if a, err := (&sizing.Estimator{}).Answer(q); err != nil || !a.Fits {
		p.err.Problem += ", which does not fit the GPUs asked about, so there is no similar question to offer"
		return ""
	}
	if try, ok := p.saidTry(); ok {
		return try
	}
	return p.hint()
}

// likeWords are words that make a closed name a description ("gpt-4 like", "claude style").
var likeWords = vocab.set("like_words")
