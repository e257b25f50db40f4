package reading

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fitbot/fitbot/sizing"
)

// Memory as people type it: "16GB gpu", "a 24gb card", "2x24gb", "80GB",
// "M2 Max 32GB". A typed size says which card the asker has: the catalog
// variant of a named card with that memory ("a100 with 40gb" is the A100
// 40 GB), the smallest catalog card of that size when no card is named,
// or, when the catalog has no such card, the typed size itself on a
// stand-in card (Query.GPUMemoryBytes), said in the notes. A named card
// whose memory differs from the typed size is pointed out, never
// resolved silently.

// The bounds of a typed GPU memory, in GB as the asker wrote it.
const (
	minTypedGB = 1
	maxTypedGB = 2048
)

// hostRAMWords follow a memory size that is the machine's, not the GPU's:
// "128 GB RAM".
var hostRAMWords = vocab.set("host_memory")

// memoryPick is the card a typed memory size is sized on.
type memoryPick struct {
	id, name  string
	usableGiB float64 // the card's own usable memory
	cardGB    int     // the memory in its name ("RTX 4090 24 GB": 24)
	exact     bool    // the card has the typed memory; false: a stand-in
}

// typedGB reads a memory word's number of GB: "24gb" is 24, "1tb" 1024.
// ok is false for a word that is not a memory size.
func typedGB(key string) (int, bool) {
	d := 0
	for d < len(key) && isDigit(key[d]) {
		d++
	}
	if d == 0 || d > 5 {
		return 0, false
	}
	n, _ := strconv.Atoi(key[:d])
	switch unit := key[d:]; {
	case gbUnits.has(unit) || gbGlued.has(unit):
		return n, true
	case tbUnits.has(unit):
		return n * 1024, true
	}
	return 0, false
}

// gbUnits are the words a memory in gigabytes is typed with ("16gb",
// "16 gigs", "24 gigabytes"); gbGlued only glued to its number ("16g");
// tbUnits a memory in terabytes ("1tb").
var (
	gbUnits = vocab.set("gb_units")
	gbGlued = vocab.set("gb_glued")
	tbUnits = vocab.set("tb_units")
)

// memoryAt reads a memory size that starts at token i and covers n
// tokens ("24gb", or "24 gb"): the GPU's memory, unless host-RAM words
// follow. It reports the tokens used.
func (p *parser) memoryAt(i, n, gb int) int {
	words := p.text(i, i+n)
	if k := i + n; hostRAMAfter(p.toks, k) > 0 {
		end := k + hostRAMAfter(p.toks, k)
		p.cards.hostRAMGB = gb
		p.ignore(i, end)
		p.note(fmt.Sprintf("%s is the machine's memory, not the GPU's: checked against the host RAM the answer needs", quote(p.text(i, end))))
		return end - i
	}
	p.setMemory(gb, words)
	if i >= 2 && vocab.phraseAt("fewest_asked", p.toks, i-2) {
		p.cards.fewest = true // "how many 80gb cards": the fewest, not one
	}
	return n
}

// hostRAMAfter is how many tokens from k say the memory before them is
// the machine's ("ram", "of system ram", "of ram"); 0 when they do not.
func hostRAMAfter(toks []token, k int) int {
	j := k
	if j < len(toks) && ofWords.has(toks[j].key) {
		j++
	}
	n := 0
	for j+n < len(toks) && hostRAMWords.has(toks[j+n].key) {
		n++
	}
	if n == 0 {
		return 0
	}
	return j + n - k
}

// setMemory records a typed GPU memory of gb GB.
func (p *parser) setMemory(gb int, words string) {
	if gb < minTypedGB || gb > maxTypedGB {
		p.unread.ignored = append(p.unread.ignored, words)
		p.note(fmt.Sprintf("%s is not a GPU's memory: not used", quote(words)))
		return
	}
	if p.cards.mem.v != 0 && p.cards.mem.v != gb {
		p.fail(fmt.Sprintf("two memory sizes in one question: %s and %s; ask about one card at a time", quote(p.cards.mem.words), quote(words)), nil)
		return
	}
	p.cards.mem.v, p.cards.mem.words = gb, words
}

