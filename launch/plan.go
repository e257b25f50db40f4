package launch

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// Kind names a launch config fitbot can write.
type Kind string

// The kinds of launch config.
const (
	KindDeepSpeed  Kind = "deepspeed"
	KindAccelerate Kind = "accelerate"
	KindVLLM       Kind = "vllm"
	KindLlamaCpp   Kind = "llama.cpp"
	KindSkyPilot   Kind = "skypilot"
	KindMegatron   Kind = "megatron"
)

// Kinds lists every kind, in the order help texts show them.
var Kinds = []Kind{KindDeepSpeed, KindAccelerate, KindVLLM, KindLlamaCpp, KindSkyPilot, KindSGLang, KindMegatron}

// ParseKind reads a kind as a person types it ("DeepSpeed", "llamacpp",
// "sky"); an unknown one is an error that lists the kinds.
func ParseKind(s string) (Kind, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	switch k {
	case "ds", "zero":
		return KindDeepSpeed, nil
	case "fsdp":
		return KindAccelerate, nil
	case "llamacpp", "llama-cpp", "llama-server", "gguf":
		return KindLlamaCpp, nil
	case "sky":
		return KindSkyPilot, nil
	case "megatron-lm", "megatronlm", "megatron-core", "mcore":
		return KindMegatron, nil
	}
	if slices.Contains(Kinds, Kind(k)) {
		return Kind(k), nil
	}
	names := make([]string, len(Kinds))
	for i, k := range Kinds {
		names[i] = string(k)
	}
	return "", fmt.Errorf("unknown launch config %q: one of %s", s, strings.Join(names, ", "))
}

// DefaultKind is the config an answer's "Launch config" button shows:
// Megatron-LM for a tensor, pipeline or context-parallel layout, DeepSpeed
// for other training (Accelerate/FSDP for pure bf16, which DeepSpeed
// cannot run), llama.cpp for GGUF weights, vLLM for other serving.
func DefaultKind(r sizing.Request) Kind {
	switch {
	case r.Method != sizing.MethodInference && hasModelParallel(r):
		return KindMegatron
	case r.Method != sizing.MethodInference && r.Precision == sizing.PrecisionPureBF16:
		return KindAccelerate
	case r.Method != sizing.MethodInference:
		return KindDeepSpeed
	case isGGUF(r.Quant):
		return KindLlamaCpp
	}
	return KindVLLM
}

// Plan is what a launch config is made from: the resolved request and the
// estimate's figures for it.
type Plan struct {
	Request   sizing.Request
	PerGPU    sizing.Memory // the estimate's per-GPU memory
	VRAMBytes int64         // one card's capacity
	DiskBytes int64         // local disk the estimate asks for
	Spot      bool          // the question asked for spot, or the answer was priced at a spot rate
	HubID     string        // Hugging Face repo id; "" for a bare size
	Layers    int           // transformer blocks; 0 when unknown
	ModelName string        // display name
	// Serving is what the answer's GPUs do as a serving engine: the
	// memory share, context and concurrency a serving config starts with;
	// nil for training.
	Serving *sizing.Serving
}

// PlanOf makes the plan of an answer as asked.
func PlanOf(a sizing.Answer) Plan {
	p := Plan{
		Request: a.Request, PerGPU: a.PerGPU, DiskBytes: a.DiskBytes,
		Spot: a.Request.Spot || a.Price != nil && a.Price.Market == "spot", ModelName: a.ModelName, Serving: a.Serving,
	}
	if g, _, err := sizing.LookupGPU(a.Request.GPU); err == nil {
		p.VRAMBytes = g.MemoryBytes
	} else if a.Request.GPUs > 0 {
		p.VRAMBytes = a.VRAMBytes / int64(a.Request.GPUs)
	}
	p.HubID, p.Layers = hubID(a.Request.Model)
	return p
}

// hubSource finds the repo a catalog entry's config.json came from in its
// source note ("config.json of meta-llama/Llama-3.1-8B on the Hugging
// Face Hub; ...").
var hubSource = regexp.MustCompile(`config\.json of ([A-Za-z0-9][\w.-]*/[\w.-]+)`)

// hubID is the Hugging Face repo of a model and its layer count: the
// request's model when it is a repo id already (a model from the Hub),
// else the repo named in the catalog entry's source.
func hubID(model string) (string, int) {
	m, _, err := sizing.LookupModel(model)
	layers := 0
	if err == nil {
		layers = m.Layers
	}
	if strings.Count(model, "/") == 1 {
		return model, layers
	}
	if err != nil {
		return "", 0
	}
	if sm := hubSource.FindStringSubmatch(m.Source); sm != nil {
		return sm[1], layers
	}
	return "", layers
}

