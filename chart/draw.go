package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Width and Height are every picture's size in pixels: 16:9, wide enough
// for Slack's preview and large enough that its type survives a phone.
const (
	Width  = 1200
	Height = 675
)

// Type sizes in pixels (the canvas is drawn at 72 dpi, so a point is a
// pixel).
const (
	titleSize  = 40
	labelSize  = 32
	tickSize   = 28
	legendSize = 28
)

// The few colours the pictures use: one hue per memory term or provider,
// chosen to stay apart for colour-blind readers (Okabe-Ito).
var palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{230, 159, 0, 255},   // orange
	{0, 158, 115, 255},   // green
	{204, 121, 167, 255}, // purple
	{86, 180, 233, 255},  // sky
	{213, 94, 0, 255},    // vermilion
	{120, 120, 120, 255}, // grey
}

var (
	black = color.RGBA{0, 0, 0, 255}
	red   = color.RGBA{200, 30, 30, 255}
)

// newPlot is a plot with the pictures' type sizes.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = font.Length(titleSize)
	p.Title.Padding = vg.Length(12)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font.Size = font.Length(labelSize)
		ax.Tick.Label.Font.Size = font.Length(tickSize)
		ax.LineStyle.Width = vg.Length(2)
	}
	p.Legend.TextStyle.Font.Size = font.Length(legendSize)
	return p
}

// pad is the white margin round every picture, in pixels.
const pad = vg.Length(28)

// minTitleSize is the smallest a long title is set to fit the width.
const minTitleSize = 24

// fitTitle sets p's title smaller, down to minTitleSize, until its widest
// line fits the picture's width (a long card or model name would run off
// both edges at the full size).
func fitTitle(p *plot.Plot) {
	room := vg.Length(Width) - 2*pad
	for p.Title.TextStyle.Font.Size > minTitleSize && p.Title.TextStyle.Rectangle(p.Title.Text).Size().X > room {
		p.Title.TextStyle.Font.Size--
	}
}

// pngEncoder writes the pictures at zlib's fastest level. Flat colours
// and text compress well at any level: the default level took 60% of a
// picture's time (about 28 of 45 ms) to make the file a little smaller
// (BENCHMARKS.md).
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// render draws a plot onto a Width x Height PNG.
func render(p *plot.Plot) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(Width), vg.Length(Height)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(color.White))
	fitTitle(p)
	p.Draw(draw.Crop(draw.New(c), pad, -pad, pad/2, -pad/2))
	var b bytes.Buffer
	if err := pngEncoder.Encode(&b, c.Image()); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return b.Bytes(), nil
}

// niceTicks marks an axis at 1, 2 or 5 times a power of ten, about five
// labelled ticks, labels without trailing zeros.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if hi <= lo {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	for i := math.Ceil(lo / step); i*step <= hi+step*1e-9; i++ {
		v := i * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}