// resolveMemory turns a typed memory size into the card to size: see
// the comment at the top of this file.
func (p *parser) resolveMemory() {
	unknown := ""
	if p.err != nil && p.card != "" && p.cards.mem.v > 0 && p.q.GPU == "" {
		if _, ok := p.lex.memoryCard("", p.cards.mem.v); ok {
			// "4060 ti 16gb": a card the catalog lacks, sized by its memory.
			unknown, p.refusal = p.card, refusal{}
		}
	}
	if p.cards.mem.v == 0 || p.err != nil && (p.card != "" || p.q.GPU != "") {
		return
	}
	gb, words := p.cards.mem.v, p.cards.mem.words
	pick, ok := p.lex.memoryCard(p.q.GPU, gb)
	if !ok {
		return
	}
	if p.err != nil {
		// Another problem (a model not known): the Try keeps the card the
		// memory names ("e5-mistral-7b ... on a 24gb card").
		p.q.GPU = pick.id
		if !pick.exact {
			p.q.GPUMemoryBytes = int64(gb) << 30
		}
		return
	}
	if unknown != "" {
		p.note(fmt.Sprintf("%s is not a GPU I know: sized as %s %d GB card", quote(unknown), article(gb), gb))
		if name, ok := outsideCardName(unknown); ok { // a card people name, not stray words
			p.q.UnknownGPU = fmt.Sprintf("%s %d GB", name, gb)
		}
		words = unknown + " " + words
	}
	if p.q.GPU != "" {
		switch {
		case pick.exact && pick.id == p.q.GPU:
			return // "rtx 4090 with 24gb": the card's own memory
		case pick.exact:
			p.gpuNote(fmt.Sprintf("%s with %s taken as the %s, the variant with that memory", quote(p.words[fGPU]), quote(words), pick.name))
			p.q.GPU = pick.id
			p.words[fGPU] += " " + words
			return
		}
		if g, _, err := sizing.LookupGPU(p.q.GPU); err == nil && g.Vendor == "apple" && gb < pick.cardGB {
			// Apple sells each M-series chip with several memory sizes
			// ("36gb" M3 Max): the typed one is the asker's machine.
			p.gpuNote(fmt.Sprintf("%s with %s taken as the %d GB model of the %s (unified memory, %.0f%% of it for the GPU by default)",
				quote(p.words[fGPU]), quote(words), gb, sizing.LineOf(g.Name), 100*sizing.AppleGPUShare(int64(gb)<<30)))
			p.q.GPUMemoryBytes = int64(gb) << 30
			p.words[fGPU] += " " + words
			return
		}
		if namesMemory(p.words[fGPU], pick.cardGB) {
			// "2 a100 80s ... ~112gb": the card's name says its memory, so
			// the other figure is the asker's own (a total, an estimate).
			p.unread.ignored = append(p.unread.ignored, words)
			p.note(fmt.Sprintf("%s is not the %s's memory (%s says %d GB): not used", quote(words), pick.name, quote(p.words[fGPU]), pick.cardGB))
			return
		}
		p.gpuNote(fmt.Sprintf("%s does not match the %s (it has %d GB): sized with %d GB as you typed; leave out %s for the %d GB card",
			quote(words), pick.name, pick.cardGB, gb, quote(words), pick.cardGB))
		p.q.GPUMemoryBytes = int64(gb) << 30
		p.words[fGPU] += " " + words
		return
	}
	p.words[fGPU] = words
	p.q.GPU = pick.id
	if pick.exact {
		p.gpuNote(fmt.Sprintf("%s taken as %s %d GB card: sized on the %s (%.1f GiB usable), the smallest %d GB card I know; name your card for its own figures",
			quote(words), article(gb), gb, pick.name, pick.usableGiB, gb))
		return
	}
	p.q.GPUMemoryBytes = int64(gb) << 30
	p.gpuNote(fmt.Sprintf("%s: no %d GB card in the catalog; sized with %d GB and the speed and price of the %s; name your card for its own figures",
		quote(words), gb, gb, pick.name))
}

