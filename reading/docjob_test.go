package reading

import (
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

func TestParseDocJob(t *testing.T) {
	for _, tt := range []struct {
		in     string
		model  string
		job    sizing.DocJob
		tokens int64
	}{
		{"we need to embed 5M documents with bge-large, how long on a 4090", "bge-large-en-v1.5", sizing.DocJob{Documents: 5e6}, 0},
		{"embeddings for 2M chunks of 300 tokens with e5-large on an l4", "e5-large-v2", sizing.DocJob{Documents: 2e6, DocTokens: 300}, 0},
		{"bge-m3 embeddings for 10 million docs a month", "bge-m3", sizing.DocJob{Documents: 1e7, Monthly: true}, 0},
		{"index 20M passages with bge-large on h100 per month", "bge-large-en-v1.5", sizing.DocJob{Documents: 2e7, Monthly: true}, 0},
		{"1M docs to embed with bge-m3 on a t4", "bge-m3", sizing.DocJob{Documents: 1e6}, 0},
		{"embed 1000 sentences of 40 tokens each with bge-large", "bge-large-en-v1.5", sizing.DocJob{Documents: 1000, DocTokens: 40}, 0},
		// Training, or a decoder: the documents are a dataset, as before.
		{"fine-tune bge-large on 100k docs", "bge-large-en-v1.5", sizing.DocJob{}, 100e3 * 512},
		{"llama 3 8b lora on 50k documents of 1k tokens", "llama-3-8b", sizing.DocJob{}, 50e6},
	} {
		p, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if p.Query.Model != tt.model || p.Query.Job != tt.job || p.Query.Tokens != tt.tokens {
			t.Errorf("Parse(%q) = model %q, job %+v, tokens %d; want %q, %+v, %d", tt.in, p.Query.Model, p.Query.Job, p.Query.Tokens, tt.model, tt.job, tt.tokens)
		}
		if tt.job.Documents > 0 && p.Query.Method != sizing.MethodInference {
			t.Errorf("Parse(%q).Method = %q, want inference", tt.in, p.Query.Method)
		}
		back, err := Parse(sizing.Format(p.Query))
		if err != nil || back.Query.Job != p.Query.Job || back.Query.Tokens != p.Query.Tokens {
			t.Errorf("Parse(Format(%q)) = %+v, %v; want the job %+v again (Format: %q)", tt.in, back.Query.Job, err, p.Query.Job, sizing.Format(p.Query))
		}
	}
}
