package reading

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// The GPU-hours a budget may give ("2000 a100 gpu-hours"): under one
// GPU-hour is no budget, and a billion is some 3,500 years of the largest
// cluster a question may name.
const (
	MinGPUHours = 1
	MaxGPUHours = 1e9
)

// gpuHoursWords is what the GPU-hours pass found: a budget of GPU-hours
// ("2000 a100 gpu-hours", "500 gpu hours", "300 node-hours") or the
// run's GPU-hours asked ("how many gpu hours").
type gpuHoursWords struct {
	hours   float64 // the count said, in GPU-hours or node-hours; 0 when none
	node    bool    // the count is node-hours: × GPUs per node once the count is read
	words   string  // the words that said it
	asked   bool    // "how many gpu hours", "gpu-hours" with no count
	problem string
}

// hourKeys are the hour words after a card ("a100 hours") or in one
// word after it ("h100-hours"); pluralHourWords the plural ones. The
// units themselves are the gpu_hours and node_hours rows of vocab.txt.
var (
	hourKeys        = vocab.set("hour_keys")
	pluralHourWords = vocab.set("plural_hours")
)

// readGPUHours finds GPU-hours and returns the tokens the main parse
// should read (the rest), filtered in place: "2000 gpu-hours", "500 gpu
// hours", "2k gpu hrs", "2,000 a100 gpu-hours", "800 h100-hours", "500
// h100 hours", "100 gpu-h" and "300 node-hours" are a budget, never a
// GPU count; "how many gpu hours", "how many a100 gpu-hours" and
// "gpu-hours" with no count before it ask the run's GPU-hours. A card
// in the words ("a100" in "2000 a100 gpu-hours", "h100" in
// "h100-hours") is left for the main parse, as the card named.
func readGPUHours(input string, toks []token) ([]token, gpuHoursWords) {
	var g gpuHoursWords
	var drop []bool
	for u := 0; u < len(toks); u++ {
		n, node, strong := gpuHourUnitAt(toks, u)
		if n == 0 {
			continue
		}
		// A card between the count and the unit: "2000 a100 gpu-hours".
		card := cardSpanBefore(toks, u)
		if !strong && card == 0 {
			continue // "hours" after no card: a run's length, read by the deadline pass
		}
		at := u - card // where the count or "how many" ends
		// "$2 per gpu hour", "a gpu-hour costs": a price's unit, not a
		// budget or an ask.
		if at > 0 && (perLeads.has(toks[at-1].key) || strings.HasSuffix(toks[at-1].raw, "/")) {
			continue // "$2 per gpu hour": a price's unit
		}
		from, v, ok := gpuHoursCountBefore(input, toks, at)
		asked := false
		switch {
		case ok:
		case at >= 2 && slotLen(ownAskedSlot, keysOf(toks), at-2) > 0: // "how many", "how much"
			asked, from = true, at-2
		case strong && (strings.HasSuffix(toks[u].key, "hours") || strings.HasSuffix(toks[u].key, "hrs") || pluralHourWords.has(toks[min(u+n-1, len(toks)-1)].key)):
			asked, from = true, u // "in gpu-hours", "total gpu hours": the run's; "a gpu hour" is a price's unit
		default:
			continue
		}
		if drop == nil {
			drop = make([]bool, len(toks))
		}
		words := span(input, toks, from, u+n)
		for k := from; k < u+n; k++ {
			drop[k] = k < at || k >= u // the card stays, for the main parse
		}
		if glued := gluedCard(toks[u].raw); glued != "" {
			// "h100-hours": the card is read by the main parse.
			toks[u].raw, toks[u].end = glued, toks[u].start+len(glued)
			toks[u].key = string(appendWordKey(nil, glued))
			drop[u] = false
		}
		if asked {
			g.asked = true
			continue
		}
		switch {
		case g.hours > 0 && (g.hours != v || g.node != node):
			g.problem = fmt.Sprintf("two GPU-hour budgets in one question: %s and %s; ask about one at a time", quote(g.words), quote(words))
		case v < MinGPUHours || v > MaxGPUHours:
			g.problem = fmt.Sprintf("%s is not a GPU-hours budget I can use (1 to 1,000,000,000 GPU-hours)", quote(words))
		}
		if g.hours == 0 {
			g.hours, g.node, g.words = v, node, words
		}
	}
	return without(toks, drop), g
}

