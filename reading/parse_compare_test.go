package reading

import "testing"

func TestParseComparison(t *testing.T) {
	tests := []struct {
		q       string
		setting string
		words   [2]string
		texts   [2]string
		figure  Figure
	}{
		{"h100 or h200 for serving llama 3.1 70b, which is cheaper per user", "gpu", [2]string{"h100", "h200"},
			[2]string{"h100 for serving llama 3.1 70b, which is", "h200 for serving llama 3.1 70b, which is"}, FigurePerUser},
		{"h100 vs a100 for training llama 3.1 8b lora, which is cheaper per run", "gpu", [2]string{"h100", "a100"},
			[2]string{"h100 for training llama 3.1 8b lora, which is", "a100 for training llama 3.1 8b lora, which is"}, FigurePerRun},
		{"llama 3.1 8b on an a100 40gb vs h100 which is cheaper per million tokens", "gpu", [2]string{"a100 40gb", "h100"},
			[2]string{"llama 3.1 8b on an a100 40gb which is", "llama 3.1 8b on an h100 which is"}, FigurePerMillionOut},
		{"whats the cost difference between lora and full finetune for llama 3.1 8b on an a100", "method", [2]string{"lora", "full finetune"},
			[2]string{"whats the cost lora for llama 3.1 8b on an a100", "whats the cost full finetune for llama 3.1 8b on an a100"}, FigureUnsaid},
		{"13b lora 4090 h100", "gpu", [2]string{"4090", "h100"}, [2]string{"13b lora 4090", "13b lora h100"}, FigureUnsaid},
		{"a100 40gb h100 13b lora", "gpu", [2]string{"a100 40gb", "h100"}, [2]string{"a100 40gb 13b lora", "h100 13b lora"}, FigureUnsaid},
		{"llama 3 70b qlora on 2x a100 compared to 4 h100s", "gpu", [2]string{"2x a100", "4 h100s"},
			[2]string{"llama 3 70b qlora on 2x a100", "llama 3 70b qlora on 4 h100s"}, FigureUnsaid},
		{"lora versus qlora for llama 3 8b on a 4090, cost a month?", "method", [2]string{"lora", "qlora"},
			[2]string{"lora for llama 3 8b on a 4090, cost ?", "qlora for llama 3 8b on a 4090, cost ?"}, FigurePerMonth},
		{"llama 3 8b vs qwen 7b on a 4090", "model", [2]string{"llama 3 8b", "qwen 7b"},
			[2]string{"llama 3 8b on a 4090", "qwen 7b on a 4090"}, FigureUnsaid},
		// "faster than" joins two options.
		{"is an h100 faster than an a100 for finetuning llama 8b", "gpu", [2]string{"h100", "a100"},
			[2]string{"is an h100 for finetuning llama 8b", "is an a100 for finetuning llama 8b"}, FigureSpeed},
		// Two ZeRO stages, the word said once.
		{"zero stage 2 vs 3 for full ft llama 3.1 8b on 4x a100 40gb", "zero_stage", [2]string{"zero2", "zero3"},
			[2]string{"zero2 for full ft llama 3.1 8b on 4x a100 40gb", "zero3 for full ft llama 3.1 8b on 4x a100 40gb"}, FigureUnsaid},
		// A bare mixture is a model too.
		{"70b vs 8x7b which is cheaper to serve on h100", "model", [2]string{"70b", "8x7b"},
			[2]string{"70b which is to serve on h100", "8x7b which is to serve on h100"}, FigureUnsaid},
		// A Mac's name before its chip is part of the card.
		{"mac studio m4 max 128gb vs 2x 3090 for running 70b locally", "gpu", [2]string{"mac studio m4 max 128gb", "2x 3090"},
			[2]string{"mac studio m4 max 128gb for running 70b locally", "2x 3090 for running 70b locally"}, FigureUnsaid},
		{"mistral 7b qlora, a10 vs l4, which costs less per hour", "gpu", [2]string{"a10", "l4"},
			[2]string{"mistral 7b qlora, a10, which costs less", "mistral 7b qlora, l4, which costs less"}, FigurePerHour},
		// Two weight formats ("fp8 vs int4 awq" weighs both, never AWQ
		// alone with fp8 dropped without a word); "throughput" says which speed.
		{"fp8 vs int4 awq for llama 3 70b on h100 - which is faster for throughput", "format", [2]string{"fp8", "int4 awq"},
			[2]string{"fp8 for llama 3 70b on h100 - which is", "int4 awq for llama 3 70b on h100 - which is"}, FigureThroughput},
		{"llama 3 70b on 2 h100, fp8 vs awq", "format", [2]string{"fp8", "awq"},
			[2]string{"llama 3 70b on 2 h100, fp8", "llama 3 70b on 2 h100, awq"}, FigureUnsaid},
		{"int4 or int8 for llama 3 70b on an h100", "format", [2]string{"int4", "int8"},
			[2]string{"int4 for llama 3 70b on an h100", "int8 for llama 3 70b on an h100"}, FigureUnsaid},
		{"bf16 vs fp8 for llama 3.1 8b on an l40s, which is faster", "format", [2]string{"bf16", "fp8"},
			[2]string{"bf16 for llama 3.1 8b on an l40s, which is", "fp8 for llama 3.1 8b on an l40s, which is"}, FigureSpeed},
		{"gguf q4_k_m vs q8_0 for llama 3 8b on a 4090", "format", [2]string{"gguf q4_k_m", "q8_0"},
			[2]string{"gguf q4_k_m for llama 3 8b on a 4090", "q8_0 for llama 3 8b on a 4090"}, FigureUnsaid},
		{"awq or gptq for qwen2.5 32b on a 4090, which is cheaper per million tokens", "format", [2]string{"awq", "gptq"},
			[2]string{"awq for qwen2.5 32b on a 4090, which is", "gptq for qwen2.5 32b on a 4090, which is"}, FigurePerMillionOut},
		{"4-bit vs 8-bit llama 3 70b on 2 a100", "format", [2]string{"4-bit", "8-bit"},
			[2]string{"4-bit llama 3 70b on 2 a100", "8-bit llama 3 70b on 2 a100"}, FigureUnsaid},
		// Two KV-cache precisions; a bare precision against one is one too.
		{"fp8 kv cache vs bf16 kv for llama 3.1 70b on 2 h100s, how many more users", "kv_cache_precision", [2]string{"fp8 kv cache", "bf16 kv"},
			[2]string{"fp8 kv cache for llama 3.1 70b on 2 h100s,", "bf16 kv for llama 3.1 70b on 2 h100s,"}, FigureUsers},
		{"fp8 vs bf16 kv cache for llama 3.1 70b on 2 h100s", "kv_cache_precision", [2]string{"fp8", "bf16 kv cache"},
			[2]string{"fp8 kv cache for llama 3.1 70b on 2 h100s", "bf16 kv cache for llama 3.1 70b on 2 h100s"}, FigureUnsaid},
		{"llama 3.1 70b on 2 h100s fp8 kv vs bf16, which serves more concurrent users", "kv_cache_precision", [2]string{"fp8 kv", "bf16"},
			[2]string{"llama 3.1 70b on 2 h100s fp8 kv, which serves", "llama 3.1 70b on 2 h100s bf16 kv cache, which serves"}, FigureUsers},
	}
	for _, tt := range tests {
		c, ok := ParseComparison(tt.q)
		if !ok {
			t.Errorf("ParseComparison(%q) is not a comparison", tt.q)
			continue
		}
		if c.Setting != tt.setting || c.Figure != tt.figure {
			t.Errorf("ParseComparison(%q) = setting %q figure %q, want %q %q", tt.q, c.Setting, c.Figure, tt.setting, tt.figure)
		}
		for i, o := range c.Options {
			if o.Words != tt.words[i] || o.Text != tt.texts[i] {
				t.Errorf("ParseComparison(%q) option %d = %q in %q, want %q in %q", tt.q, i, o.Words, o.Text, tt.words[i], tt.texts[i])
			}
		}
	}
}

