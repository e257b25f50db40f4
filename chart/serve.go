package chart

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"bytes"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// ServeData is everything the serving picture shows: one replica's
// tokens per second per user and time to first token against the
// concurrency, the asked targets and the answered concurrency.
type ServeData struct {
	Title      string
	Points     []sizing.ServePoint
	TTFTTarget float64 // seconds; 0 when none
	TPSTarget  float64 // tokens/s per user; 0 when none
	Answered   int     // the answer's concurrency per replica
}

// Serve is the data of a serving answer's picture, from its curve.
func Serve(a sizing.AskAnswer, curve []sizing.ServePoint) ServeData {
	d := ServeData{Title: a.ModelName, Points: curve}
	if s := a.Serve; s != nil {
		d.TTFTTarget, d.TPSTarget = s.TTFTTargetSeconds, s.TokensPerSecondPerUserTarget
		switch {
		case s.Capacity != nil:
			d.Answered = s.Capacity.Concurrency
			d.Title = fmt.Sprintf("%s on %s", a.ModelName, display.Hardware(s.Capacity.GPUsPerReplica, a.GPUName))
		case len(s.Options) > 0:
			o := s.Options[0]
			d.Answered = o.Serving.Concurrency
			d.Title = fmt.Sprintf("%s on %s (one replica)", a.ModelName, display.Hardware(o.Serving.GPUsPerReplica, o.GPUName))
		}
	}
	return d
}

// ServePNG draws the serving picture: tokens per second per user above,
// time to first token below, both against concurrent requests, with the
// targets as dashed red lines and the answered concurrency as a grey one,
// each line labelled with what it is.
func ServePNG(d ServeData) ([]byte, error) {
	top, bottom := newPlot(d.Title), newPlot("")
	top.Y.Label.Text = "tok/s per user"
	bottom.Y.Label.Text = "first token (s)"
	bottom.X.Label.Text = "concurrent requests"
	tps, ttft := make(plotter.XYs, len(d.Points)), make(plotter.XYs, len(d.Points))
	hiT, hiS, hiX := 0.0, 0.0, 1.0
	for i, pt := range d.Points {
		x := float64(pt.Concurrency)
		tps[i] = plotter.XY{X: x, Y: pt.TokensPerSecondPerUser}
		ttft[i] = plotter.XY{X: x, Y: pt.TTFTSeconds}
		hiT, hiS, hiX = max(hiT, pt.TokensPerSecondPerUser), max(hiS, pt.TTFTSeconds), max(hiX, x)
	}
	hiT, hiS = max(hiT, d.TPSTarget)*1.15, max(hiS, d.TTFTTarget)*1.15
	for i, pl := range []struct {
		p      *plot.Plot
		xys    plotter.XYs
		target float64
		hi     float64
		col    color.RGBA
		text   string
	}{
		{top, tps, d.TPSTarget, hiT, palette[0], fmt.Sprintf("target %s tok/s", trimFloat(d.TPSTarget))},
		{bottom, ttft, d.TTFTTarget, hiS, palette[1], fmt.Sprintf("target %s s", trimFloat(d.TTFTTarget))},
	} {
		pl.p.X.Tick.Marker, pl.p.Y.Tick.Marker = niceTicks{}, niceTicks{}
		line, err := plotter.NewLine(pl.xys)
		if err != nil {
			return nil, fmt.Errorf("serving curve: %w", err)
		}
		line.LineStyle.Width, line.LineStyle.Color = vg.Length(5), pl.col
		pl.p.Add(line)
		if pl.target > 0 {
			t, err := plotter.NewLine(plotter.XYs{{X: 0, Y: pl.target}, {X: hiX * 1.02, Y: pl.target}})
			if err != nil {
				return nil, fmt.Errorf("target: %w", err)
			}
			t.LineStyle.Width, t.LineStyle.Color, t.LineStyle.Dashes = vg.Length(3), red, []vg.Length{vg.Length(12), vg.Length(8)}
			l, err := lineLabel(hiX*1.02, pl.target, pl.text, draw.XRight, curveAbove(pl.xys, pl.target), red)
			if err != nil {
				return nil, err
			}
			pl.p.Add(t, l)
		}
		if d.Answered > 0 {
			v, err := vline(float64(d.Answered), max(pl.hi, 0.1), palette[6], []vg.Length{vg.Length(6), vg.Length(6)})
			if err != nil {
				return nil, err
			}
			pl.p.Add(v)
			if i == 0 { // once, at the top, on the side with more room
				align := draw.XLeft
				if float64(d.Answered) > 0.6*hiX {
					align = draw.XRight
				}
				l, err := lineLabel(float64(d.Answered), max(pl.hi, 0.1)*0.97, fmt.Sprintf("answered: %d at once", d.Answered), align, false, palette[6])
				if err != nil {
					return nil, err
				}
				pl.p.Add(l)
			}
		}
		// After the plotters, which widen the axes to their data.
		pl.p.X.Min, pl.p.X.Max, pl.p.Y.Min, pl.p.Y.Max = 0, hiX*1.02, 0, max(pl.hi, 0.1)
	}
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(Width), vg.Length(Height)), vgimg.UseDPI(72), vgimg.UseBackgroundColor(color.White))
	fitTitle(top)
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Length(10)}, draw.Crop(draw.New(c), pad, -pad, pad/2, -pad/2))
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	var b bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&b); err != nil {
		return nil, fmt.Errorf("encode png: %w", err)
	}
	return b.Bytes(), nil
}

// lineLabel is a line's label at (x, y): right of x (draw.XLeft) or left
// of it (draw.XRight), just above y or, with under, just below it.
func lineLabel(x, y float64, text string, align draw.XAlignment, under bool, c color.Color) (*plotter.Labels, error) {
	l, err := label(x, y, text, align)
	if err != nil {
		return nil, err
	}
	l.TextStyle[0].Color = c
	l.TextStyle[0].YAlign = draw.YBottom
	l.Offset.Y = vg.Length(6)
	if under {
		l.TextStyle[0].YAlign = draw.YTop
		l.Offset.Y = -l.Offset.Y
	}
	return l, nil
}

// curveAbove says whether the curve ends above y: a target's label goes
// on the other side of its line, clear of the curve.
func curveAbove(xys plotter.XYs, y float64) bool {
	return len(xys) > 0 && xys[len(xys)-1].Y > y
}

// trimFloat writes a target as people type it: 20, 1, 0.5.
func trimFloat(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