// gpuHourUnitAt reads a GPU-hour or node-hour unit at token u: the
// tokens it covers (0 when there is none), whether it is node-hours, and
// whether it is a unit on its own ("gpu hours", "h100-hours") rather than
// "hours" that is one only after a card ("500 h100 hours").
func gpuHourUnitAt(toks []token, u int) (n int, node, strong bool) {
	key := keysOf(toks)
	switch {
	case slotLen(gpuHoursSlot, key, u) > 0:
		return slotLen(gpuHoursSlot, key, u), false, true
	case slotLen(nodeHoursSlot, key, u) > 0:
		return slotLen(nodeHoursSlot, key, u), true, true
	case gluedCard(toks[u].raw) != "":
		return 1, false, true
	case hourKeys.has(toks[u].key):
		return 1, false, false
	}
	return 0, false, false
}

// gluedCard is the card of a card-hour written as one word ("h100" of
// "H100-hours", "a100-40" of "a100-40-hrs"); "" when raw is not one.
func gluedCard(raw string) string {
	i := strings.LastIndexByte(raw, '-')
	if i <= 0 || !hourKeys.has(strings.ToLower(strings.TrimRight(raw[i+1:], ",.?!:;"))) {
		return ""
	}
	if card := raw[:i]; namesCard(card) {
		return card
	}
	return ""
}

// cardSpanBefore is how many tokens right before token u name a card
// ("a100", "a100 40gb", "rtx 4090"), at most three; 0 when none do. A
// bare number ("4090") is not taken for one: "2000 gpu-hours" is a
// count.
func cardSpanBefore(toks []token, u int) int {
	for n := min(3, u); n >= 1; n-- {
		first := toks[u-n]
		if first.ignorable || sizing.IsDigits(first.key) {
			continue
		}
		if namesCard(joinRaw(toks, u-n, u)) {
			return n
		}
	}
	return 0
}

// gpuHoursCountBefore reads the count of GPU-hours ending right before token at
// ("2000", "2k", "1.5k", "2,000"): the token it starts at and its value.
func gpuHoursCountBefore(input string, toks []token, at int) (int, float64, bool) {
	i := at - 1
	if i < 0 || toks[i].ignorable {
		return 0, 0, false
	}
	num, ok := parseNumber(toks[i].key)
	if !ok || num.neg || num.scale() >= scaleBillion {
		return 0, 0, false
	}
	num.exp += num.scale()
	v := exactFloat(num)
	// "2,000": the comma split the thousands off.
	if num.suffix == "" && len(toks[i].key) == 3 && sizing.IsDigits(toks[i].key) && i > 0 && !toks[i-1].ignorable &&
		toks[i-1].end < len(input) && input[toks[i-1].end] == ',' && toks[i].start == toks[i-1].end+1 {
		if head, err := strconv.Atoi(toks[i-1].key); err == nil && len(toks[i-1].key) <= 3 && head > 0 {
			return i - 1, float64(head)*1000 + v, true
		}
	}
	return i, v, true
}

// applyGPUHours writes the GPU-hours words into the Query once the rest
// is read: a budget in node-hours counts the GPUs of a node said ("2
// nodes of 8"), else the card's most in one machine (8 when no card is
// named), and says so.
func (p *parser) applyGPUHours() {
	g := p.before.gpuHours
	p.q.GPUHoursAsked = g.asked
	switch {
	case g.problem != "":
		p.fail(g.problem, func(q *sizing.Query) { q.GPUHours = 1000 })
		return
	case g.hours <= 0:
		return
	}
	v := g.hours
	if g.node {
		per, from := sizing.DefaultMaxPerNode, "8 GPUs per node (say e.g. \"nodes of 4\" for another)"
		switch {
		case p.q.GPUs > 0 && p.q.Nodes > 0:
			per, from = p.q.GPUs/p.q.Nodes, fmt.Sprintf("%d GPUs per node, as said", p.q.GPUs/p.q.Nodes)
		case p.q.GPU != "":
			if c, ok := sizing.MatchGPU(p.q.GPU); ok {
				per = sizing.MaxPerNode(c)
				from = fmt.Sprintf("%d GPUs per node, the most a %s machine holds", per, c.Name)
			}
		}
		v *= float64(per)
		if v > MaxGPUHours {
			p.fail(fmt.Sprintf("%s is more GPU-hours than I size (the limit is 1,000,000,000)", quote(g.words)), func(q *sizing.Query) { q.GPUHours = 1000 })
			return
		}
		p.note(fmt.Sprintf("%s taken as %s GPU-hours: %s", quote(g.words), formatFloat(v), from))
	}
	p.q.GPUHours = v
	p.words[fGPUHours] = g.words
}
