package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/sizing"
)

// TestFitOwn: buying the cards a load needs is not buy-vs-rent (which
// would ask for jobs a week) but the serving plan, its
// second line what the first option's cards cost to buy, and the JSON
// carries request.own and serve.purchase (count × the card's purchase
// price).
func TestFitOwn(t *testing.T) {
	for _, q := range []string{
		"hi, im in procurement, we need to run llama 3 70b for about two hundred employees internally, how many gpus do we actually need to buy",
		"on prem box for 100 users, qwen3 30b-a3b, what do we buy",
	} {
		t.Run(q, func(t *testing.T) {
			code, out, errOut := runFit(t, q)
			if code != exitOK {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			lines := strings.Split(out, "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "Cheapest for ") || !strings.HasPrefix(lines[1], "To own: ") ||
				!strings.Contains(lines[1], " to buy (") || !strings.Contains(lines[1], "a spare card for redundancy is common") {
				t.Errorf("first lines, want the plan then its purchase:\n%s", out)
			}
			if strings.Contains(out, "buy or rent depends") || strings.Contains(out, "buy-vs-rent") {
				t.Errorf("asks for a use:\n%s", out)
			}
			code, out, errOut = runFit(t, "--json", q)
			if code != exitOK {
				t.Fatalf("--json: exit %d, stderr %q", code, errOut)
			}
			var got struct {
				Kind    string `json:"kind"`
				Request struct {
					Own bool `json:"own"`
				} `json:"request"`
				Serve struct {
					Mode    string `json:"mode"`
					Options []struct {
						GPU     string `json:"gpu"`
						Serving struct {
							Replicas       int `json:"replicas"`
							GPUsPerReplica int `json:"gpus_per_replica"`
						} `json:"serving"`
					} `json:"options"`
					Purchase *struct {
						Option  int     `json:"option"`
						GPU     string  `json:"gpu"`
						Cards   int     `json:"cards"`
						USDLow  float64 `json:"usd_low"`
						USDHigh float64 `json:"usd_high"`
						AsOf    string  `json:"as_of"`
						Source  string  `json:"source"`
					} `json:"purchase"`
				} `json:"serve"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			p := got.Serve.Purchase
			if got.Kind != "serve" || got.Serve.Mode != "plan" || !got.Request.Own || p == nil || p.Option >= len(got.Serve.Options) {
				t.Fatalf("kind %q, mode %q, request.own %v, purchase %+v", got.Kind, got.Serve.Mode, got.Request.Own, p)
			}
			o := got.Serve.Options[p.Option]
			pp, ok := sizing.LookupPurchasePrice(o.GPU)
			if cards := o.Serving.Replicas * o.Serving.GPUsPerReplica; !ok || p.GPU != o.GPU || p.Cards != cards ||
				p.USDLow != float64(cards)*pp.USDLow || p.USDHigh != float64(cards)*pp.USDHigh || p.Source != pp.Source || p.AsOf == "" {
				t.Errorf("purchase %+v, want %d× %s at %d × $%v-%v", p, cards, o.GPU, cards, pp.USDLow, pp.USDHigh)
			}
		})
	}
}

// TestFitOwnGolden pins the text of "on prem box for 100 users, qwen3
// 30b-a3b, what do we buy" against
// testdata/fit_own.txt (go test -update rewrites it).
func TestFitOwnGolden(t *testing.T) {
	code, out, errOut := runFit(t, "on prem box for 100 users, qwen3 30b-a3b, what do we buy")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "fit_own.txt"), []byte(out))
}
