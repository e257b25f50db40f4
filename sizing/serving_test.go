package sizing

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestServingKVCachePublished checks the serving model against KV cache
// sizes and weights serving engines logged (testdata/serving/SOURCES.md):
// the page arithmetic within 1.5 %, the whole budget and the weights
// within 5 %.
func TestServingKVCachePublished(t *testing.T) {
	data, err := os.ReadFile("testdata/serving/kv_cache.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 7 {
			t.Fatalf("kv_cache.tsv:%d: %d fields, want 7", n+2, len(f))
		}
		kind, question, engine, source := f[0], f[1], f[3], f[6]
		util, _ := strconv.ParseFloat(f[2], 64)
		logged, _ := strconv.ParseFloat(f[4], 64)
		want, _ := strconv.ParseFloat(f[5], 64)
		p, err := Parse(question)
		if err != nil {
			t.Fatalf("%s: %v", question, err)
		}
		p.Query.Serve.GPUMemoryUtilization = util
		p.Query.Serve.Engine = engine
		rs, err := resolve(p.Query)
		if err != nil {
			t.Fatalf("%s: %v", question, err)
		}
		r := &rs.req
		var got, tol float64
		switch kind {
		case "pages":
			per := kvBytesPerToken(r, &rs.shape) * kvBlockTokens
			got, tol = math.Floor(logged*(1<<30)/per)*kvBlockTokens, 0.015
		case "engine":
			_, _, tokens, _ := kvCapacity(r, &rs.shape, &rs.gpu, r.spec())
			got, tol = float64(tokens), 0.05
		case "weights":
			got = modelWeightBytes(&rs.shape, r.Quant, r.Precision) / float64(r.GPUs) / (1 << 30)
			want, tol = logged, 0.05
		default:
			t.Fatalf("kv_cache.tsv:%d: unknown kind %q", n+2, kind)
		}
		if off := got/want - 1; math.Abs(off) > tol {
			t.Errorf("%s %s (%s, %s): got %.4g, want %.4g (%+.1f%%, tolerance %.1f%%)", kind, question, engine, source, got, want, off*100, tol*100)
		} else {
			t.Logf("%s %s (%s, %s): %.4g against %.4g (%+.1f%%)", kind, question, engine, source, got, want, off*100)
		}
	}
}

// TestServingPhysics checks what must hold whatever the constants: more
// memory share, more KV; more users, slower tokens and a later first
// token; fp8 KV, twice the tokens; longer requests, fewer of them.
func TestServingPhysics(t *testing.T) {
	var e Estimator
	at := func(q string) Serving {
		t.Helper()
		p, err := Parse(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if a.Serving == nil {
			t.Fatalf("%s: no serving object", q)
		}
		return *a.Serving
	}
	base := at("llama-3.1-8b h100 inference")
	if more := at("llama-3.1-8b h100 inference gpu util 0.95"); more.KVCacheTokens <= base.KVCacheTokens {
		t.Errorf("gpu util 0.95 gives %d KV tokens, not more than 0.9's %d", more.KVCacheTokens, base.KVCacheTokens)
	}
	if fp8 := at("llama-3.1-8b h100 inference fp8 kv"); math.Abs(float64(fp8.KVCacheTokens)/float64(base.KVCacheTokens)-2) > 0.01 {
		t.Errorf("fp8 KV gives %d tokens, want twice bf16's %d", fp8.KVCacheTokens, base.KVCacheTokens)
	}
	one, many := at("llama-3.1-8b h100 inference 1 user"), at("llama-3.1-8b h100 inference 64 users")
	if many.TPOTSeconds <= one.TPOTSeconds || many.TTFTSeconds <= one.TTFTSeconds {
		t.Errorf("64 users: ttft %.3f s tpot %.4f s, not slower than one user's %.3f s %.4f s", many.TTFTSeconds, many.TPOTSeconds, one.TTFTSeconds, one.TPOTSeconds)
	}
	if many.OutputTokensPerSecond <= one.OutputTokensPerSecond {
		t.Errorf("64 users make %.0f tok/s in all, not more than one user's %.0f", many.OutputTokensPerSecond, one.OutputTokensPerSecond)
	}
	short, long := at("llama-3.1-8b h100 inference prompt 1k output 256"), at("llama-3.1-8b h100 inference prompt 16k output 1k")
	if long.MaxConcurrency >= short.MaxConcurrency {
		t.Errorf("17k-token requests fit %d at once, not fewer than 1.25k-token ones (%d)", long.MaxConcurrency, short.MaxConcurrency)
	}
	if tp := at("llama-3.1-70b 2xh100 inference fp8 1 user"); tp.TPOTSeconds >= at("llama-3.1-70b h100 inference fp8 1 user").TPOTSeconds {
		t.Errorf("tensor parallel 2 is not faster per token than one GPU for Llama 3.1 70B fp8")
	}
}

// TestServingThroughputPublished checks the aggregate output at full
// load against TensorRT-LLM's perf-overview table
// (testdata/serving/SOURCES.md): within -38 % / +40 %.
func TestServingThroughputPublished(t *testing.T) {
	data, err := os.ReadFile("testdata/serving/throughput.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var e Estimator
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("throughput.tsv:%d: %d fields, want 3", n+2, len(f))
		}
		want, _ := strconv.ParseFloat(f[2], 64)
		p, err := Parse(f[0])
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		got := a.Serving.OutputTokensPerSecond
		if r := got / want; r < 0.62 || r > 1.4 {
			t.Errorf("%s: %.0f output tok/s, TensorRT-LLM %.0f (%.2f×; tolerance 0.62-1.40)", f[1], got, want, r)
		} else {
			t.Logf("%s: %.0f output tok/s against %.0f (%.2f×)", f[1], got, want, r)
		}
	}
}

// TestServingLatencyPublished checks time to first token and inter-token
// latency at a stated concurrency against NVIDIA NIM's published table
// (testdata/serving/SOURCES.md): each within 25 %.
func TestServingLatencyPublished(t *testing.T) {
	data, err := os.ReadFile("testdata/serving/latency.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var e Estimator
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("latency.tsv:%d: %d fields, want 4", n+2, len(f))
		}
		users, _ := strconv.Atoi(f[1])
		wantTTFT, _ := strconv.ParseFloat(f[2], 64)
		wantITL, _ := strconv.ParseFloat(f[3], 64)
		p, err := Parse(f[0] + " " + f[1] + " users")
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		a, err := e.Answer(p.Query)
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		sv := a.Serving
		if sv.Concurrency != users {
			t.Fatalf("%s at %d users: answered at %d", f[0], users, sv.Concurrency)
		}
		ttft, itl := sv.TTFTSeconds*1000, sv.TPOTSeconds*1000
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"TTFT", ttft, wantTTFT}, {"ITL", itl, wantITL}} {
			if off := c.got/c.want - 1; math.Abs(off) > 0.25 {
				t.Errorf("%s at %d users: %s %.0f ms, NIM %.0f ms (%+.0f%%; tolerance 25%%)", f[0], users, c.name, c.got, c.want, off*100)
			} else {
				t.Logf("%s at %d users: %s %.1f ms against %.1f ms (%+.0f%%)", f[0], users, c.name, c.got, c.want, off*100)
			}
		}
	}
}
