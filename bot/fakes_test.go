package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"errors"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// testNow is the clock every test handler runs on.
var testNow = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)

// fakeParser reads the questions of fixtureAnswers and rejects the rest
// the way reading.Parse does, with an *InputError.
func fakeParser(question string) (reading.Request, error) {
	if f, ok := fixtures[question]; ok {
		return reading.Request{Query: f.query}, nil
	}
	switch question {
	case "panic":
		return reading.Request{Query: sizing.Query{Model: "panic", Method: sizing.MethodFull}}, nil
	case "can we tune the big one on our box":
		return reading.Request{}, &sizing.InputError{Problem: `no model or size found in "can we tune the big one on our box"`, Hint: "13B lora 4090"}
	case "mistral-7b", "mistral 7b":
		return reading.Request{Query: sizing.Query{Model: "mistral-7b-v0.1"}}, nil
	}
	return reading.Request{}, &sizing.InputError{Problem: fmt.Sprintf("could not use %q", question), Hint: "llama-3.1-8b qlora rtx-4090"}
}

// fixture is a question the fakes know, with its query and answer.
type fixture struct {
	query  sizing.Query
	answer sizing.Answer
}

// fixtures hold hand-made answers in the estimator's shape. Their memory
// figures are illustrative, not the estimator's: the bot's tests check
// rendering, not physics.
var fixtures = map[string]fixture{
	"llama-3.1-8b qlora rtx-4090": {
		query: sizing.Query{Model: "llama-3.1-8b", Method: sizing.MethodQLoRA, GPU: "rtx-4090"},
		answer: sizing.Answer{
			Request: sizing.Request{Model: "llama-3.1-8b", Params: 8_030_261_248, ActiveParams: 8_030_261_248, Method: sizing.MethodQLoRA,
				Optimizer: sizing.OptimizerAdamW, Precision: sizing.PrecisionBF16, GPU: "rtx-4090", GPUs: 1, Nodes: 1, Offload: sizing.OffloadNone,
				SeqLen: 2048, MicroBatch: 1, GradCheckpointing: true, LoRARank: 16, Quant: sizing.QuantNF4DQ, Tokens: 100_000_000},
			Assumptions: []string{"sequence length 2048", "micro-batch 1", "LoRA rank 16 on all linear layers", "gradient checkpointing on (QLoRA default)", "AdamW on the adapters", "100M training tokens"},
			Fits:        true,
			PerGPU: sizing.Memory{WeightsBytes: 5_905_580_032, GradientsBytes: 167_772_160, OptimizerBytes: 1_006_632_960,
				ActivationsBytes: 1_610_612_736, OverheadBytes: 1_073_741_824, TotalBytes: 9_764_339_712},
			VRAMBytes:   25_390_809_088,
			Throughput:  sizing.Throughput{TokensPerSecond: new(2150.0), Hours: new(12.9), USDPerHour: new(0.69), USDTotal: new(8.90)},
			ModelName:   "Llama 3.1 8B",
			GPUName:     "RTX 4090 24 GB",
			Headroom:    sizing.HeadroomComfortable,
			BindingTerm: "weights",
			Price:       &sizing.Price{USDPerGPUHour: 0.69, Provider: "runpod", Market: "on_demand", Region: "community", AsOf: testNow.Add(-3 * time.Hour)},
		},
	},
	"llama-3.1-70b full rtx-4090": {
		query: sizing.Query{Model: "llama-3.1-70b", Method: sizing.MethodFull, GPU: "rtx-4090"},
		answer: sizing.Answer{
			Request: sizing.Request{Model: "llama-3.1-70b", Params: 70_553_706_496, ActiveParams: 70_553_706_496, Method: sizing.MethodFull,
				Optimizer: sizing.OptimizerAdamW, Precision: sizing.PrecisionBF16, GPU: "rtx-4090", GPUs: 1, Nodes: 1, Offload: sizing.OffloadNone,
				SeqLen: 2048, MicroBatch: 1, GradCheckpointing: true},
			Assumptions: []string{"sequence length 2048", "micro-batch 1", "AdamW, mixed precision (16 bytes per parameter)"},
			Fits:        false,
			PerGPU: sizing.Memory{WeightsBytes: 141_107_412_992, GradientsBytes: 141_107_412_992, OptimizerBytes: 846_644_477_952,
				ActivationsBytes: 5_368_709_120, OverheadBytes: 1_073_741_824, TotalBytes: 1_135_301_754_880},
			VRAMBytes:  25_390_809_088,
			Throughput: sizing.Throughput{USDPerHour: new(0.69)},
			Alternatives: []sizing.Alternative{
				{Method: sizing.MethodQLoRA, Optimizer: sizing.OptimizerAdamW, GPU: "rtx-4090", GPUs: 2, Offload: sizing.OffloadNone, Fits: true, TotalBytes: 23_622_320_128, USDPerHour: new(1.38), Why: "smallest change on the asked card"},
				{Method: sizing.MethodFull, Optimizer: sizing.OptimizerAdamW, GPU: "h100", GPUs: 16, ZeROStage: 3, Offload: sizing.OffloadNone, Fits: true, TotalBytes: 75_161_927_680, USDPerHour: new(47.84), Why: "full fine-tune as asked, sharded"},
				{Method: sizing.MethodFull, Optimizer: sizing.OptimizerAdamW, GPU: "a100-80", GPUs: 16, ZeROStage: 3, Offload: sizing.OffloadNone, Fits: true, TotalBytes: 76_235_669_504, USDPerHour: new(30.24), Why: "cheapest full fine-tune"},
				{Method: sizing.MethodLoRA, Optimizer: sizing.OptimizerAdamW, GPU: "a100-80", GPUs: 2, Offload: sizing.OffloadNone, Fits: true, TotalBytes: 79_456_894_976, USDPerHour: new(3.78), Why: "16-bit LoRA"},
				{Method: sizing.MethodFull, Optimizer: sizing.OptimizerAdamW, GPU: "rtx-4090", GPUs: 8, ZeROStage: 3, Offload: sizing.OffloadCPU, Fits: true, TotalBytes: 22_548_578_304, Why: "ZeRO-3 with CPU offload"},
				{Method: sizing.MethodQLoRA, Optimizer: sizing.OptimizerAdamW, GPU: "a100-80", GPUs: 1, Offload: sizing.OffloadNone, Fits: true, TotalBytes: 48_318_382_080, USDPerHour: new(1.89), Why: "one card"},
			},
			ModelName:   "Llama 3.1 70B",
			GPUName:     "RTX 4090 24 GB",
			Headroom:    sizing.HeadroomOver,
			BindingTerm: "optimizer",
			Price:       &sizing.Price{USDPerGPUHour: 0.69, Provider: "runpod", Market: "on_demand", Region: "community", AsOf: testNow.Add(-50 * time.Hour)},
			Warnings:    []string{"16 GPUs over PCIe would be communication-bound; use NVLink cards"},
		},
	},
}

