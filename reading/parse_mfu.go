package reading

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// The model-FLOPs utilisation a question may say, as a share of peak.
const (
	MinMFU = 0.01
	MaxMFU = 1
)

// mfuWords is what the MFU pass found: an MFU to assume ("at 40% mfu")
// or a speed the asker measured, whose MFU is asked ("whats the mfu if I
// get 3500 tok/s per gpu").
type mfuWords struct {
	mfu      float64 // the share of peak said; 0 when none
	words    string  // the words that said it
	measured float64 // tokens per second measured; 0 when none
	perGPU   bool    // the measured speed is per GPU ("per gpu", "/gpu", "each")
	speed    string  // the words that said the measured speed
	asked    bool    // "mfu" was said with neither: the answer states its own
	problem  string
}

// mfuKeys are the words that name model-FLOPs utilisation.
var mfuKeys = vocab.set("mfu_keys")

// perCard is "per" before a card ("3500 tok/s per h100").
var perCard = vocab.set("per_card")

// readMFU finds the MFU words and returns the tokens the main parse
// should read (the rest), filtered in place: "at 40% mfu", "40 % mfu",
// "mfu 40%", "mfu of 0.4" set the MFU the speed is estimated at;
// "mfu" with a measured speed ("3500 tok/s per gpu", "we see 28k
// tokens/s") asks the MFU that speed is.
func readMFU(toks []token) ([]token, mfuWords) {
	var m mfuWords
	at := -1
	for i := range toks {
		if mfuKeys.has(low(toks[i])) {
			at = i
			break
		}
	}
	if at < 0 {
		return toks, m
	}
	w := lowsOf(toks)
	from, to := at, at+1
	// "40% mfu", "at 40 % mfu"
	if v, n := shareBefore(w, at); n > 0 {
		from = at - n
		m.mfu = v
	} else {
		j := at + 1
		for mfuJoins.has(w(j)) {
			j++
		}
		if v, n := shareAt(w, j); n > 0 && !tpsUnits.has(w(j+n)) {
			to = j + n
			m.mfu = v
		}
	}
	if m.mfu != 0 {
		m.words = joinRaw(toks, from, to)
		if m.mfu < MinMFU || m.mfu > MaxMFU {
			m.problem = fmt.Sprintf("%s is not an MFU I can use (1%% to 100%% of the card's peak)", quote(m.words))
		}
		return append(toks[:from], toks[to:]...), m
	}
	// No share said: a measured speed whose MFU is asked, or the answer's own.
	from, to = len(toks), len(toks) // the speed's words
	for i := range toks {
		v, n := speedAt(w, i)
		if n == 0 {
			continue
		}
		end := i + n
		switch per := slotLen(perGpuSlot, w, end); {
		case per > 0:
			m.perGPU = true
			end += per
		case perCard.has(w(end)) && end+1 < len(toks) && namesCard(toks[end+1].raw):
			m.perGPU = true // "per h100": the card is read by the main parse
			end++
		}
		m.measured, m.speed = v, joinRaw(toks, i, end)
		from, to = i, end
		break
	}
	m.asked = m.measured == 0
	rest := toks[:0]
	for i, t := range toks {
		if i != at && (i < from || i >= to) {
			rest = append(rest, t)
		}
	}
	return rest, m
}

// btoi is 1 for true and 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shareBefore reads a percentage ending right before token at ("40%",
// "40 %", "40 percent", with "at" or "of" before it): the share and the
// tokens it used.
func shareBefore(w func(int) string, at int) (float64, int) {
	for n := 1; n <= 2; n++ {
		if v, m := percentAt(w, at-n); m == n {
			return v, n + btoi(figureLeads.has(w(at-n-1)))
		}
	}
	return 0, 0
}

// shareAt reads a share at token j: a percentage ("40%", "40 percent")
// or a fraction of one ("0.4").
func shareAt(w func(int) string, j int) (float64, int) {
	if v, n := percentAt(w, j); n > 0 {
		return v, n
	}
	if v, err := strconv.ParseFloat(w(j), 64); err == nil && strings.Contains(w(j), ".") && v > 0 && v <= 1 {
		return v, 1
	}
	return 0, 0
}

// percentAt reads "40%", "40 %" or "40 percent" at token j as a share
// (0.4) and the tokens it used; 0 when there is none.
func percentAt(w func(int) string, j int) (float64, int) {
	k := w(j)
	if s, ok := strings.CutSuffix(k, "%"); ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v / 100, 1
		}
		return 0, 0
	}
	if v, err := strconv.ParseFloat(k, 64); err == nil && (percentWords.has(w(j + 1))) {
		return v / 100, 2
	}
	return 0, 0
}

// speedAt reads a speed in tokens per second at token i ("3500 tok/s",
// "3.5k tokens/s", "3500 tokens per second", "3500tok/s"): the tokens per
// second and the tokens it used; 0 when there is none.
func speedAt(w func(int) string, i int) (float64, int) {
	k := w(i)
	d := numberLen(k) // the number's bytes
	if d == 0 {
		return 0, 0
	}
	num, n := k, 0
	for _, s := range []string{"k", "m"} {
		if strings.HasPrefix(k[d:], s) && tpsUnits.has(k[d+1:]) { // "3.5ktok/s"
			num, n = k[:d+1], 1
		}
	}
	if tpsUnits.has(k[d:]) { // "3500tok/s"
		num, n = k[:d], 1
	}
	if n == 0 {
		if n = slotLen(tpsSlot, w, i+1); n == 0 { // "3500 tok/s", "3500 tokens per second"
			return 0, 0
		}
		n++
	}
	nm, ok := parseNumber(num)
	if !ok || nm.neg {
		return 0, 0
	}
	if v := exactFloat(nm) * float64(decimalUnit(nm.suffix)); v > 0 {
		return v, n
	}
	return 0, 0
}

// applyMFU writes the MFU words into the Query once the rest is read: the
// MFU said, or the measured speed per GPU. A speed "per gpu" on a card
// with no count is a run on several: it is sized on the fewest that fit.
func (p *parser) applyMFU() {
	m := p.before.mfu
	switch {
	case m.problem != "":
		p.fail(m.problem, func(q *sizing.Query) { q.MFU = 0.4 })
	case m.mfu > 0:
		p.q.MFU = m.mfu
		p.words[fMFU] = m.words
	case m.measured > 0:
		v := m.measured
		switch {
		case m.perGPU && p.q.Method != sizing.MethodInference && p.q.GPU != "" && p.q.GPUs == 0 && p.q.Nodes == 0:
			p.cards.fewest = true
			p.note(fmt.Sprintf("%s: a run on several GPUs, sized on the fewest that fit", quote(m.speed)))
		case !m.perGPU && p.q.GPUs > 1:
			v /= float64(p.q.GPUs)
			p.note(fmt.Sprintf("%s taken as the speed of all %d GPUs: %s tokens/s each", quote(m.speed), p.q.GPUs, formatFloat(sizing.RoundTo(v, 1))))
		case !m.perGPU:
			p.note(fmt.Sprintf("%s taken as one GPU's speed (say \"per gpu\", or the GPUs it is over)", quote(m.speed)))
		}
		p.q.MeasuredTokensPerSecond = v
		p.words[fMeasured] = m.speed
	}
}

// mfuJoins are words between "mfu" and its figure ("mfu of 40%", "mfu ~ 40%").
var mfuJoins = vocab.set("mfu_joins")

// figureLeads are words before a figure ("at 40%", "~40%").
var figureLeads = vocab.set("figure_leads")

// percentWords are a percent sign or word.
var percentWords = vocab.set("percent")