// namesMemory reports whether a card's words state its memory of gb GB
// ("a100 80s", "a100 80gb"), said apart from its id: a number in them, after the card's own
// digits, that is gb.
func namesMemory(words string, gb int) bool {
	if gb <= 0 || !strings.Contains(words, " ") {
		// A card id as fitbot writes it ("a100-80 81gb", a canonical
		// question) names a variant, not a memory said apart: the figure
		// after it is the asker's typed memory, which must read back.
		return false
	}
	digits := strings.FieldsFunc(words, func(r rune) bool { return r < '0' || r > '9' })
	return len(digits) > 1 && slices.Contains(digits[1:], strconv.Itoa(gb))
}

// gpuNote records the assumption about the card, replacing the one its
// name made ("a100 taken as A100 80 GB SXM") when the typed memory
// changed the card.
func (p *parser) gpuNote(s string) {
	if p.cards.noteAt >= 0 && p.cards.noteAt < len(p.notes) {
		p.notes[p.cards.noteAt] = s
		return
	}
	p.cards.noteAt = len(p.notes)
	p.notes = append(p.notes, s)
}

// cardsByGB indexes the catalog's cards by the memory their names state.
var cardsByGB = sync.OnceValue(func() map[int][]int {
	m := map[int][]int{}
	for i, g := range sizing.GPUs() {
		if gb := sizing.NominalGB(g.Name); gb > 0 {
			m[gb] = append(m[gb], i)
		}
	}
	return m
})

func (catalogLexicon) memoryCard(named string, gb int) (memoryPick, bool) {
	gpus := sizing.GPUs()
	pickOf := func(i int, exact bool) memoryPick {
		g := gpus[i]
		return memoryPick{id: g.ID, name: g.Name, usableGiB: g.MemoryGiB(), cardGB: sizing.NominalGB(g.Name), exact: exact}
	}
	if named != "" {
		g, ok := sizing.MatchGPU(named)
		if !ok {
			return memoryPick{}, false
		}
		for _, i := range cardsByGB()[gb] {
			if gpus[i].ID == g.ID || sizing.LineOf(gpus[i].Name) == sizing.LineOf(g.Name) {
				return pickOf(i, true), true
			}
		}
		for i := range gpus {
			if gpus[i].ID == g.ID {
				return pickOf(i, false), true
			}
		}
		return memoryPick{}, false
	}
	// No card named: the smallest usable memory among the discrete cards
	// of that size, so that a "fits" holds for every one of them. A
	// machine of one GPU (a Mac, a DGX Spark) is no card to stand in for
	// one (a Gaudi 3 is not sized at the DGX Spark's 273 GB/s).
	best := -1
	for _, i := range cardsByGB()[gb] {
		if discrete(gpus[i]) && (best < 0 || gpus[i].MemoryBytes < gpus[best].MemoryBytes) {
			best = i
		}
	}
	if best >= 0 {
		return pickOf(best, true), true
	}
	// None of that size: the nearest discrete card below it stands in for
	// speed and price (the smallest above when none is below).
	below, above := -1, -1
	for i, g := range gpus {
		n := sizing.NominalGB(g.Name)
		if !discrete(g) || n == 0 {
			continue
		}
		if n < gb && (below < 0 || n > sizing.NominalGB(gpus[below].Name) || n == sizing.NominalGB(gpus[below].Name) && g.MemoryBytes > gpus[below].MemoryBytes) {
			below = i
		}
		if n > gb && (above < 0 || n < sizing.NominalGB(gpus[above].Name)) {
			above = i
		}
	}
	switch {
	case below >= 0:
		return pickOf(below, false), true
	case above >= 0:
		return pickOf(above, false), true
	}
	return memoryPick{}, false
}

// discrete reports whether g is a card sold to go in a machine, which
// may stand in for a card typed by its memory: not a Mac nor a machine
// of one GPU such as the DGX Spark.
func discrete(g sizing.GPU) bool {
	return g.UsableFraction == 0 && g.MaxPerNode != 1
}
