package chart

import "testing"

// BenchmarkMemoryPNG draws one memory picture, as the bot does for an
// answer it posts with its picture (BENCHMARKS.md).
func BenchmarkMemoryPNG(b *testing.B) {
	d := Memory(answer(b, "llama 3.1 8b qlora 4090"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MemoryPNG(d); err != nil {
			b.Fatal(err)
		}
	}
}