// fakeAnswerer answers the fixtures' queries; a query for model "panic" panics.
type fakeAnswerer struct{}

func (fakeAnswerer) Answer(_ context.Context, q sizing.Query) (sizing.Answer, error) {
	if q.Model == "panic" {
		panic("estimator bug")
	}
	for _, f := range fixtures {
		if f.query == q {
			return f.answer, nil
		}
	}
	return sizing.Answer{}, &sizing.InputError{Problem: "no such fixture", Hint: "llama-3.1-8b qlora rtx-4090"}
}

// fakePlans is an in-memory PlanStore.
type fakePlans struct {
	mu    sync.Mutex
	plans []store.Plan
	err   error
}

func (f *fakePlans) SavePlan(_ context.Context, p *store.Plan) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	p.ID = int64(len(f.plans) + 1)
	p.CreatedAt = testNow
	f.plans = append(f.plans, *p)
	return p.ID, nil
}

func (f *fakePlans) PlansForModel(_ context.Context, scope store.Scope, key string, limit int) ([]store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []store.Plan
	for i := len(f.plans) - 1; i >= 0 && len(out) < limit; i-- {
		if f.plans[i].ModelKey == key && scope.Reads(f.plans[i]) {
			out = append(out, f.plans[i])
		}
	}
	return out, nil
}

