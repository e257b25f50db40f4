package sizing

import "testing"

func TestCheaperFit(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	alt := func(gpu string, perHour, total *float64) Alternative {
		return Alternative{GPU: gpu, GPUs: 1, Fits: true, USDPerHour: perHour, USDTotal: total}
	}
	hourly := Answer{Fits: true, Throughput: Throughput{USDPerHour: f(2.00)}, Alternatives: []Alternative{
		alt("a100-80", f(1.50), nil),
		alt("rtx-4090", f(0.40), nil),
		{GPU: "t4", GPUs: 1, Fits: false, USDPerHour: f(0.10)},
	}}
	// With a token budget: the 3090 is cheaper by the hour but slower, so
	// its run costs more; the L40S costs exactly as much as asking now.
	run := Answer{Fits: true, Throughput: Throughput{USDPerHour: f(0.33), Hours: f(852), USDTotal: f(281)}, Alternatives: []Alternative{
		alt("rtx-3090", f(0.20), f(395)),
		alt("l40s", f(0.65), f(281)),
		alt("h100", f(2.40), f(250)),
	}}
	tests := []struct {
		name string
		a    Answer
		then *float64
		keep func(Alternative) bool
		want string // GPU of the cheaper fit, "" for none
	}{
		{"by the hour: the cheapest fitting card", hourly, f(3.00), nil, "rtx-4090"},
		{"by the hour: nothing under the plan's old price", hourly, f(0.30), nil, ""},
		{"by the hour: the caller leaves a card out", hourly, nil, func(a Alternative) bool { return a.GPU != "rtx-4090" }, "a100-80"},
		{"by the run: a faster card that costs less in all", run, f(0.33), nil, "h100"},
		{"by the run: equal and dearer runs are not cheaper", run, f(0.33), func(a Alternative) bool { return a.GPU != "h100" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.a.CheaperFit(tt.then, tt.keep)
			switch {
			case got == nil && tt.want != "":
				t.Errorf("CheaperFit = nil, want %s", tt.want)
			case got != nil && got.GPU != tt.want:
				t.Errorf("CheaperFit = %s, want %q", got.GPU, tt.want)
			}
		})
	}
}
