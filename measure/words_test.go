package measure

import (
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"71GB", 71e9},
		{"71 gigs", 71 * GiB},
		{"71000 MiB", 71000 << 20},
		{"71 GiB", 71 * GiB},
		{"71.5GiB", 71*GiB + GiB/2},
		{"76235669504", 76235669504},
	} {
		got, err := ParseBytes(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "71 tok/s", "lots", "71 GiB of ram on two cards", "5.2 h"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) took it", bad)
		}
	}
}

func TestParseWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Run
	}{
		{"measured peak 71 GiB, 3,150 tok/s, 5.2 h", Run{PeakBytes: 71 * GiB, TokensPerSecond: 3150, Hours: 5.2}},
		{"peak 71gb", Run{PeakBytes: 71e9}},
		{"took 90 minutes at 1200 tokens/s", Run{TokensPerSecond: 1200, Hours: 1.5}},
		{"2 days", Run{Hours: 48}},
		{"actually peaked at 63.5 GiB, 2900 tok/s, took 7h30m", Run{PeakBytes: 63.5 * GiB, TokensPerSecond: 2900, Hours: 7.5}},
		{"took 1h 15min", Run{Hours: 1.25}},
		{"peak 40000 MiB tensor active 41%", Run{PeakBytes: 40000 << 20, TensorActive: 0.41}},
	} {
		got, err := ParseWords(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseWords(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, says string }{
		{"peak 71", "has no unit"},
		{"peak 71 GiB on the big box", "not understood: on the big box"},
		{"71 GiB and 60 GiB", "two memory figures"},
		{"fast", "not understood: fast"},
		{"", "no measurement"},
	} {
		_, err := ParseWords(c.in)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ParseWords(%q) error %v, want one saying %q", c.in, err, c.says)
		}
	}
}

func TestCheck(t *testing.T) {
	h100 := int64(80 * GiB)
	if err := (Run{PeakBytes: 71 * GiB}).Check(h100, "H100 80 GB"); err != nil {
		t.Errorf("71 GiB on an H100: %v", err)
	}
	err := (Run{PeakBytes: 710 * GiB}).Check(h100, "H100 80 GB")
	if err == nil || !strings.Contains(err.Error(), "not the sum over GPUs") {
		t.Errorf("710 GiB on an H100: %v, want a refusal saying why", err)
	}
	if err := (Run{}).Check(h100, "H100 80 GB"); err != ErrNothingMeasured {
		t.Errorf("empty run: %v", err)
	}
	if err := (Run{Hours: 1e6}).Check(0, ""); err == nil {
		t.Error("a million hours taken")
	}
}

func TestRunString(t *testing.T) {
	r := Run{PeakBytes: 71 * GiB, TokensPerSecond: 3150, Hours: 5.2}
	if got := r.String(); got != "peak 71 GiB, 3,150 tok/s, 5.2 h" {
		t.Errorf("String = %q", got)
	}
	back, err := ParseWords(r.String())
	if err != nil || back != r {
		t.Errorf("String does not read back: %+v, %v", back, err)
	}
}

func FuzzParseWords(f *testing.F) {
	for _, s := range []string{"measured peak 71 GiB, 3,150 tok/s, 5.2 h", "71gb", "2 days", ".5h", "1,,,2 GiB", "9999999999999999999999 GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseWords(s)
		if err != nil {
			return
		}
		if r.Empty() {
			t.Fatalf("%q read as an empty run without an error", s)
		}
	})
}