// TestParseComparisonNot checks the questions that are not comparisons:
// Parse keeps answering or refusing them as before.
func TestParseComparisonNot(t *testing.T) {
	for _, q := range []string{
		"13b lora 4090",
		"13b lora inference",                       // inference is not a training method to compare
		"13b lora 16gb 24gb",                       // two memories, no card named
		"13b lora on a 4090 or a 4090",             // the same card twice
		"llama 3 8b lora on an a100 40gb",          // a card and its memory
		"h100 vs a100 price",                       // a price question (routed before parsing; no model)
		"buy or rent 2 h100 for 13b lora",          // buy or rent
		"llama 3 8b lora 4090, or should i",        // "or" with nothing after it
		"llama 3 70b fp8 on h100",                  // one format
		"fp8 vs fp8 for llama 3 70b on h100",       // the same format twice
		"int4 vs 4-bit for llama 3 70b on h100",    // the same format in two words
		"fp8 kv vs awq for llama 3 70b on 2 h100s", // a KV-cache precision against a weight format
		"",
	} {
		if c, ok := ParseComparison(q); ok {
			t.Errorf("ParseComparison(%q) = %+v, want no comparison", q, c)
		}
	}
}

func FuzzParseComparison(f *testing.F) {
	f.Add("h100 or h200 for serving llama 3.1 70b, which is cheaper per user")
	f.Add("between lora and full for 8b")
	f.Add("13b lora 4090 h100")
	f.Add("fp8 vs int4 awq for llama 3 70b on h100 - which is faster for throughput")
	f.Add("fp8 kv cache vs bf16 kv for llama 3.1 70b on 2 h100s, how many more users")
	f.Fuzz(func(t *testing.T, q string) {
		c, ok := ParseComparison(q)
		if !ok {
			return
		}
		for _, o := range c.Options {
			// Each option reads, or names a model the Hub may know.
			if p, err := Parse(o.Text); err != nil && p.Hub == "" && p.Missing.Words == "" {
				t.Errorf("option %q of %q does not parse: %v", o.Text, q, err)
			}
		}
	})
}

