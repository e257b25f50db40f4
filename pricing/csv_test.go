package pricing

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var importAt = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

func parseFile(t *testing.T, name string) ([]Offer, error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "csv", name))
	if err != nil {
		t.Fatal(err)
	}
	return ParseSheet(bytes.NewReader(data), SheetOptions{Name: name, At: importAt})
}

func TestParseSheetGood(t *testing.T) {
	got, err := parseFile(t, "good.csv")
	if err != nil {
		t.Fatalf("ParseSheet: %v", err)
	}
	want := []Offer{
		{Provider: "coreweave", InstanceType: "gd-8xh100ib-i128", GPU: "h100", GPUCount: 8, Market: MarketReserved, Region: "us-east-04", USDPerHour: 17.60, USDPerGPUHour: 2.2, Source: "good.csv:3", ObservedAt: importAt, Samples: 1},
		{Provider: "onprem", GPU: "a100-80", GPUCount: 1, Market: MarketOnDemand, Region: "dc1", USDPerHour: 0.90, USDPerGPUHour: 0.90, Source: "good.csv:4", ObservedAt: importAt, Samples: 1},
		{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: MarketOnDemand, Region: "us-east-1", USDPerHour: 55.04, USDPerGPUHour: 6.88, Source: "good.csv:5", ObservedAt: importAt, Samples: 1},
		{Provider: "azure", InstanceType: "Standard_NV18ads_A10_v5", GPU: "a10", GPUCount: 0.5, Market: MarketSpot, Region: "eastus", USDPerHour: 0.45, USDPerGPUHour: 0.9, Source: "good.csv:6", ObservedAt: importAt, Samples: 1},
	}
	if diff := cmp.Diff(want, got, cmpPrices); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
}

func TestParseSheetOptionalColumns(t *testing.T) {
	got, err := parseFile(t, "extra.csv")
	if err != nil {
		t.Fatalf("ParseSheet: %v", err)
	}
	want := []Offer{
		{Provider: "runpod", InstanceType: "NVIDIA H100 80GB HBM3", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Tier: "community", USDPerHour: 2.69, USDPerGPUHour: 2.69, Source: "runpod.io/pricing", ObservedAt: time.Date(2026, 9, 25, 0, 0, 0, 0, time.UTC), Samples: 1},
		{Provider: "runpod", InstanceType: "NVIDIA H100 80GB HBM3", GPU: "h100", GPUCount: 1, Market: MarketOnDemand, Tier: "secure", USDPerHour: 3.99, USDPerGPUHour: 3.99, Source: "runpod.io/pricing", ObservedAt: time.Date(2026, 11, 9, 12, 0, 0, 0, time.UTC), Samples: 1},
	}
	if diff := cmp.Diff(want, got, cmpPrices); diff != "" {
		t.Errorf("offers (-want +got):\n%s", diff)
	}
}

func TestParseSheetRejects(t *testing.T) {
	tests := []struct {
		file string
		want []LineError // Problem holds a fragment the message must contain
	}{
		{"bad.csv", []LineError{
			{3, `gpu: unknown GPU "h1000" (did you mean h100`},
			{4, "gpu_count 0 must be above 0"},
			{5, `pricing "ondemand" must be on_demand, spot or reserved`},
			{6, "usd_per_hour -1 must be above 0"},
			{7, "$0.01 per GPU-hour is outside $0.05-$100"},
			{8, "the same offer as line 2"},
			{9, "5 fields, the header has 7"},
			{10, `gpu: "a100" is ambiguous`},
		}},
		{"header_order.csv", []LineError{{1, "the header must start with provider,gpu,gpu_count"}}},
		{"no_header.csv", []LineError{{1, "the header must start with"}}},
		{"broken_quote.csv", []LineError{{2, "not valid CSV"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			offers, err := parseFile(t, tt.file)
			if offers != nil {
				t.Errorf("ParseSheet returned %d offers with an error; want none", len(offers))
			}
			var se *SheetError
			if !errors.As(err, &se) {
				t.Fatalf("ParseSheet error = %v, want a *SheetError", err)
			}
			if len(se.Problems) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%v", len(se.Problems), len(tt.want), err)
			}
			for i, w := range tt.want {
				g := se.Problems[i]
				if g.Line != w.Line || !strings.Contains(g.Problem, w.Problem) {
					t.Errorf("problem %d = line %d %q, want line %d containing %q", i, g.Line, g.Problem, w.Line, w.Problem)
				}
			}
			if !strings.Contains(err.Error(), tt.file) {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestParseSheetEmpty(t *testing.T) {
	for name, in := range map[string]string{
		"empty":       "",
		"header only": strings.Join(SheetColumns, ",") + "\n",
		"comments":    "# nothing\n",
	} {
		if _, err := ParseSheet(strings.NewReader(in), SheetOptions{Name: "x.csv", At: importAt}); err == nil {
			t.Errorf("%s: ParseSheet accepted a sheet with no offers", name)
		}
	}
}

func TestParseSheetNeedsATime(t *testing.T) {
	in := strings.Join(SheetColumns, ",") + "\naws,h100,8,us-east-1,on_demand,55.04,p5.48xlarge\n"
	_, err := ParseSheet(strings.NewReader(in), SheetOptions{Name: "x.csv"})
	if err == nil || !strings.Contains(err.Error(), "no as_of value") {
		t.Errorf("ParseSheet without At or as_of: error %v, want one about the missing time", err)
	}
}

func TestParseSheetCapsProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(strings.Join(SheetColumns, ",") + "\n")
	for range 50 {
		b.WriteString("aws,nope,1,r,on_demand,1,x\n")
	}
	_, err := ParseSheet(strings.NewReader(b.String()), SheetOptions{Name: "x.csv", At: importAt})
	var se *SheetError
	if !errors.As(err, &se) {
		t.Fatalf("error = %v, want *SheetError", err)
	}
	if len(se.Problems) != maxSheetProblems || se.More != 50-maxSheetProblems {
		t.Errorf("listed %d problems and %d more, want %d and %d", len(se.Problems), se.More, maxSheetProblems, 50-maxSheetProblems)
	}
	if !strings.Contains(err.Error(), "50 bad line(s)") {
		t.Errorf("error %q does not give the total", err)
	}
}

// FuzzParseSheet checks the all-or-nothing property: a sheet either parses
// into valid offers (positive prices inside the bounds, catalog GPUs, known
// markets) or returns no offers and a *SheetError.
func FuzzParseSheet(f *testing.F) {
	for _, name := range []string{"good.csv", "bad.csv", "extra.csv", "header_order.csv", "broken_quote.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", "csv", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add(defaultSheetCSV)
	f.Fuzz(func(t *testing.T, data []byte) {
		offers, err := ParseSheet(bytes.NewReader(data), SheetOptions{Name: "fuzz.csv", At: importAt})
		if err != nil {
			var se *SheetError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SheetError", err)
			}
			if offers != nil {
				t.Fatalf("%d offers returned with an error", len(offers))
			}
			return
		}
		if len(offers) == 0 {
			t.Fatal("no offers and no error")
		}
		for _, o := range offers {
			if err := checkOffer(o); err != nil {
				t.Fatalf("accepted an invalid offer %+v: %v", o, err)
			}
		}
	})
}
