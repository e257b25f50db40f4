package chart

import (
	"bytes"
	"encoding/json"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

var keep = flag.String("keep", "", "write the drawn PNGs into this folder, to look at them")

func answer(t testing.TB, words string) sizing.Answer {
	t.Helper()
	parsed, err := reading.Parse(words)
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&sizing.Estimator{}).Answer(parsed.Query)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkPNG decodes a drawn picture and checks its size.
func checkPNG(t *testing.T, name string, data []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s does not decode as PNG: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() != Width || b.Dy() != Height {
		t.Errorf("%s is %dx%d, want %dx%d", name, b.Dx(), b.Dy(), Width, Height)
	}
	if *keep != "" {
		if err := os.WriteFile(filepath.Join(*keep, name+".png"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func goldenJSON(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, path, append(got, '\n'))
}

// TestMemoryChart pins what each memory picture shows and checks the
// drawing. Looked at by eye (go test ./chart -keep DIR): the QLoRA one
// reads "Fits: 10.4 of 24.0 GiB per GPU" over one bar stacked blue
// (weights), orange, green, purple (activations), grey (overhead), the
// dashed "keep 20% free" line at 19.2 GiB and the solid card line at 24;
// the 70B full fine-tune one has a red title "Does not fit" and a bar that
// runs far past both lines, which sit at the left.
func TestMemoryChart(t *testing.T) {
	for _, tt := range []struct{ name, words string }{
		{"qlora-4090", "llama 3.1 8b qlora 4090"},
		{"full-70b-4090", "llama 3.1 70b full 4090"},
		{"serve-70b-8xh100", "llama 3.1 70b inference 8 h100 context 32768 batch 16"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := answer(t, tt.words)
			d := Memory(a)
			sum := 0.0
			for _, s := range d.Segments {
				sum += s.GiB
			}
			// Each figure is rounded to the tenth the text shows: the sum
			// may be off by half a tenth per term and the total's own half.
			if tol := 0.05 * float64(len(d.Segments)+1); math.Abs(sum-d.TotalGiB) > tol {
				t.Errorf("segments add up to %.2f GiB, total %.2f", sum, d.TotalGiB)
			}
			if d.Fits != a.Fits || d.HeadroomGiB >= d.CardGiB {
				t.Errorf("fits %v (answer %v), headroom %.2f of card %.2f", d.Fits, a.Fits, d.HeadroomGiB, d.CardGiB)
			}
			goldenJSON(t, filepath.Join("testdata", "memory-"+tt.name+".json"), d)
			img, err := MemoryPNG(d)
			if err != nil {
				t.Fatal(err)
			}
			checkPNG(t, "memory-"+tt.name, img)
		})
	}
}

// history is 90 days of observations: runpod steady at $2.39 then cut to
// $1.99 on day 60, aws flat at $6.88, lambda from day 30 at $2.49 with a
// spot offer and a fractional offer that the picture leaves out.
func history() ([]pricing.Offer, time.Time) {
	to := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	var obs []pricing.Offer
	for d := range 90 {
		at := to.AddDate(0, 0, -90+d).Add(6 * time.Hour)
		rp := 2.39
		if d >= 60 {
			rp = 1.99
		}
		obs = append(obs,
			pricing.Offer{Provider: "runpod", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerGPUHour: rp, ObservedAt: at},
			pricing.Offer{Provider: "aws", GPU: "h100", GPUCount: 8, Market: pricing.MarketOnDemand, USDPerGPUHour: 6.88, ObservedAt: at},
			pricing.Offer{Provider: "aws", GPU: "a100-80", GPUCount: 8, Market: pricing.MarketOnDemand, USDPerGPUHour: 5.12, ObservedAt: at},
		)
		if d >= 30 {
			obs = append(obs,
				pricing.Offer{Provider: "lambda", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, USDPerGPUHour: 2.49, ObservedAt: at},
				pricing.Offer{Provider: "lambda", GPU: "h100", GPUCount: 1, Market: pricing.MarketSpot, USDPerGPUHour: 0.99, ObservedAt: at},
				pricing.Offer{Provider: "vast", GPU: "h100", GPUCount: 0.5, Market: pricing.MarketOnDemand, USDPerGPUHour: 0.5, ObservedAt: at},
			)
		}
	}
	return obs, to
}

// TestPriceChart pins the price picture's data. Looked at by eye: the
// title "H100 SXM 80 GB: cheapest $1.99/GPU-hour (runpod)", three lines
// (runpod blue dropping on Oct 31 with a ring at the drop, lambda orange
// from Oct 1, aws green flat near $6.88), dates every two weeks.
func TestPriceChart(t *testing.T) {
	obs, to := history()
	d := Prices("H100 SXM 80 GB", "h100", obs, to)
	if len(d.Series) != 3 || d.Series[0].Provider != "runpod" {
		t.Fatalf("series %+v, want runpod, lambda, aws", d.Series)
	}
	if m := d.Series[0].Moves; len(m) != 1 || m[0].USD != 1.99 {
		t.Errorf("runpod moves %+v, want one to $1.99", m)
	}
	for _, s := range d.Series {
		for _, p := range s.Points {
			if p.USD < 1 {
				t.Errorf("%s %s at $%.2f: a spot or fractional price got in", s.Provider, p.Day, p.USD)
			}
		}
	}
	goldenJSON(t, filepath.Join("testdata", "prices-h100.json"), d)
	img, err := PricesPNG(d)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, "prices-h100", img)

	empty := Prices("L4 24 GB", "l4", obs, to)
	if len(empty.Series) != 0 || empty.Title != "L4 24 GB: no on-demand prices in the last 90 days" {
		t.Errorf("no-history data %+v", empty)
	}
	img, err = PricesPNG(empty)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, "prices-empty", img)
}

func TestCalibrationPNG(t *testing.T) {
	png, err := CalibrationPNG(CalibrationData{Title: "Measured runs: 3", Points: []CalibrationPoint{{31.5, 33}, {31.5, 36}, {18, 16.5}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("not a PNG: %d bytes", len(png))
	}
	if _, err := CalibrationPNG(CalibrationData{}); err == nil {
		t.Error("a picture of no run")
	}
}
