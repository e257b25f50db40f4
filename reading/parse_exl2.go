package reading

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// EXL2: ExLlamaV2's quantisation stores weights at a chosen average of
// bits per weight ("4.0bpw", "4.65bpw"; from about 2 to 8). fitbot has
// no EXL2 format of its own, so a width is sized as the nearest format it
// has that is not smaller: up to 4.5 bpw GPTQ-style int4 (4.25 bits with
// its scales), up to 8 bpw int8; the note says so. "exllama" or "exl2"
// with no width is 4.0 bpw, its most common upload. So "exllama at
// 4bpw" is understood, and "exl2" alone is a format, not a near miss of
// e5-base-v2.

// The widths ExLlamaV2 quantises to, in bits per weight.
const (
	minEXL2BPW     = 2
	maxEXL2BPW     = 8
	defaultEXL2BPW = 4.0
	// int4 is taken up to this width: GPTQ-style int4 is 4.25 bits.
	exl2Int4Max = 4.5
)

// bitsPerWeightAt reads a width said at token i: "4bpw", "4.65bpw", "4.0
// bpw", "4.0 bits per weight"; the tokens it covers, 0 when none.
func (p *parser) bitsPerWeightAt(i int) int {
	key, n := p.toks[i].key, 1
	num, ok := strings.CutSuffix(key, "bpw")
	if !ok {
		num, n = key, 0
		if m := slotLen(bpwAfterSlot, keysOf(p.toks), i+1); m > 0 {
			n = 1 + m // "4.0 bpw", "4.0 bits per weight"
		}
	}
	if n == 0 || num == "" || !isDigit(num[0]) {
		return 0
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0
	}
	if p.weights.bpw.words != "" && p.weights.bpw.v != v {
		p.fail(fmt.Sprintf("two widths in one question: %s and %s; ask about one at a time", quote(p.weights.bpw.words), quote(p.text(i, i+n))), nil)
		return n
	}
	p.weights.bpw.v, p.weights.bpw.words = v, p.text(i, i+n)
	p.setVerb(kindServeVerb, p.weights.bpw.words) // EXL2 is run by ExLlamaV2: inference
	return n
}

// resolveEXL2 sizes EXL2 weights, said by name or by width, as the
// nearest format fitbot has that is not smaller, and says so.
func (p *parser) resolveEXL2() {
	if p.weights.exl2 == "" && p.weights.bpw.words == "" {
		return
	}
	words := strings.TrimSpace(p.weights.exl2 + " " + p.weights.bpw.words)
	bpw, said := p.weights.bpw.v, true
	if p.weights.bpw.words == "" {
		bpw, said = defaultEXL2BPW, false
	}
	if bpw < minEXL2BPW || bpw > maxEXL2BPW {
		p.fail(fmt.Sprintf("%s is not an EXL2 width: ExLlamaV2 quantises to %d to %d bits per weight", quote(p.weights.bpw.words), minEXL2BPW, maxEXL2BPW),
			func(q *sizing.Query) { q.Quant = sizing.QuantGPTQ })
		return
	}
	if p.q.Method == sizing.MethodFull || p.q.Method == sizing.MethodLoRA || p.q.Method == sizing.MethodQLoRA {
		p.fail(fmt.Sprintf("%s: EXL2 weights are for inference with ExLlamaV2; fitbot sizes training on bf16, NF4 or int8 weights", quote(words)),
			func(q *sizing.Query) { q.Quant = "" })
		return
	}
	q, as := sizing.QuantGPTQ, "4-bit GPTQ-style int4 (4.25 bits with scales)"
	if bpw > exl2Int4Max {
		q, as = sizing.QuantINT8, "8-bit int8 (fitbot has no GPU format between 4.25 and 8 bits)"
	}
	if !p.claim(fQuant, p.q.Quant == q, words) {
		return
	}
	p.q.Quant = q
	width := strconv.FormatFloat(bpw, 'f', -1, 64)
	if !strings.Contains(width, ".") {
		width += ".0"
	}
	note := fmt.Sprintf("exl2 at %s bpw sized as %s", width, as)
	if bpw > 4.25 && bpw <= exl2Int4Max {
		note += fmt.Sprintf(", a little under the %s bpw asked", width)
	}
	if !said {
		note = fmt.Sprintf("%s with no width taken as %s bpw, the usual upload: %s; say e.g. 6bpw for another", quote(words), width, note)
	}
	p.note(note)
}
