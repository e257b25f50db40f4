package chart

import (
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/fitbot/fitbot/pricing"
)

// crowdedHistory is a worst case for the move labels on a card with a
// long name: five providers with long names whose prices sit close
// together, three of them moving on the same day, one the day after, one
// the day after that, and one on the window's last day.
func crowdedHistory() ([]pricing.Offer, time.Time) {
	to := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	providers := []string{"gpuhunt:datacrunch", "gpuhunt:hyperstack", "runpod", "lambda", "gpuhunt:cudocompute"}
	var obs []pricing.Offer
	for d := range 90 {
		at := to.AddDate(0, 0, -90+d).Add(6 * time.Hour)
		for i, p := range providers {
			usd := 2.0 + 0.05*float64(i)
			switch {
			case i < 3 && d >= 45: // three moves on one day
				usd *= 0.8
			case i == 3 && d >= 46: // the next day
				usd *= 1.3
			case i == 4 && d >= 47: // the day after
				usd *= 0.7
			}
			if i == 0 && d >= 89 { // the last day, at the right edge
				usd *= 1.25
			}
			obs = append(obs, pricing.Offer{Provider: p, GPU: "rtx-pro-6000", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerGPUHour: usd, ObservedAt: at})
		}
	}
	return obs, to
}

// jumpyHistory is a market that moves every day: two providers
// alternating 10% up and down for 90 days, far more moves than labels fit.
func jumpyHistory() ([]pricing.Offer, time.Time) {
	to := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var obs []pricing.Offer
	for d := range 90 {
		at := to.AddDate(0, 0, -90+d).Add(6 * time.Hour)
		for i, p := range []string{"vast", "gpuhunt:tensordock"} {
			usd := 1.5 + 0.1*float64(i)
			if (d+i)%2 == 0 {
				usd *= 1.1
			}
			obs = append(obs, pricing.Offer{Provider: p, GPU: "rtx-4090", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerGPUHour: usd, ObservedAt: at})
		}
	}
	return obs, to
}

// TestPriceChartLabelsNeverOverlap draws the worst cases and checks
// where the move labels went: no two labels share a pixel, none covers
// a move's dot or the legend, none leaves the picture, and in the crowded
// case every move is labelled (the three on one day in one label, a line
// each, naming the provider). Looked at by eye (go test ./chart -keep
// DIR): prices-crowded.png reads "-20% runpod / -20% gpuhunt:hyperstack /
// -20% gpuhunt:datacrunch" below-left of the three dots, "+30% lambda"
// right of its dot, "-30% gpuhunt:cudocompute" below its dot and
// "+25% gpuhunt:datacrunch" left of the last day's dot; the title, a long
// card name and a long provider, fits the width.
func TestPriceChartLabelsNeverOverlap(t *testing.T) {
	for _, tt := range []struct {
		name      string
		gpuName   string
		gpu       string
		history   func() ([]pricing.Offer, time.Time)
		allLabels bool
	}{
		{"crowded", "RTX PRO 6000 Blackwell 96 GB", "rtx-pro-6000", crowdedHistory, true},
		{"jumpy", "RTX 4090 24 GB", "rtx-4090", jumpyHistory, false},
		{"h100", "H100 SXM 80 GB", "h100", history, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			obs, to := tt.history()
			d := Prices(tt.gpuName, tt.gpu, obs, to)
			p, labels, err := pricesPlot(d)
			if err != nil {
				t.Fatal(err)
			}
			img, err := render(p)
			if err != nil {
				t.Fatal(err)
			}
			checkPNG(t, "prices-"+tt.name, img)
			if len(labels.placed) == 0 {
				t.Fatal("no move label was drawn")
			}
			moves, lines := 0, 0
			for _, s := range d.Series {
				moves += len(s.Moves)
			}
			canvas := vg.Rectangle{Max: vg.Point{X: Width, Y: Height}}
			for i, a := range labels.placed {
				lines += strings.Count(a.text, "\n") + 1
				if a.box.Min.X < canvas.Min.X || a.box.Min.Y < canvas.Min.Y || a.box.Max.X > canvas.Max.X || a.box.Max.Y > canvas.Max.Y {
					t.Errorf("label %q at %v leaves the %dx%d picture", a.text, a.box, Width, Height)
				}
				for _, b := range labels.placed[i+1:] {
					if intersects(a.box, b.box) {
						t.Errorf("labels %q at %v and %q at %v overlap", a.text, a.box, b.text, b.box)
					}
				}
			}
			if lines+labels.dropped != moves {
				t.Errorf("%d label lines and %d left out, want the %d moves", lines, labels.dropped, moves)
			}
			if len(labels.placed) > maxMoveLabels {
				t.Errorf("%d labels, want at most %d", len(labels.placed), maxMoveLabels)
			}
			if tt.allLabels && labels.dropped > 0 {
				t.Errorf("%d of %d moves left unlabelled; labels %+v", labels.dropped, moves, labels.placed)
			}
			if tt.name == "crowded" {
				want := "-20% runpod\n-20% gpuhunt:hyperstack\n-20% gpuhunt:datacrunch"
				if !hasLabel(labels.placed, want) {
					t.Errorf("labels %+v, want the same day's moves in one label %q", labels.placed, want)
				}
			}
		})
	}
}

func hasLabel(placed []placedLabel, text string) bool {
	for _, p := range placed {
		if p.text == text {
			return true
		}
	}
	return false
}

// TestPlaceLabelKeepsClear checks the placement on its own: boxes that
// fill every place beside a dot leave a label out instead of overlapping.
func TestPlaceLabelKeepsClear(t *testing.T) {
	area := vg.Rectangle{Max: vg.Point{X: 400, Y: 200}}
	size := vg.Point{X: 100, Y: 30}
	var taken []vg.Rectangle
	for i := range 4 * (maxSteps + 1) {
		b, ok := placeLabel(area, taken, size, 200, 100, 100, 14, 15)
		if !ok {
			if i < 4 {
				t.Fatalf("only %d labels placed in an empty 400x200 area", i)
			}
			return // left out: no room near the dot
		}
		for _, o := range taken {
			if intersects(b, o) {
				t.Fatalf("label %d at %v overlaps %v", i, b, o)
			}
		}
		if b.Min.X < 0 || b.Min.Y < 0 || b.Max.X > 400 || b.Max.Y > 200 {
			t.Fatalf("label %d at %v leaves the area", i, b)
		}
		taken = append(taken, b)
	}
	t.Fatalf("%d labels of %v placed in a 400x200 area", 4*(maxSteps+1), size)
}
