package sizing

import (
	"fmt"
	"math"
)

// The serving model: what a serving engine (vLLM by default, SGLang as an
// option) makes of a replica of GPUs, how many requests of the asked
// length fit in its KV cache at once, and how fast each of them goes at
// a given load. docs/serving.md walks through it with its sources.
//
// Memory follows vLLM's worker (vllm/v1/worker/gpu_worker.py,
// determine_available_memory): the KV cache gets gpu_memory_utilization
// × the card's memory, less the weights, less the peak of a profiling
// forward pass of max_num_batched_tokens tokens and a sampler pass over
// max_num_seqs requests, less the memory allocated outside PyTorch
// (NCCL, cuBLAS). The cache is cut into pages of kvBlockTokens tokens
// per layer (vllm/v1/core/kv_cache_utils.py) and the engine logs their
// number × kvBlockTokens as "GPU KV cache size: N tokens".

const (
	// DefaultGPUMemoryUtilization is vLLM's default share of the card the
	// engine may use (EngineArgs.gpu_memory_utilization).
	DefaultGPUMemoryUtilization = 0.9
	// sglangMemFraction is SGLang's mem_fraction_static on an 80 GB-class
	// card at tensor parallel 4-8 (server_args.py picks 0.79-0.88 by card
	// memory and TP; launch commands commonly raise it to 0.9).
	sglangMemFraction = 0.88
	// kvBlockTokens is vLLM's default block size: the KV cache is
	// allocated in pages of 16 tokens (CacheConfig.block_size).
	kvBlockTokens = 16
	// samplerBytesPerLogit is what the profiled sampler pass holds per
	// request and vocabulary entry: fp32 logits and one fp32 working copy.
	samplerBytesPerLogit = 8
	// nonTorchBytes is the memory a worker holds outside PyTorch's
	// allocator on one GPU (cuBLAS workspace, allocator slack); vLLM
	// logs it as non_torch_memory (0.25 GiB on a 4090 in vllm#13061).
	nonTorchBytes = 1 << 28
	// nonTorchTPBytes is what tensor parallelism adds per GPU over PCIe:
	// NCCL's channel buffers and vLLM's custom all-reduce buffers.
	nonTorchTPBytes = 1 << 28
	// nonTorchNVSwitchBytes is what tensor parallelism adds per GPU on
	// NVSwitch machines (H100/H200/B200 SXM), where NCCL also registers
	// NVLink SHARP buffers (an assumption of the right order).
	nonTorchNVSwitchBytes = 1 << 30
	// moeProfileBuffers is how many token × top-k × (hidden + expert FFN
	// shard) buffers vLLM's profiling pass of a mixture of experts holds
	// at its peak (the fused-MoE workspaces, the permuted and quantised
	// copies of the tokens, the combine). Fitted, not derived: it is what
	// makes Qwen3-235B-A22B-FP8 on 4× H100 at 0.9 leave the 8.11 GiB of
	// KV cache vLLM logged (vllm#21348); one published point, see
	// docs/serving.md.
	moeProfileBuffers = 9
	// defaultOutputTokens is the answer length a serving question is
	// sized for when it names none: a chat reply.
	defaultOutputTokens = 512
	// ServeContextDefault is the request length (prompt + output) a
	// capacity or planning question is sized at when it names none: a
	// chat service's turn with its history.
	ServeContextDefault = 4096
)

// Engines a serving answer can be for.
const (
	EngineVLLM   = "vllm"
	EngineSGLang = "sglang"
	// EngineLlamaCPP is what Apple silicon serves with: llama.cpp (or
	// MLX, which holds about the same); vLLM and SGLang run on no Apple
	// GPU.
	EngineLlamaCPP = "llama.cpp"
)

// llamaCPPUBatch is llama.cpp's default physical batch (n_ubatch): its
// compute buffer holds one layer's working set for that many tokens.
const llamaCPPUBatch = 512

// onCard is the spec as it runs on g: on Apple silicon llama.cpp, which
// may use all of the GPU's share of unified memory (the card's memory in
// the catalog) and has no memory-utilization setting.
func (sp serveSpec) onCard(g *GPU) serveSpec {
	if g.UnifiedMemory {
		sp.engine, sp.util = EngineLlamaCPP, 1
	}
	return sp
}