// Config is one emitted launch config.
type Config struct {
	Kind     Kind
	Filename string   // a name to save it under, e.g. "ds_config.json"
	Text     string   // the config or command line, ending in a newline
	Notes    []string // what the reader must know or do, in words
}

// Emit writes the launch config of the given kind for the plan. A plan the
// kind cannot run (a serving answer for DeepSpeed, a GGUF file for vLLM)
// is an error that says which kind can: its Try is a kind that emits this
// plan (the refused kind's own suggestion, or the one that suggestion
// points on to), or none when no kind does, so a Try never leads to a
// second refusal (an encoder's serving answer refused by DeepSpeed once
// said "try --emit vllm", which refuses it too).
func Emit(k Kind, p Plan) (Config, error) {
	c, err := emit(k, p)
	var u *Unsupported
	if !errors.As(err, &u) || u.Try == "" {
		return c, err
	}
	_, terr := emit(u.Try, p)
	if terr == nil {
		return c, err
	}
	var next *Unsupported
	if errors.As(terr, &next) && next.Try != "" && next.Try != k {
		if _, nerr := emit(next.Try, p); nerr == nil {
			u.Try = next.Try
			return c, err
		}
	}
	u.Try = ""
	return c, err
}

func emit(k Kind, p Plan) (Config, error) {
	if err := familyLaunch(k, p.Request); err != nil {
		return Config{}, err
	}
	switch k {
	case KindDeepSpeed:
		return emitDeepSpeed(p)
	case KindAccelerate:
		return emitAccelerate(p)
	case KindVLLM:
		return emitVLLM(p)
	case KindSGLang:
		return emitSGLang(p)
	case KindLlamaCpp:
		return emitLlamaCpp(p)
	case KindSkyPilot:
		return emitSkyPilot(p)
	case KindMegatron:
		return emitMegatron(p)
	}
	return Config{}, fmt.Errorf("unknown launch config %q", k)
}

// Unsupported is the error for a plan a kind cannot run; Try names the
// kind that can, when one can.
type Unsupported struct {
	Kind   Kind
	Reason string
	Try    Kind
}

func (e *Unsupported) Error() string {
	if e.Try == "" {
		return fmt.Sprintf("no %s config for this answer: %s", e.Kind, e.Reason)
	}
	return fmt.Sprintf("no %s config for this answer: %s; try --emit %s", e.Kind, e.Reason, e.Try)
}

func isGGUF(q sizing.Quant) bool {
	return strings.HasPrefix(string(q), "q")
}

func training(r sizing.Request) bool { return r.Method != sizing.MethodInference }

// tensorParallel is the GPUs per machine, which serving splits the model
// over by tensor parallelism; pipeline stages span the machines.
func tensorParallel(r sizing.Request) int {
	return max(r.GPUs/max(r.Nodes, 1), 1)
}

// servingLayout is the tensor- and pipeline-parallel sizes a serving
// engine starts with: the answer's (tensor parallel over the GPUs the
// model's heads split over, pipeline stages for the rest: 3 GPUs of
// Llama 3.3 70B are 1 × 3, as vLLM refuses tensor parallel 3), or the
// GPUs per machine and the machines.
func servingLayout(p Plan) (tp, pp int) {
	if sv := p.Serving; sv != nil && sv.TensorParallel > 0 {
		return sv.TensorParallel, max(sv.PipelineParallel, 1)
	}
	return tensorParallel(p.Request), max(p.Request.Nodes, 1)
}

// onApple is the refusal of a GPU engine for an answer served on Apple
// silicon, which vLLM and SGLang do not run on; nil elsewhere.
func onApple(k Kind, p Plan) error {
	if sv := p.Serving; sv != nil && sv.Engine == sizing.EngineLlamaCPP {
		return &Unsupported{Kind: k, Reason: "the answer is served on Apple silicon, where vLLM and SGLang do not run", Try: KindLlamaCpp}
	}
	return nil
}

// gradAccum is the request's accumulation, never below one.
func gradAccum(r sizing.Request) int { return max(r.GradAccumSteps, 1) }

// globalBatch is DeepSpeed's train_batch_size: micro-batch x accumulation
// x data-parallel ranks (every GPU is a data-parallel rank under ZeRO).
func globalBatch(r sizing.Request) int {
	return max(r.MicroBatch, 1) * gradAccum(r) * max(r.GPUs, 1)
}

