package reading

import (
	"math"
	"testing"
)

// TestNumberScale: a number tells the scale its suffix stands for, glued
// letters and scale words alike, and the units of counts and of context
// lengths follow it.
func TestNumberScale(t *testing.T) {
	for _, c := range []struct {
		key             string
		scale           int
		size            bool
		decimal, window int64
	}{
		{"4096", scaleOne, false, 1, 1},
		{"4k", scaleThousand, false, 1e3, 1 << 10},
		{"2thousand", scaleThousand, false, 1e3, 1 << 10},
		{"350m", scaleMillion, true, 1e6, 1 << 20},
		{"10mil", scaleMillion, true, 1e6, 1 << 20},
		{"2mn", scaleMillion, true, 1e6, 1 << 20},
		{"7b", scaleBillion, true, 1e9, 1 << 30},
		{"5bn", scaleBillion, true, 1e9, 1 << 30},
		{"1.5billion", scaleBillion, true, 1e9, 1 << 30},
		{"2t", scaleTrillion, false, 1e12, 1 << 30},
		{"2tn", scaleTrillion, false, 1e12, 1 << 30},
		{"3trillion", scaleTrillion, false, 1e12, 1 << 30},
	} {
		n, ok := parseNumber(c.key)
		if !ok {
			t.Errorf("parseNumber(%q) failed", c.key)
			continue
		}
		if n.scale() != c.scale || n.sizeScaled() != c.size {
			t.Errorf("parseNumber(%q): scale %d, sizeScaled %v; want %d, %v", c.key, n.scale(), n.sizeScaled(), c.scale, c.size)
		}
		if d, w := decimalUnit(n.suffix), contextUnit(n.suffix); d != c.decimal || w != c.window {
			t.Errorf("%q: decimalUnit %d, contextUnit %d; want %d, %d", c.key, d, w, c.decimal, c.window)
		}
	}
	for _, key := range []string{"7x", "4kk", "2ml", "b"} {
		if n, ok := parseNumber(key); ok {
			t.Errorf("parseNumber(%q) = %+v, want no number", key, n)
		}
	}
}

// FuzzParseNumber: a number read has one of the scales, and its exact
// value, where it fits, is its digits times ten to that scale.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"4096", "4k", "1.5b", "-5b", "1e30", "0.6b", "10mil", "2tn", "6.738415616b", "1.0000001t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		n, ok := parseNumber(key)
		if !ok {
			return
		}
		switch n.scale() {
		case scaleOne, scaleThousand, scaleMillion, scaleBillion, scaleTrillion:
		default:
			t.Fatalf("parseNumber(%q) = %+v: scale %d", key, n, n.scale())
		}
		v, ok := n.scaled(decimalUnit(n.suffix))
		if !ok || v == 0 {
			return
		}
		want := n.approx(math.Pow(10, float64(n.scale())))
		if math.Abs(float64(v)-want) > 1e-9*math.Abs(want)+1e-9 {
			t.Fatalf("parseNumber(%q) = %+v: scaled %d, want about %g", key, n, v, want)
		}
	})
}
