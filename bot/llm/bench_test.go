package llm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fitbot/fitbot/reading"
)

// BenchmarkDecodeToParsed is the local work on one reply: schema check,
// command words and reading.Parse, without the network.
func BenchmarkDecodeToParsed(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("testdata", "openai_structured.json"))
	if err != nil {
		b.Fatal(err)
	}
	var resp struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		b.Fatal(err)
	}
	content := resp.Choices[0].Message.Content
	schema, err := newSchema()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		x, err := decode(schema, content)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := reading.Parse(x.command()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInterpretLoopback is one whole Interpret against a local fake
// server: request building, HTTP over loopback, decoding and parsing.
// It is the fallback's own overhead; a real model adds its latency.
func BenchmarkInterpretLoopback(b *testing.B) {
	srv := newFakeServer(b, ok("openai_structured.json"))
	c := New(Config{BaseURL: srv.srv.URL + "/v1", APIKey: testKey}, srv.srv.Client(), nil)
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Interpret(ctx, "@fitbot can we fine-tune Llama 3 70B with QLoRA on two A100s?"); err != nil {
			b.Fatal(err)
		}
	}
}
