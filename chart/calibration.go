package chart

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CalibrationPoint is one measured run: fitbot's per-GPU peak and the
// measured one, in GiB.
type CalibrationPoint struct {
	PredictedGiB, MeasuredGiB float64
}

// CalibrationData is what the calibration picture shows.
type CalibrationData struct {
	Title  string
	Points []CalibrationPoint
}

// CalibrationPNG draws measured against predicted peak memory, one dot a
// run, with the diagonal where they agree: a dot above it is a run that
// used more than fitbot said.
func CalibrationPNG(d CalibrationData) ([]byte, error) {
	if len(d.Points) == 0 {
		return nil, fmt.Errorf("calibration picture: no measured run")
	}
	p := newPlot(d.Title)
	p.X.Label.Text = "fitbot's peak (GiB per GPU)"
	p.Y.Label.Text = "measured peak (GiB)"
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	xys := make(plotter.XYs, len(d.Points))
	hi := 1.0
	for i, pt := range d.Points {
		xys[i] = plotter.XY{X: pt.PredictedGiB, Y: pt.MeasuredGiB}
		hi = max(hi, pt.PredictedGiB, pt.MeasuredGiB)
	}
	hi *= 1.1
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: hi, Y: hi}})
	if err != nil {
		return nil, fmt.Errorf("diagonal: %w", err)
	}
	diag.LineStyle.Width, diag.LineStyle.Color, diag.LineStyle.Dashes = vg.Length(3), palette[6], []vg.Length{vg.Length(12), vg.Length(8)}
	dots, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	// Translucent, so runs at the same figures show as one darker dot.
	dots.GlyphStyle.Radius, dots.GlyphStyle.Shape = vg.Length(10), draw.CircleGlyph{}
	dots.GlyphStyle.Color = color.NRGBA{R: palette[0].R, G: palette[0].G, B: palette[0].B, A: 150}
	l, err := lineLabel(hi*0.98, hi*0.72, "as fitbot said", draw.XRight, true, palette[6])
	if err != nil {
		return nil, err
	}
	p.Add(diag, dots, l)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, hi, 0, hi
	fitTitle(p)
	return render(p)
}
