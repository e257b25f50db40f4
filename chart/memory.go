package chart

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// MemoryData is everything the memory picture shows: the per-GPU terms
// as stacked segments, the card's capacity and the headroom line.
type MemoryData struct {
	Title       string    `json:"title"`
	Segments    []Segment `json:"segments"`
	TotalGiB    float64   `json:"total_gib"`
	CardGiB     float64   `json:"card_gib"`
	HeadroomGiB float64   `json:"headroom_gib"` // the card less the recommended free share
	Fits        bool      `json:"fits"`
}

// Segment is one memory term of the stacked bar.
type Segment struct {
	Label string  `json:"label"`
	GiB   float64 `json:"gib"`
}

// termColours gives each memory term one colour in every picture.
var termColours = map[string]color.Color{
	"weights": palette[0], "gradients": palette[1], "optimizer": palette[2],
	"activations": palette[3], "KV cache": palette[4], "overhead": palette[6],
}

const gib = 1 << 30

// Memory is the data of an answer's memory picture.
func Memory(a sizing.Answer) MemoryData {
	m := a.PerGPU
	terms := []struct {
		label string
		bytes int64
	}{
		{"weights", m.WeightsBytes}, {"gradients", m.GradientsBytes}, {"optimizer", m.OptimizerBytes},
		{"activations", m.ActivationsBytes}, {"QLoRA work", m.QLoRAWorkBytes}, {"gathered layers", m.GatheredBytes}, {"KV cache", m.KVCacheBytes}, {"overhead", m.OverheadBytes},
	}
	d := MemoryData{
		TotalGiB: tenths(float64(m.TotalBytes) / gib),
		CardGiB:  tenths(float64(a.VRAMBytes) / gib),
		Fits:     a.Fits,
	}
	d.HeadroomGiB = tenths(float64(a.VRAMBytes) / gib * (1 - sizing.TightFraction))
	for _, t := range terms {
		if t.bytes > 0 {
			d.Segments = append(d.Segments, Segment{Label: t.label, GiB: tenths(float64(t.bytes) / gib)})
		}
	}
	verdict := "Fits"
	switch {
	case !a.Fits:
		verdict = "Does not fit"
	case a.Headroom == sizing.HeadroomTight:
		verdict = "Fits, tight"
	}
	gpus := ""
	if a.Request.GPUs > 1 {
		gpus = fmt.Sprintf("%d× ", a.Request.GPUs)
	}
	d.Title = fmt.Sprintf("%s: %.1f of %.1f GiB per GPU\n%s %s on %s%s", verdict, d.TotalGiB, d.CardGiB,
		a.ModelName, display.RequestMethod(a.Request), gpus, a.GPUName)
	return d
}

func round2(x float64) float64 { return float64(int64(x*100+0.5)) / 100 }

// tenths rounds GiB from the exact figure to the tenth the text answers
// show (display.GiB), so that one card reads the same in the picture
// and the text (79.6 GiB, not 79.65 drawn as 79.7).
func tenths(x float64) float64 { return math.Round(x*10) / 10 }

// MemoryPNG draws the memory picture: one horizontal bar stacked term by
// term, the card's capacity as a solid line and the headroom line (the
// card less 20%) dashed.
func MemoryPNG(d MemoryData) ([]byte, error) {
	p := newPlot(d.Title)
	p.X.Label.Text = "GiB per GPU"
	p.HideY()
	p.Y.Min, p.Y.Max = -0.6, 2.2
	p.X.Min = 0
	p.X.Max = max(d.TotalGiB, d.CardGiB) * 1.2
	p.X.Tick.Marker = niceTicks{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = vg.Length(4)

	var below *plotter.BarChart
	for _, s := range d.Segments {
		b, err := plotter.NewBarChart(plotter.Values{s.GiB}, vg.Length(190))
		if err != nil {
			return nil, fmt.Errorf("bar %s: %w", s.Label, err)
		}
		b.Horizontal = true
		b.Color = termColours[s.Label]
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%s %.1f GiB", s.Label, s.GiB), b)
	}
	card, err := vline(d.CardGiB, 1.3, black, nil)
	if err != nil {
		return nil, err
	}
	head, err := vline(d.HeadroomGiB, 0.9, black, []vg.Length{vg.Length(14), vg.Length(8)})
	if err != nil {
		return nil, err
	}
	p.Add(card, head)
	// The card's label sits right of its line, above the headroom label,
	// which sits left of its line unless that would run off the axis.
	cardLabel, err := label(d.CardGiB, 1.12, fmt.Sprintf("card %.1f GiB", d.CardGiB), draw.XLeft)
	if err != nil {
		return nil, err
	}
	align := draw.XLeft
	if d.HeadroomGiB > 0.35*p.X.Max {
		align = draw.XRight
	}
	headLabel, err := label(d.HeadroomGiB, 0.72, "keep 20% free", align)
	if err != nil {
		return nil, err
	}
	if !d.Fits {
		cardLabel.TextStyle[0].Color = red
		p.Title.TextStyle.Color = red
	}
	p.Add(cardLabel, headLabel)
	return render(p)
}

// label is one text beside a line at x: right of it (draw.XLeft) or left
// of it (draw.XRight).
func label(x, y float64, text string, align draw.XAlignment) (*plotter.Labels, error) {
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: []plotter.XY{{X: x, Y: y}}, Labels: []string{text}})
	if err != nil {
		return nil, fmt.Errorf("label %q: %w", text, err)
	}
	l.TextStyle[0].Font.Size = vg.Length(tickSize)
	l.TextStyle[0].XAlign = align
	l.Offset = vg.Point{X: vg.Length(10)}
	if align == draw.XRight {
		l.Offset.X = -l.Offset.X
	}
	return l, nil
}

// vline is a vertical line across the bar at x, up to top.
func vline(x, top float64, c color.Color, dashes []vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(plotter.XYs{{X: x, Y: -0.6}, {X: x, Y: top}})
	if err != nil {
		return nil, fmt.Errorf("line at %.1f: %w", x, err)
	}
	l.LineStyle.Width = vg.Length(4)
	l.LineStyle.Color = c
	l.LineStyle.Dashes = dashes
	return l, nil
}
