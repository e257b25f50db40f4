package display

import "testing"

func TestFigures(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"GiB", GiB(22_548_578_304), "21.0 GiB"},
		{"GiB zero", GiB(0), "0.0 GiB"},
		{"USD cents", USD(0.333), "$0.33"},
		{"USD just under 100", USD(99.994), "$99.99"},
		{"USD whole dollars", USD(281.4), "$281"},
		{"USD millions", USD(12_345_678), "$12,345,678"},
		{"USD negative", USD(-1234.5), "-$1,235"},
		{"Commas", Commas(1234567), "1,234,567"},
		{"Commas small", Commas(999), "999"},
		{"Commas negative", Commas(-1000), "-1,000"},
		{"Hours minutes", Hours(0.5), "30 min"},
		{"Hours", Hours(5.54), "5.5 h"},
		{"Hours days", Hours(852), "35.5 days"},
		{"Count billions", Count(2.5e9), "2.5B"},
		{"Count millions", Count(300e6), "300M"},
		{"Count thousands", Count(1234.4), "1,234"},
		{"Count small", Count(45.60), "45.6"},
		{"Params", Params(8_030_261_248), "8.03B"},
		{"Params millions", Params(350_000_000), "350M"},
		{"Params small", Params(124_000), "124,000"},
		{"TrimZero", TrimZero("3.0"), "3"},
		{"TrimZero integer", TrimZero("300"), "300"},
		{"Decimal", Decimal(2.54), "2.5"},
		{"Decimal whole", Decimal(3.02), "3"},
		{"GPUName", GPUName("rtx-4090"), "RTX 4090 24 GB"},
		{"GPUName unknown", GPUName("tpu-v9"), "tpu-v9"},
		{"Hardware", Hardware(2, "RTX 4090 24 GB"), "2× RTX 4090 24 GB"},
		{"Hardware none", Hardware(0, "L4"), "1× L4"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