// TestComparisonFigureUsers checks that users are the figure only where
// more of them is asked: "50 users" is a load, "cost per concurrent
// user" a cost.
func TestComparisonFigureUsers(t *testing.T) {
	tests := []struct {
		q    string
		want Figure
	}{
		{"h100 or h200 for llama 3.1 70b, how many more users", FigureUsers},
		{"h100 or h200 for llama 3.1 70b, which serves the most users", FigureUsers},
		{"h100 or h200 for llama 3.1 70b with 50 users", FigureUnsaid},
		{"h100 or h200 for llama 3.1 70b, cheaper per concurrent user", FigurePerUser},
		{"h100 or h200 for llama 3.1 70b, which has more throughput", FigureThroughput},
	}
	for _, tt := range tests {
		c, ok := ParseComparison(tt.q)
		if !ok {
			t.Errorf("ParseComparison(%q) is not a comparison", tt.q)
			continue
		}
		if c.Figure != tt.want {
			t.Errorf("ParseComparison(%q) figure = %q, want %q", tt.q, c.Figure, tt.want)
		}
	}
}

// TestComparisonFigureWords checks the figure words read from vocab.txt:
// a cost a month or an hour, memory, speed.
func TestComparisonFigureWords(t *testing.T) {
	tests := []struct {
		q    string
		want Figure
	}{
		{"h100 or h200 for llama 3.1 70b, which is cheaper monthly", FigurePerMonth},
		{"h100 or h200 for llama 3.1 70b, which costs less a month", FigurePerMonth},
		{"h100 or h200 for llama 3.1 70b, cheaper per million output tokens", FigurePerMillionOut},
		{"h100 or h200 for llama 3.1 70b, which fits better", FigureMemory},
		{"h100 or h200 for llama 3.1 70b, which is quicker", FigureSpeed},
	}
	for _, tt := range tests {
		if f, _, _ := comparisonFigure(mustLex(t, tt.q)); f != tt.want {
			t.Errorf("comparisonFigure(%q) = %q, want %q", tt.q, f, tt.want)
		}
	}
}

// TestValueWordsAt checks the words that weigh what the work is worth and
// how many tokens they cover.
func TestValueWordsAt(t *testing.T) {
	for q, want := range map[string]int{
		"h100 or h200, best bang for the buck": 4,
		"h100 or h200, bang for buck":          3,
		"h100 or h200, bang for your buck":     4,
		"is an h200 worth it? or an h100":      2,
		"h100 or h200 price/perf":              1,
		"h100 or h200, price performance":      2,
		"h100 or h200 for llama 70b":           0,
	} {
		if from, to := valueWordsAt(mustLex(t, q)); to-from != want {
			t.Errorf("valueWordsAt(%q) covers %d tokens, want %d", q, to-from, want)
		}
	}
}

// mustLex is the tokens of q, failing the test when it does not lex.
func mustLex(t *testing.T, q string) []token {
	t.Helper()
	toks, err := lex(q)
	if err != nil {
		t.Fatalf("lex(%q): %v", q, err)
	}
	return toks
}
