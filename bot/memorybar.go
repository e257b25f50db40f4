package bot

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// barWidth is the number of cells in the memory bar, and maxBarLine the
// widest line the bar and its legend take: both fit a phone's code block.
const (
	barWidth   = 20
	maxBarLine = 40
)

// barTerm is one term of the per-GPU memory, with the glyph that draws it.
type barTerm struct {
	name  string
	glyph rune
	bytes int64
}

// freeGlyph draws the part of the card the answer leaves free;
// limitGlyph marks the card's capacity inside a bar that overflows it.
const (
	freeGlyph  = '·'
	limitGlyph = '|'
)

func memoryTerms(m sizing.Memory) []barTerm {
	return []barTerm{
		{"weights", '█', m.WeightsBytes},
		{"gradients", '▓', m.GradientsBytes},
		{"optimizer", '▒', m.OptimizerBytes},
		{"activations", '░', m.ActivationsBytes},
		{"QLoRA work", '▞', m.QLoRAWorkBytes},
		{"gathered", '▙', m.GatheredBytes},
		{"KV cache", '▚', m.KVCacheBytes},
		{"overhead", '▪', m.OverheadBytes},
	}
}

// memoryBar draws the busiest GPU's memory against the card, term by
// term, as a bar of block characters scaled to the larger of the total
// and the card, with the share of the card after it and a legend in GiB
// below, no line wider than maxBarLine. It is meant for a code span;
// memoryLine says the figures in words.
func memoryBar(m sizing.Memory, vram int64) string {
	terms := memoryTerms(m)
	scale := max(m.TotalBytes, vram)
	var bar []rune
	if scale > 0 {
		bar = barCells(terms, scale)
	}
	if m.TotalBytes > vram && vram > 0 {
		at := int(int64(barWidth) * vram / scale)
		bar = append(bar[:at:at], append([]rune{limitGlyph}, bar[at:]...)...)
	}
	for len(bar) < barWidth {
		bar = append(bar, freeGlyph)
	}
	var b strings.Builder
	b.WriteString(string(bar))
	if vram > 0 {
		fmt.Fprintf(&b, " %.0f%%", 100*float64(m.TotalBytes)/float64(vram))
	}
	items := make([]string, 0, len(terms)+1)
	for _, t := range terms {
		if t.bytes > 0 {
			items = append(items, fmt.Sprintf("%c %s %.1f", t.glyph, t.name, display.InGiB(t.bytes)))
		}
	}
	items = append(items, fmt.Sprintf("%c free", freeGlyph))
	width := maxBarLine + 1 // start a new line for the first item
	for _, it := range items {
		n := utf8.RuneCountInString(it)
		if width+2+n > maxBarLine {
			b.WriteByte('\n')
			width = 0
		} else {
			b.WriteString("  ")
			width += 2
		}
		b.WriteString(it)
		width += n
	}
	return b.String()
}

// memoryLine is the one short line of memory an answer leads with:
// "10.4 of 24.0 GiB per GPU (43%)".
func memoryLine(m sizing.Memory, vram int64) string {
	s := fmt.Sprintf("%s of %s per GPU", strings.TrimSuffix(display.GiB(m.TotalBytes), " GiB"), display.GiB(vram))
	if vram > 0 {
		s += fmt.Sprintf(" (%.0f%%)", 100*float64(m.TotalBytes)/float64(vram))
	}
	return s
}

// barCells gives each term its share of barWidth cells by largest
// remainder, so that the cells add up to the total's share of the scale,
// rounded, and no term takes a cell another deserves more.
func barCells(terms []barTerm, scale int64) []rune {
	var total int64
	for _, t := range terms {
		total += max(t.bytes, 0)
	}
	want := min(barWidth, int((2*int64(barWidth)*total+scale)/(2*scale))) // rounded to the nearest cell
	cells := make([]int, len(terms))
	rem := make([]int64, len(terms))
	used := 0
	for i, t := range terms {
		exact := int64(barWidth) * max(t.bytes, 0)
		cells[i] = int(exact / scale)
		rem[i] = exact % scale
		used += cells[i]
	}
	for ; used < want; used++ {
		best := -1
		for i := range terms {
			if rem[i] > 0 && (best < 0 || rem[i] > rem[best]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		cells[best]++
		rem[best] = 0
	}
	bar := make([]rune, 0, barWidth+1)
	for i, t := range terms {
		for range cells[i] {
			bar = append(bar, t.glyph)
		}
	}
	return bar
}
