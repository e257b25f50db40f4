package sizing

import "testing"

// TestPlusJoinsTwoThings: " + " between words stops a phrase, so "fp16 +
// kv" is fp16 weights and their KV cache, not an fp16 KV cache, while "fp16 kv" stays the KV cache's precision.
func TestPlusJoinsTwoThings(t *testing.T) {
	for _, c := range []struct {
		q         string
		precision Precision
		kv        Precision
	}{
		{"llama 70b fp16 + kv on h200", PrecisionFP16, ""},
		{"llama 70b fp16 kv on h200", "", PrecisionFP16},
	} {
		p, err := Parse(c.q)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.q, err)
		}
		if p.Query.Precision != c.precision || p.Query.KVPrecision != c.kv {
			t.Errorf("%q: precision %q, KV %q; want %q, %q", c.q, p.Query.Precision, p.Query.KVPrecision, c.precision, c.kv)
		}
	}
}