func (f *fakePlans) Plan(_ context.Context, scope store.Scope, id int64) (store.Plan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id < 1 || int(id) > len(f.plans) || !scope.Reads(f.plans[id-1]) {
		return store.Plan{}, fmt.Errorf("plan %d: %w", id, store.ErrNotFound)
	}
	return f.plans[id-1], nil
}

// fakePrices is a PriceBook over a fixed list of offers.
type fakePrices struct{ offers []pricing.Offer }

func (f fakePrices) CheapestOffers(context.Context) ([]pricing.Offer, error) { return f.offers, nil }

func (f fakePrices) OffersForGPU(_ context.Context, gpu string) ([]pricing.Offer, error) {
	var out []pricing.Offer
	for _, o := range f.offers {
		if o.GPU == gpu {
			out = append(out, o)
		}
	}
	return out, nil
}

// testOffers are offers in the shapes the providers publish.
var testOffers = []pricing.Offer{
	{Provider: "runpod", InstanceType: "NVIDIA GeForce RTX 4090", GPU: "rtx-4090", GPUCount: 1, Market: pricing.MarketOnDemand, Tier: "community", USDPerHour: 0.34, USDPerGPUHour: 0.34, ObservedAt: testNow.Add(-2 * time.Hour), Samples: 1},
	{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketOnDemand, Region: "us-east-1", USDPerHour: 55.04, USDPerGPUHour: 6.88, ObservedAt: testNow.Add(-26 * time.Hour), Samples: 1},
	{Provider: "runpod", InstanceType: "NVIDIA H100 80GB HBM3", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand, Tier: "secure", USDPerHour: 2.69, USDPerGPUHour: 2.69, ObservedAt: testNow.Add(-2 * time.Hour), Samples: 1},
	{Provider: "aws", InstanceType: "p5.48xlarge", GPU: "h100", GPUCount: 8, Market: pricing.MarketSpot, Region: "us-east-2", USDPerHour: 24.10, USDPerGPUHour: 3.0125, ObservedAt: testNow.Add(-30 * time.Minute), Samples: 1},
}

// fakeReader is the language model as answer.ModelReader: it returns
// parsed, or err, after an optional delay.
type fakeReader struct {
	parsed reading.Request
	err    error
	delay  time.Duration
}

// errModelDown is a language model that gave no usable reply.
var errModelDown = errors.New("language model unavailable: HTTP 500")

// Read implements answer.ModelReader.
func (f fakeReader) Read(ctx context.Context, _ string, _ reading.Request) (reading.Request, error) {
	select {
	case <-time.After(f.delay):
	case <-ctx.Done():
		return reading.Request{}, ctx.Err()
	}
	return f.parsed, f.err
}

// responseURL is an httptest stand-in for Slack's response_url endpoint:
// it records every message posted and answers "ok" as Slack does.
type responseURL struct {
	*httptest.Server
	mu   sync.Mutex
	msgs []json.RawMessage
}

func newResponseURL(t *testing.T) *responseURL {
	t.Helper()
	r := &responseURL{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.msgs = append(r.msgs, body)
		r.mu.Unlock()
		io.WriteString(w, "ok")
	}))
	t.Cleanup(r.Close)
	return r
}

// posted decodes the messages posted so far.
func (r *responseURL) posted(t *testing.T) []postedMessage {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []postedMessage
	for _, raw := range r.msgs {
		var m postedMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("posted message %s: %v", raw, err)
		}
		out = append(out, m)
	}
	return out
}

// postedMessage is a Message as Slack would read it back.
type postedMessage struct {
	ResponseType    string            `json:"response_type"`
	Text            string            `json:"text"`
	Blocks          []json.RawMessage `json:"blocks"`
	ReplaceOriginal bool              `json:"replace_original"`
	DeleteOriginal  bool              `json:"delete_original"`
	ThreadTS        string            `json:"thread_ts"`
}

// newTestHandler returns a handler over the fakes; change sets its Config.
func newTestHandler(t *testing.T, change func(*Config)) *Handler {
	t.Helper()
	cfg := Config{
		Parse:   fakeParser,
		Answer:  fakeAnswerer{},
		Respond: NewResponseURLPoster(http.DefaultClient),
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now:     func() time.Time { return testNow },
	}
	if change != nil {
		change(&cfg)
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Wait)
	return h
}
