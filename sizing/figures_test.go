package sizing

import "testing"

// TestThreeFigures: FLOPs per token are written as people read them,
// never in scientific notation (#31: "2.46e+03 GFLOPs" on a 405B answer).
func TestThreeFigures(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{54.46, "54.5"}, {0.318, "0.318"}, {999.4, "999"}, {2463.7, "2,460"}, {24637, "24,600"}, {1234567, "1,230,000"}} {
		if got := threeFigures(c.v); got != c.want {
			t.Errorf("threeFigures(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
