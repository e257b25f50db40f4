package chart

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// move is one price move the picture labels: where its dot sits (Unix
// seconds, dollars), its change and whose line it is on.
type move struct {
	x, y      float64
	changePct float64
	provider  string
}

// placedLabel is a label as drawn: its text and its box on the canvas.
type placedLabel struct {
	text string
	box  vg.Rectangle
}

// moveLabels is the plotter of the price picture's move labels. Moves on
// the same day whose dots sit close together share one label, a line
// per move; each label goes beside its dots where it covers no other
// label, dot or the legend and stays inside the data area, trying right
// then left of the dots, below then above, then further away; a place
// that covers no price line is preferred to a nearer one that does. A label
// that finds no such place near its dots is left out (its dot stays), the
// largest moves placed first, at most maxMoveLabels of them: a market that
// moves every day gets its largest moves named, not a wall of text.
// placed records what was drawn, for tests.
type moveLabels struct {
	moves   []move
	named   bool          // whether each line names its provider (more than one line in the picture)
	legend  []string      // the legend's entries, whose box labels avoid
	steps   []plotter.XYs // the providers' step lines, which labels avoid where they can
	placed  []placedLabel
	dropped int
}

// maxMoveLabels is the most labels a price picture carries.
const maxMoveLabels = 8

// labelStyle is the move labels' type: the ticks' size, red.
func labelStyle() draw.TextStyle {
	return draw.TextStyle{Color: red, Font: font.From(plot.DefaultFont, vg.Length(tickSize)), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// moveGroup is the moves one label lists, top dot first.
type moveGroup []move

// text is the label's lines: the change, and the provider when named.
func (g moveGroup) text(named bool) string {
	lines := make([]string, len(g))
	for i, m := range g {
		lines[i] = fmt.Sprintf("%+.0f%%", m.changePct)
		if named {
			lines[i] += " " + m.provider
		}
	}
	return strings.Join(lines, "\n")
}

// weight orders the labels: the group's largest move first.
func (g moveGroup) weight() float64 {
	w := 0.0
	for _, m := range g {
		w = max(w, math.Abs(m.changePct))
	}
	return w
}

// Plot implements plot.Plotter.
func (l *moveLabels) Plot(c draw.Canvas, p *plot.Plot) {
	l.placed, l.dropped = nil, 0
	trX, trY := p.Transforms(&c)
	sty := labelStyle()
	lineH := sty.Font.Size
	const gap = vg.Length(14) // between a dot's centre and its label
	dot := vg.Length(moveDotRadius + 2)

	// Obstacles: every dot and the legend.
	var taken []vg.Rectangle
	for _, m := range l.moves {
		pt := vg.Point{X: trX(m.x), Y: trY(m.y)}
		taken = append(taken, vg.Rectangle{Min: vg.Point{X: pt.X - dot, Y: pt.Y - dot}, Max: vg.Point{X: pt.X + dot, Y: pt.Y + dot}})
	}
	if r, ok := legendBox(c, p, l.legend); ok {
		taken = append(taken, r)
	}
	lines := stepBoxes(l.steps, trX, trY)

	for _, g := range l.groups(trY, lineH) {
		if len(l.placed) == maxMoveLabels {
			l.dropped += len(g)
			continue
		}
		txt := g.text(l.named)
		size := sty.Rectangle(txt).Size()
		x := trX(g[0].x)
		top, bottom := trY(g[0].y), trY(g[len(g)-1].y)
		box, ok := placeLabel(c.Rectangle, append(slices.Clip(taken), lines...), size, x, top, bottom, gap, lineH/2)
		if !ok {
			box, ok = placeLabel(c.Rectangle, taken, size, x, top, bottom, gap, lineH/2)
		}
		if !ok {
			l.dropped += len(g)
			continue
		}
		taken = append(taken, box)
		l.placed = append(l.placed, placedLabel{text: txt, box: box})
		c.SetColor(color.NRGBA{255, 255, 255, 200}) // the label reads over a line it must cross
		c.Fill(box.Path())
		c.FillText(sty, vg.Point{X: box.Min.X, Y: box.Min.Y - sty.Rectangle(txt).Min.Y}, txt)
	}
}

// groups gathers the moves into labels: moves on the same day whose dots
// are within two lines of each other share one, top dot first; the
// groups come largest move first, then left to right.
func (l *moveLabels) groups(trY func(float64) vg.Length, lineH vg.Length) []moveGroup {
	ms := slices.Clone(l.moves)
	slices.SortFunc(ms, func(a, b move) int {
		return cmp.Or(cmp.Compare(a.x, b.x), cmp.Compare(b.y, a.y), cmp.Compare(a.provider, b.provider))
	})
	var gs []moveGroup
	for _, m := range ms {
		if n := len(gs); n > 0 {
			last := gs[n-1][len(gs[n-1])-1]
			if last.x == m.x && trY(last.y)-trY(m.y) <= 2*lineH {
				gs[n-1] = append(gs[n-1], m)
				continue
			}
		}
		gs = append(gs, moveGroup{m})
	}
	slices.SortStableFunc(gs, func(a, b moveGroup) int { return cmp.Compare(b.weight(), a.weight()) })
	return gs
}

// placeLabel finds a box of size for dots at x between top and bottom
// (canvas units) inside area that intersects none of taken: just below
// the lowest dot then just above the highest, right of the dots then
// left, then stepping away from them by step, at most maxSteps times (a
// label further off no longer reads as its dots'). Below and above rather than
// level: a label level with its dot would cover the line it is on.
func placeLabel(area vg.Rectangle, taken []vg.Rectangle, size vg.Point, x, top, bottom, gap, step vg.Length) (vg.Rectangle, bool) {
	lefts := []vg.Length{x + gap, x - gap - size.X}
	for k := vg.Length(0); k <= maxSteps; k++ {
		below := bottom - gap - size.Y - k*step // the box's bottom edge
		above := top + gap + k*step
		for _, y := range []vg.Length{below, above} {
			for _, left := range lefts {
				if b := rect(left, y, size); fits(b, area, taken) {
					return b, true
				}
			}
		}
	}
	return vg.Rectangle{}, false
}

// maxSteps is how many steps of half a line a label may move away from
// its dots.
const maxSteps = 8

func rect(x, y vg.Length, size vg.Point) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + size.X, Y: y + size.Y}}
}