// vllmDefaultUtilization is vLLM's default --gpu-memory-utilization.
const vllmDefaultUtilization = 0.9

// memoryUtilization is vLLM's --gpu-memory-utilization for the plan: the
// estimate's per-GPU total over the card, rounded up to the hundredth,
// and never below vLLM's default. vLLM hands what the fraction leaves
// after the weights and its activation peak to the KV cache, so a
// fraction cut to the estimate would leave no room for vLLM's own
// profiling peak and CUDA graphs, and fail at start on a small model.
func memoryUtilization(p Plan) float64 {
	if p.VRAMBytes <= 0 {
		return vllmDefaultUtilization
	}
	u := math.Ceil(float64(p.PerGPU.TotalBytes)/float64(p.VRAMBytes)*100) / 100
	return min(max(u, vllmDefaultUtilization), 1)
}

const gib = 1 << 30

// QueryFor is the question that resolves to r: q (for its model, bare
// size or architecture) with every setting of r said outright. It turns
// an alternative's configuration back into a question the estimator
// answers in full.
func QueryFor(q sizing.Query, r sizing.Request) sizing.Query {
	out := sizing.Query{
		Model: q.Model, Params: q.Params, Experts: q.Experts, Arch: q.Arch,
		Method: r.Method, Precision: r.Precision, Quant: r.Quant,
		GPU: r.GPU, GPUs: r.GPUs, Nodes: r.Nodes,
		SeqLen: r.SeqLen, MicroBatch: r.MicroBatch, Tokens: r.Tokens, Spot: r.Spot,
	}
	if !training(r) {
		out.KVPrecision = r.KVPrecision
		out.MicroBatch = r.Concurrency // 0: the users were not asked, as in the answer
		out.Serve = sizing.ServeLoad{RequestsPerSecond: r.RequestsPerSecond, PromptTokens: r.PromptTokens, OutputTokens: r.OutputTokens,
			TTFTTargetSeconds: r.TTFTTargetSeconds, TokensPerSecondPerUserTarget: r.TokensPerSecondPerUserTarget,
			OutputTokensPerSecondTarget: r.OutputTokensPerSecondTarget, FirstToken: r.FirstTokenAsked,
			GPUMemoryUtilization: r.GPUMemoryUtilization, Engine: r.Engine}
		return out
	}
	stage, ckpt, fused := r.ZeROStage, r.GradCheckpointing, r.FusedLoss
	out.Optimizer, out.ZeROStage, out.Offload = r.Optimizer, &stage, r.Offload
	out.GradAccumSteps, out.GradCheckpointing = r.GradAccumSteps, &ckpt
	if fused {
		out.FusedLoss = &fused
	}
	// The layout as answered, said outright so that it is not searched
	// again (a re-search may pick another, at another memory).
	out.TensorParallel, out.PipelineParallel = r.TensorParallel, r.PipelineParallel
	out.ContextParallel, out.ExpertParallel = r.ContextParallel, r.ExpertParallel
	if r.Method == sizing.MethodLoRA || r.Method == sizing.MethodQLoRA {
		out.LoRARank = r.LoRARank
	}
	return out
}

// familyLaunch refuses a kind for a model family it has no config for:
// diffusion pipelines have none (diffusers' training scripts are not
// emitted), an embedding or reranker server needs vLLM's pooling runner
// or SGLang's embedding mode, and llama.cpp (and SGLang) serve no
// encoder-decoder.
func familyLaunch(k Kind, r sizing.Request) error {
	switch a := r.Architecture; {
	case a == sizing.ArchDiffusion:
		return &Unsupported{Kind: k, Reason: "fitbot has no launch config for diffusion pipelines yet (diffusers' accelerate training scripts and pipelines are not emitted)"}
	case a == sizing.ArchEncoder && (k == KindVLLM || k == KindSGLang):
		return &Unsupported{Kind: k, Reason: "an embedding or reranker encoder is served by vLLM's pooling runner or SGLang's --is-embedding, which fitbot does not emit yet"}
	case a == sizing.ArchEncoderDecoder && k == KindSGLang:
		return &Unsupported{Kind: k, Reason: "SGLang serves decoder LLMs, not this encoder-decoder", Try: KindVLLM}
	case (a == sizing.ArchEncoder || a == sizing.ArchEncoderDecoder) && k == KindLlamaCpp:
		return &Unsupported{Kind: k, Reason: fmt.Sprintf("llama.cpp's server runs decoder LLMs, not this %s", a)}
	}
	return nil
}
