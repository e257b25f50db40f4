package chart

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// TestServePicture draws a capacity answer's curve: the data carries the
// targets and the answered concurrency, the curve falls in tokens/s per
// user and rises in time to first token, and the PNG decodes at the
// pictures' size.
func TestServePicture(t *testing.T) {
	p, err := reading.Parse("how many users can 2xh100 serve llama-3.1-70b fp8 at 4k context with ttft under 1s and 20 tok/s each")
	if err != nil {
		t.Fatal(err)
	}
	e := &sizing.Estimator{}
	a, err := e.Ask(p.Query, p.Intent, p.Workload)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query
	q.Quant, q.Precision, q.GPU, q.GPUs = a.Request.Quant, a.Request.Precision, a.Request.GPU, a.Request.GPUs
	curve, err := e.ServeCurve(q)
	if err != nil {
		t.Fatal(err)
	}
	d := Serve(a, curve)
	if d.TTFTTarget != 1 || d.TPSTarget != 20 || d.Answered != a.Serve.Capacity.Concurrency || len(d.Points) < 10 {
		t.Fatalf("data: targets %v/%v, answered %d (want %d), %d points", d.TTFTTarget, d.TPSTarget, d.Answered, a.Serve.Capacity.Concurrency, len(d.Points))
	}
	first, last := d.Points[0], d.Points[len(d.Points)-1]
	if first.Concurrency != 1 || last.TokensPerSecondPerUser >= first.TokensPerSecondPerUser || last.TTFTSeconds <= first.TTFTSeconds {
		t.Errorf("curve from %+v to %+v: want slower tokens and later first tokens as requests grow", first, last)
	}
	png, err := ServePNG(d)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, "serve", png)
	if *keep != "" {
		if err := os.WriteFile(filepath.Join(*keep, "serve.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