// fits says whether b lies inside area and clear of every box in taken.
func fits(b, area vg.Rectangle, taken []vg.Rectangle) bool {
	if b.Min.X < area.Min.X || b.Min.Y < area.Min.Y || b.Max.X > area.Max.X || b.Max.Y > area.Max.Y {
		return false
	}
	for _, t := range taken {
		if intersects(b, t) {
			return false
		}
	}
	return true
}

// intersects says whether two boxes share more than an edge.
func intersects(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// stepBoxes are the boxes the step lines through each series' points
// cover on the canvas: a flat run while a price holds, a riser where it
// changes.
func stepBoxes(series []plotter.XYs, trX, trY func(float64) vg.Length) []vg.Rectangle {
	const half = vg.Length(4) // half the line's width, and a little
	var out []vg.Rectangle
	for _, xys := range series {
		for i := 0; i < len(xys); {
			j := i + 1
			for j < len(xys) && xys[j].Y == xys[i].Y {
				j++
			}
			x0, y0 := trX(xys[i].X), trY(xys[i].Y)
			x1 := trX(xys[min(j, len(xys)-1)].X)
			out = append(out, vg.Rectangle{Min: vg.Point{X: x0 - half, Y: y0 - half}, Max: vg.Point{X: x1 + half, Y: y0 + half}})
			if j < len(xys) {
				y1 := trY(xys[j].Y)
				out = append(out, vg.Rectangle{Min: vg.Point{X: x1 - half, Y: min(y0, y1) - half}, Max: vg.Point{X: x1 + half, Y: max(y0, y1) + half}})
			}
			i = j
		}
	}
	return out
}

// legendBox is where the picture's top-left legend sits on the data
// canvas c, with a margin; false without entries.
func legendBox(c draw.Canvas, p *plot.Plot, entries []string) (vg.Rectangle, bool) {
	if len(entries) == 0 {
		return vg.Rectangle{}, false
	}
	sty := p.Legend.TextStyle
	w := vg.Length(0)
	for _, e := range entries {
		w = max(w, sty.Rectangle(" "+e).Max.X)
	}
	h := vg.Length(0)
	for i := range entries {
		h += sty.Rectangle(entries[i]).Size().Y
		if i > 0 {
			h += p.Legend.Padding
		}
	}
	const margin = vg.Length(8)
	return vg.Rectangle{
		Min: vg.Point{X: c.Min.X - margin, Y: c.Max.Y - h - margin},
		Max: vg.Point{X: c.Min.X + p.Legend.ThumbnailWidth + w + margin, Y: c.Max.Y + margin},
	}, true
}