// Serving is what one replica of the answer's GPUs does as a serving
// engine: its KV cache, the most requests of the asked length it holds
// at once, and at the answered concurrency the time to first token, the
// time per output token, throughput and cost. Its JSON keys are the
// contract of DESIGN.md's "Serving capacity".
type Serving struct {
	Engine               string  `json:"engine"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	// UnifiedMemoryShare is, on Apple silicon, the share of unified
	// memory macOS lets the GPU wire (the memory the answer is sized
	// against); 0 on other cards.
	UnifiedMemoryShare float64 `json:"unified_memory_share,omitempty"`
	// KVCacheTokens is what the engine logs as its KV cache size on one
	// replica: whole pages of kvBlockTokens tokens.
	KVCacheTokens int64 `json:"kv_cache_tokens"`
	// MaxConcurrency is how many requests of PromptTokens+OutputTokens
	// fit in the KV cache at once.
	MaxConcurrency int `json:"max_concurrency"`
	// Concurrency is the load the latencies are for: the asked users, or
	// MaxConcurrency (lowered to meet the targets) when none were asked.
	Concurrency  int `json:"concurrency"`
	PromptTokens int `json:"prompt_tokens"`
	OutputTokens int `json:"output_tokens"`
	// MaxModelLen is the longest request the engine is started for.
	MaxModelLen int `json:"max_model_len"`

	TTFTSeconds            float64 `json:"ttft_seconds"` // time to first token at Concurrency, queueing included
	TPOTSeconds            float64 `json:"tpot_seconds"` // time per output token per request
	TokensPerSecondPerUser float64 `json:"tokens_per_second_per_user"`
	// AloneTTFTSeconds is the time to first token of one request of
	// PromptTokens on an idle replica (batch 1): its prefill and one
	// decode step.
	AloneTTFTSeconds float64 `json:"alone_ttft_seconds"`
	// OutputTokensPerSecond is the aggregate output of one replica at
	// Concurrency; RequestsPerSecond the requests it completes.
	OutputTokensPerSecond float64 `json:"output_tokens_per_second"`
	RequestsPerSecond     float64 `json:"requests_per_second"`

	Replicas       int `json:"replicas"`
	GPUsPerReplica int `json:"gpus_per_replica"`
	// TensorParallel and PipelineParallel are how the engine splits a
	// replica: tensor parallel within a machine over the most GPUs the
	// model's heads allow (tensorParallelServes), pipeline stages for the
	// rest (3 GPUs of a 64-head model: 1 × 3).
	TensorParallel   int `json:"tensor_parallel"`
	PipelineParallel int `json:"pipeline_parallel"`

	USDPerHour                *float64 `json:"usd_per_hour"` // all replicas; nil without a price
	USDPerMonth               *float64 `json:"usd_per_month"`
	USDPerMillionOutputTokens *float64 `json:"usd_per_million_output_tokens"`
	// USDPer1kRequests is what a thousand requests of the asked lengths
	// cost at the answered load (all replicas, the busy share counted).
	USDPer1kRequests *float64 `json:"usd_per_1k_requests,omitempty"`

	// Per GPU: the memory the engine keeps out of the KV cache beyond the
	// weights (profiled activations, sampler, non-PyTorch) and the KV
	// cache itself.
	EngineReserveBytes  int64 `json:"engine_reserve_bytes"`
	KVCacheBytes        int64 `json:"kv_cache_bytes"`
	MaxNumBatchedTokens int   `json:"max_num_batched_tokens"`

	// Fits is false when the weights and the reserve leave no room for
	// one request of the asked length.
	Fits bool `json:"fits"`
	// MeetsTargets is whether the asked targets (TTFT, tokens/s per user,
	// users or requests/s) hold; true when none were asked.
	MeetsTargets bool `json:"meets_targets"`
	// Limit names what bounds Concurrency: "kv_cache", "ttft",
	// "tokens_per_second", "asked" (the asked users) or "none".
	Limit string `json:"limit"`
}

// serveSpec is the engine side of a serving question: engine, memory
// fraction, request lengths, load and targets.
type serveSpec struct {
	engine          string
	util            float64
	prompt, output  int
	users           int     // asked concurrent requests; 0 when not asked
	rps             float64 // asked arrival rate; 0 when not asked
	ttftTarget      float64 // seconds; 0 when none
	tpsTarget       float64 // output tokens/s per user; 0 when none
	totalTPS        float64 // output tokens/s of all replicas together; 0 when none
	maxSeqsOverride int     // max_num_seqs the engine is started with; 0: its default
	busy            float64 // share of the time the replicas serve; 0: all of it
}

// spec is the serving spec of a resolved inference request.
func (r *Request) spec() serveSpec {
	sp := serveSpec{engine: r.Engine, util: r.GPUMemoryUtilization, prompt: r.PromptTokens, output: r.OutputTokens,
		users: r.Concurrency, rps: r.RequestsPerSecond, ttftTarget: r.TTFTTargetSeconds, tpsTarget: r.TokensPerSecondPerUserTarget,
		totalTPS: r.OutputTokensPerSecondTarget, busy: r.BusyShare}
	if sp.engine == "" {
		sp.engine = EngineVLLM
	}
	if sp.util == 0 {
		sp.util = DefaultGPUMemoryUtilization
	}
	return sp
}

// engineBatchDefaults is vLLM's max_num_batched_tokens and max_num_seqs
// for the OpenAI server (EngineArgs.get_batch_defaults): 8192 and 1024 on
// cards of 70 GiB or more that are not A100s, 2048 and 256 otherwise.
func engineBatchDefaults(g *GPU) (tokens, seqs int) {
	if g.MemoryBytes >= 70<<30 && g.ID != "a100-80" && g.ID != "a100-40" {
		return 8192, 1024
	}
	return 2048, 256
}

// tpSize is the tensor-parallel group of a request: its GPUs within one
// machine (pipeline stages across machines).
func tpSize(r *Request) int64 { return int64(max(r.GPUs/max(r.Nodes, 1), 1)) }

// engineReserveBytes is what one GPU of the engine holds beyond the
// weights and the KV cache: the peak of the profiling forward pass over
// tokens tokens (one layer's working set, vLLM frees each layer's
// activations before the next; the tensor-parallel shards of q, k, v and
// the FFN; MoE's fused-expert caches of k routed copies), the sampler
// pass over seqs requests, and memory outside PyTorch.
func engineReserveBytes(r *Request, s *shape, g *GPU, tokens, seqs int) float64 {
	tp := float64(tpSize(r))
	t := float64(tokens)
	perToken := 2 * (2*float64(s.hidden) + (2*float64(s.qDim)+2*float64(s.kvDim)+3*float64(s.ffn))/tp)
	act := t * perToken
	if s.moeLayers > 0 {
		act += moeProfileBuffers * t * float64(max(s.expertsActive, 1)) * 2 * (float64(s.hidden) + 3*float64(s.expertFFN)/tp)
	}
	sampler := float64(seqs) * float64(s.vocab) * samplerBytesPerLogit
	// A cross-attention model's profile also runs the vision tower on
	// one largest image per sequence (imageProfileElems, 16-bit).
	images := float64(seqs) * float64(s.imageProfileElems) * 2
	return act + sampler + images + nonTorchBytes + tpCommBytes(r, g)
}

// crossAttnMaxSeqs is the max_num_seqs fitbot sizes a cross-attention
// vision model (Llama 3.2 Vision) at when the question names none:
// vLLM's recipe for mllama (--max-num-seqs 16 --enforce-eager; the
// default 256 fails at start-up on an A100 80GB even at
// --max-model-len 1024, vllm-project/vllm#8879 and #9445), since its
// profile runs the vision tower on one image per sequence.
const crossAttnMaxSeqs = 16

// engineMaxSeqs is the max_num_seqs the engine is sized with: the
// question's, else vLLM's default, capped for a cross-attention model.
func engineMaxSeqs(s *shape, g *GPU, sp serveSpec) int {
	_, seqs := engineBatchDefaults(g)
	switch {
	case sp.maxSeqsOverride > 0:
		seqs = min(seqs, sp.maxSeqsOverride)
	case s.imageProfileElems > 0:
		seqs = min(seqs, crossAttnMaxSeqs)
	}
	return seqs
}

// tpCommBytes is what tensor parallelism holds per GPU outside PyTorch:
// NCCL's buffers, more on NVSwitch machines.
func tpCommBytes(r *Request, g *GPU) float64 {
	switch {
	case tpSize(r) <= 1:
		return 0
	case g.Link == LinkNVLink && g.MaxPerNode >= 8 && g.FP8:
		return nonTorchNVSwitchBytes
	}
	return nonTorchTPBytes
}

// kvBytesPerToken is the KV cache one token of one request takes on one
// GPU (all layers, sliding-window layers included while under their
// window), at the request's KV precision; an image's keys and values in
// cross-attention layers (mllama), fixed per sequence, are left out.
func kvBytesPerToken(r *Request, s *shape) float64 {
	e := kvElemBytes(r.KVPrecision)
	return (kvCacheBytes(s, 1, 1, e) - float64(s.crossElems)*e) * kvShare(s, r.GPUs, r.Nodes)
}

// requestKVBytes is the KV cache of one request of n tokens on one GPU,
// in whole pages.
func requestKVBytes(r *Request, s *shape, n int) float64 {
	pages := int64((n + kvBlockTokens - 1) / kvBlockTokens)
	return kvCacheBytes(s, pages*kvBlockTokens, 1, kvElemBytes(r.KVPrecision)) * kvShare(s, r.GPUs, r.Nodes)
}

// kvCapacity is the KV cache memory per GPU and its size in tokens as the
// engine logs it: whole pages of what util × the card leaves after the
// weights and the reserve. SGLang's mem_fraction_static counts the
// weights and the KV pool inside the fraction and keeps its activations
// outside it.
func kvCapacity(r *Request, s *shape, g *GPU, sp serveSpec) (avail, reserve float64, tokens int64, batched int) {
	batched, _ = engineBatchDefaults(g)
	if sp.engine == EngineLlamaCPP {
		batched = llamaCPPUBatch
	}
	seqs := engineMaxSeqs(s, g, sp)
	weights := modelWeightBytes(s, r.Quant, r.Precision) / float64(max(r.GPUs, 1))
	reserve = engineReserveBytes(r, s, g, batched, seqs)
	budget := sp.util * float64(g.MemoryBytes)
	if sp.engine == EngineSGLang {
		// SGLang measures the free memory after loading the weights, so
		// the CUDA context and NCCL's buffers count against the fraction;
		// its activations live in the rest of the card.
		reserve = cudaOverheadBytes + tpCommBytes(r, g)
	}
	avail = budget - weights - reserve
	perToken := kvBytesPerToken(r, s)
	if avail <= 0 || perToken <= 0 {
		return max(avail, 0), reserve, 0, batched
	}
	pages := int64(avail / (perToken * kvBlockTokens))
	return avail, reserve, pages * kvBlockTokens, batched
}

// attentionFLOPs is the attention score and value work of a causal
// prefill of n tokens: n × the per-token count training uses
// (shape.attentionFLOPsFwd: causal, sliding windows capped).
func attentionFLOPs(s *shape, n int64) float64 { return float64(n) * s.attentionFLOPsFwd(n) }

// prefillSeconds is the time one replica takes to read a prompt of n
// tokens: compute-bound, 2 × active parameters per token plus attention
// at the prefill share of peak (prefillShare: the fitted GEMM efficiency
// at the model's width, or the configured MFU) over the replica's GPUs,
// plus tensor parallelism's two all-reduces per layer of the prompt's
// hidden states over the link.
func prefillSeconds(r *Request, s *shape, g *GPU, mfu float64, n int) float64 {
	peak := peakFLOPS(g, r.Precision) * prefillShare(r, s, g, mfu) * float64(max(r.GPUs, 1))
	if peak <= 0 || n <= 0 {
		return 0
	}
	t := (2*float64(s.active)*float64(n) + attentionFLOPs(s, int64(n))) / peak
	if tp := float64(tpSize(r)); tp > 1 && g.LinkBytesPerSec > 0 {
		vol := 2 * float64(s.layers) * float64(n) * float64(s.hidden) * 2 * 2 * (tp - 1) / tp
		t += vol / g.LinkBytesPerSec
	}
	return t
}

// latencyAt is the time to first token and per output token of one
// replica at c concurrent requests, with the requests per second it
// serves. Prompts and decode steps share the GPUs: with ρ = λ × a
// prompt's prefill time p, prompts take ρ of the time, so every decode
// step (decodeStep: each GEMM class the longer of its reads and compute)
// is stretched by 1/(1-ρ); a prompt waits for the ones before it as in
// an M/D/1 queue, ρ·p/(2(1-ρ)), is read (p) and gets its first token one
// step later. λ is the asked arrival rate (open loop: at ρ ≥ 1 the queue
// grows without bound and TTFT is infinite), or with none each of c
// users sending the next request when the last one ends (closed loop, no
// think time): λ then solves λ × (TTFT(λ) + output × TPOT(λ)) = c, found
// by bisection. This reproduces NVIDIA NIM's published TTFT and
// inter-token latency by concurrency (testdata/serving/latency.tsv).
func latencyAt(r *Request, s *shape, g *GPU, mfu float64, sp serveSpec, c int) (ttft, tpot, rps float64) {
	p := prefillSeconds(r, s, g, mfu, sp.prompt)
	step := decodeStep(r, s, g, mfu, c, sp.prompt+sp.output/2)
	at := func(lambda float64) (float64, float64) {
		rho := lambda * p
		if rho >= 1 {
			return math.Inf(1), math.Inf(1)
		}
		tpot := step / (1 - rho)
		return p + rho*p/(2*(1-rho)) + tpot, tpot
	}
	if sp.rps > 0 {
		ttft, tpot = at(sp.rps)
		return ttft, tpot, sp.rps
	}
	if p <= 0 {
		ttft, tpot = at(0)
		return ttft, tpot, float64(c) / (ttft + float64(sp.output)*tpot)
	}
	lo, hi := 0.0, 1/p
	for range 40 {
		mid := (lo + hi) / 2
		t, d := at(mid)
		if mid*(t+float64(sp.output)*d) < float64(c) {
			lo = mid
		} else {
			hi = mid
		}
	}
	ttft, tpot = at(lo)
	return ttft, tpot, lo
}

// meets reports whether latencies meet the spec's targets.
func (sp serveSpec) meets(ttft, tpot float64) bool {
	if math.IsInf(ttft, 1) {
		return false
	}
	if sp.ttftTarget > 0 && ttft > sp.ttftTarget {
		return false
	}
	if sp.tpsTarget > 0 && 1/tpot < sp.tpsTarget {
		return false
	}
	return true
}

// serveReplica answers one replica of r on g: KV capacity, the
// concurrency (the asked users, or the most that fit and meet the
// targets) and its latencies, throughput and cost for replicas copies.
func serveReplica(r *Request, s *shape, g *GPU, mfu float64, sp serveSpec, price *Price, replicas int) Serving {
	sp = sp.onCard(g)
	avail, reserve, tokens, batched := kvCapacity(r, s, g, sp)
	sv := Serving{
		Engine: sp.engine, GPUMemoryUtilization: sp.util, UnifiedMemoryShare: g.UsableFraction, KVCacheTokens: tokens,
		PromptTokens: sp.prompt, OutputTokens: sp.output, MaxModelLen: max(r.SeqLen, sp.prompt+sp.output),
		Replicas: max(replicas, 1), GPUsPerReplica: max(r.GPUs, 1),
		TensorParallel: 1, PipelineParallel: 1,
		EngineReserveBytes: ceilBytes(reserve), KVCacheBytes: ceilBytes(avail), MaxNumBatchedTokens: batched,
	}
	if sp.engine != EngineLlamaCPP {
		sv.TensorParallel, sv.PipelineParallel = servingLayout(s, r.GPUs, r.Nodes)
	}
	if per := requestKVBytes(r, s, sp.prompt+sp.output); per > 0 {
		sv.MaxConcurrency = min(int(avail/per), MaxMicroBatch)
		if s.imageProfileElems > 0 {
			sv.MaxConcurrency = min(sv.MaxConcurrency, engineMaxSeqs(s, g, sp))
		}
	}
	sv.Fits = sv.MaxConcurrency >= 1
	c, limit := sv.MaxConcurrency, "kv_cache"
	if sp.users > 0 && sp.users <= sv.MaxConcurrency {
		c, limit = sp.users, "asked"
	}
	if !sv.Fits {
		c = 1
	}
	sv.AloneTTFTSeconds = finite(prefillSeconds(r, s, g, mfu, sp.prompt) + decodeStep(r, s, g, mfu, 1, sp.prompt))
	ttft, tpot, rps := latencyAt(r, s, g, mfu, sp, c)
	if sp.users == 0 && sv.Fits && !sp.meets(ttft, tpot) {
		// The most requests that still meet the targets: latencies grow
		// with the batch, so a bisection finds it.
		lo, hi := 0, c
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if t, p, _ := latencyAt(r, s, g, mfu, sp, mid); sp.meets(t, p) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		limit = "ttft"
		if sp.tpsTarget > 0 {
			if _, p, _ := latencyAt(r, s, g, mfu, sp, max(lo+1, 1)); 1/p < sp.tpsTarget {
				limit = "tokens_per_second"
			}
		}
		if lo > 0 {
			c = lo
			ttft, tpot, rps = latencyAt(r, s, g, mfu, sp, c)
		}
	}
	sv.Concurrency, sv.Limit = c, limit
	sv.TTFTSeconds, sv.TPOTSeconds = finite(ttft), finite(tpot)
	if tpot > 0 && !math.IsInf(tpot, 1) {
		sv.TokensPerSecondPerUser = 1 / tpot
		sv.OutputTokensPerSecond = float64(c) / tpot
	}
	sv.RequestsPerSecond = finite(rps)
	sv.MeetsTargets = sv.Fits && sp.meets(ttft, tpot) && (sp.users == 0 || sp.users <= sv.MaxConcurrency*sv.Replicas)
	if price != nil {
		perHour := price.USDPerGPUHour * float64(sv.GPUsPerReplica*sv.Replicas)
		month := perHour * HoursPerMonth
		sv.USDPerHour, sv.USDPerMonth = &perHour, &month
		if sv.OutputTokensPerSecond > 0 {
			perM := perHour / (sv.OutputTokensPerSecond * float64(sv.Replicas) * 3600) * 1e6
			if sp.busy > 0 {
				perM /= sp.busy // paid by the hour, making tokens only while busy
			}
			sv.USDPerMillionOutputTokens = &perM
		}
		if rps > 0 && !math.IsInf(rps, 0) {
			perK := perHour / (rps * float64(sv.Replicas) * 3600) * 1000
			if sp.busy > 0 {
				perK /= sp.busy
			}
			sv.USDPer1kRequests = &perK
		}
	}
	return sv
}

// finite is x, or 0 for an infinity (JSON has none).
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}

// servingAssumptions are the serving model's stated assumptions.
func servingAssumptions(r *Request, s *shape, g *GPU, sp serveSpec, mfu float64) []string {
	engine := fmt.Sprintf("serving engine %s given %.0f%% of the card's memory (its GPU memory utilization setting, %.2g): the KV cache is what is left after the weights, the profiled activation peak, the sampler and NCCL/cuBLAS memory, in pages of %d tokens", sp.engine, sp.util*100, sp.util, kvBlockTokens)
	if g.UnifiedMemory {
		engine = fmt.Sprintf("served with llama.cpp (or MLX; vLLM and SGLang do not run on Apple GPUs) in the GPU's share of unified memory (%.0f%%, macOS's default): the KV cache is what is left after the weights and a compute buffer for %d-token batches", g.UsableFraction*100, llamaCPPUBatch)
	}
	out := []string{
		engine,
		fmt.Sprintf("requests of %d prompt + %d output tokens", sp.prompt, sp.output),
		fmt.Sprintf("prefill compute-bound at %.0f%% of the dense peak, causal attention included; decode reads the weights once per step and each request's KV cache", prefillShare(r, s, g, mfu)*100),
	}
	if sp.rps > 0 {
		out = append(out, fmt.Sprintf("%.3g requests/s arriving at random (M/D/1 queue before prefill)", sp.rps))
	} else {
		out = append(out, "each user sends the next request when the last one ends (no think time)")
	}
	if sp.busy > 0 {
		out = append(out, fmt.Sprintf("busy %.0f%% of the time: the cost per 1M output tokens is over that share (the cards are paid for all of it)", sp.busy*100))
	}
	return out
}
