package llm

import (
	"context"
	"testing"
)

// BenchmarkReaderLoopback is one whole Reader.Read against a local fake
// server: the request with its generated schema, HTTP over loopback, the
// schema check, decoding and check. A real model adds its latency.
func BenchmarkReaderLoopback(b *testing.B) {
	srv := newFakeServer(b, ok("reading_openai_strict.json"))
	r := newTestReader(b, srv, 0)
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.Read(ctx, "can 8 h100s crunch llama 70b for 200 users", testRequest{Model: "llama-3.1-70b"}); err != nil {
			b.Fatal(err)
		}
	}
}
