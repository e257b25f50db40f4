package pricing

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPrimeIntellectSampleRefresh replays real PrimeIntellect rows (see
// testdata/SOURCES.md) through a refresh into the sink: every offer is
// filed under its real form factor, read from UpstreamCloudId where
// AcceleratorName says only "H100", and under its datacentre, so one
// machine in two datacentres of a country stays two offers.
func TestPrimeIntellectSampleRefresh(t *testing.T) {
	srv := catalogServer(t, "samples/skypilot/v8", true)
	sp := NewSkyPilot("primeintellect", srv.URL, srv.Client(), nil)
	sp.now = func() time.Time { return fetchNow }
	sink := &memorySink{}
	r := &Refresher{Fetchers: []Fetcher{sp}, Sink: sink, Clock: func() time.Time { return fetchNow }}
	reports, err := r.Refresh(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep := reports[0]; rep.Run.Status != RunOK || len(rep.Unknown) != 0 {
		t.Fatalf("run %s with unknown names %v: %s", rep.Run.Status, rep.Unknown, rep.Run.Error)
	}
	want := []string{
		"primeintellect CANADA-1 on_demand  hyperstack__1xA100_80GB__28__120 1xa100-80-pcie $1.3500/h $1.3500/GPU-h",
		"primeintellect CANADA-1 on_demand  hyperstack__1xH100_80GB__28__180 1xh100-pcie $1.9000/h $1.9000/GPU-h",
		"primeintellect CANADA-1 on_demand  hyperstack__1xL40_48GB__28__58 1xl40 $1.0000/h $1.0000/GPU-h",
		"primeintellect CANADA-1 on_demand  hyperstack__8xA100_80GB__252__1920__NVLINK 8xa100-80-pcie $11.2000/h $1.4000/GPU-h",
		"primeintellect CANADA-1 on_demand  hyperstack__8xH100_80GB__252__1440 8xh100-pcie $15.2000/h $1.9000/GPU-h",
		"primeintellect FIN-01 on_demand  datacrunch__2xA100_80GB__44__240 2xa100-80 $2.2300/h $1.1150/GPU-h",
		"primeintellect FIN-01 spot  datacrunch__2xA100_80GB__44__240__SPOT 2xa100-80 $1.0500/h $0.5250/GPU-h",
		"primeintellect FIN-02 on_demand  datacrunch__1xH100_80GB__30__120 1xh100 $1.9700/h $1.9700/GPU-h",
		"primeintellect FIN-02 on_demand  datacrunch__1xH200_141GB__44__182 1xh200 $2.0000/h $2.0000/GPU-h",
		"primeintellect FIN-02 on_demand  datacrunch__1xL40S_48GB__20__60 1xl40s $0.9100/h $0.9100/GPU-h",
		"primeintellect FIN-02 on_demand  datacrunch__2xA100_80GB__44__240 2xa100-80 $2.2300/h $1.1150/GPU-h",
		"primeintellect ICE-01 on_demand  datacrunch__1xH200_141GB__44__182 1xh200 $2.0000/h $2.0000/GPU-h",
		"primeintellect MON1 on_demand  oblivus__1xA100_80GB__28__120 1xa100-80-pcie $1.4755/h $1.4755/GPU-h",
		"primeintellect US on_demand  primecompute__8xH100_80GB__104__752 8xh100 $20.0000/h $2.5000/GPU-h",
		"primeintellect US-1 on_demand  hyperstack__8xH100_80GB__192__960 8xh100 $19.2000/h $2.4000/GPU-h",
		"primeintellect eu-north1 on_demand  nebius__1xH100_80GB__16__200 1xh100 $2.1180/h $2.1180/GPU-h",
		"primeintellect us-midwest-1 on_demand  lambdalabs__8xA100_80GB__240__1800 8xa100-80 $14.3200/h $1.7900/GPU-h",
		"primeintellect us-south-2 on_demand  lambdalabs__1xH100_80GB__26__225 1xh100 $3.2900/h $3.2900/GPU-h",
	}
	if diff := cmp.Diff(want, summaries(sink.offers[reports[0].Run.ID])); diff != "" {
		t.Errorf("stored offers (-want +got):\n%s", diff)
	}
	// The cheapest H100 SXM is a real SXM offer, not the $1.90 PCIe card.
	best := 0.0
	for _, o := range sink.offers[reports[0].Run.ID] {
		if o.GPU == "h100" && (best == 0 || o.USDPerGPUHour < best) {
			best = o.USDPerGPUHour
		}
	}
	if best != 1.97 {
		t.Errorf("cheapest H100 SXM $%.2f/GPU-h, want DataCrunch's $1.97", best)
	}
}

// TestShadeformSampleNames replays one real Shadeform row of each
// accelerator name SkyPilot's catalog lists: each is filed under its
// card, or reported as unknown with its row count (Intel's Gaudi 2 is
// no GPU fitbot sizes).
func TestShadeformSampleNames(t *testing.T) {
	srv := catalogServer(t, "samples/skypilot/v8", true)
	sp := NewSkyPilot("shadeform", srv.URL, srv.Client(), nil)
	sp.now = func() time.Time { return fetchNow }
	res := fetchOne(t, sp)
	got := map[string]string{}
	for _, o := range res.Offers {
		got[o.InstanceType] = o.GPU
	}
	want := map[string]string{
		"massedcompute_A6000x8": "rtx-a6000", "crusoe_A100-80G-sxm4x8": "a100-80", "scaleway_L4": "l4",
		"paperspace_H100": "h100", "massedcompute_L40": "l40", "denvr_A100-sxm4x8": "a100-40",
		"paperspace_A5000x4": "rtx-a5000", "scaleway_L40S": "l40s", "paperspace_A4000": "rtx-a4000",
		"paperspace_V100-32GB": "v100-32", "paperspace_V100": "v100-16", "vultr_A16x2": "a16",
		"lambdalabs_A10": "a10", "excesssupply_H200x8": "h200", "massedcompute_RTX6000Ada": "rtx-6000-ada",
		"massedcompute_RTXPro6000": "rtx-pro-6000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cards (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"GAUDI2": 1}, res.Unknown); diff != "" {
		t.Errorf("unknown (-want +got):\n%s", diff)
	}
}

// TestSkyPilotFormFromGpuInfo: a row whose AcceleratorName leaves the
// form factor out is filed by the one its GpuInfo names.
func TestSkyPilotFormFromGpuInfo(t *testing.T) {
	raw := "InstanceType,AcceleratorName,AcceleratorCount,Price,Region,GpuInfo\n" +
		`x1,H100,1,2.0,r1,"{'Gpus': [{'Name': 'H100-80G-PCIe', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 81920}}]}"` + "\n" +
		`x2,H100,1,3.0,r1,"{'Gpus': [{'Name': 'H100', 'Count': 1, 'MemoryInfo': {'SizeInMiB': 81920}}]}"` + "\n"
	res, _, err := decodeSkyPilot([]byte(raw), "c", fetchNow, fetchNow, "test")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range res.Offers {
		got[o.InstanceType] = o.GPU
	}
	if want := map[string]string{"x1": "h100-pcie", "x2": "h100"}; !cmp.Equal(got, want) {
		t.Errorf("cards %v, want %v", got, want)
	}
}
