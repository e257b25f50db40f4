package sizing

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

const (
	DefaultSeqLen   = 2048
	defaultLoRARank = 16
	// defaultMaxPerNode is used for a catalog card that does not say how
	// many fit in one machine.
	DefaultMaxPerNode = 8
)

// resolved is a Query with the catalogs and defaults applied: the Request
// and what it was computed from.
type resolved struct {
	req       Request
	jobTokens int64 // a batch job's tokens: its documents × their length (jobShape)
	model     Model
	shape     shape
	gpu       GPU // zero when no GPU was named
	gpuNamed  bool
	countSaid bool  // the question gave a GPU or machine count
	asked     Query // the question as asked: a Try changes one thing in it
	// cheapestWays: the question asked for the cheapest way and left the
	// weight format unsaid, so smaller formats are ways too (inference).
	cheapestWays bool
	// wholeMachines: the fastest run was asked with no card or count, so
	// each card is a whole machine of it, not the fewest that fit.
	wholeMachines bool
	assumptions   []string
	notes         []string // facts worth saying that are not defaults (ZeRO on one GPU)
}

func (rs *resolved) assume(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !slices.Contains(rs.assumptions, s) {
		rs.assumptions = append(rs.assumptions, s)
	}
}

// MergeAssumptions joins the parser's notes and the estimator's
// assumptions for one answer, each said once, notes first. Both read an
// ambiguous name ("h100" taken as H100 SXM 80 GB), so a plain append
// would say it twice.
func MergeAssumptions(notes, assumptions []string) []string {
	out := make([]string, 0, len(notes)+len(assumptions))
	for _, s := range slices.Concat(notes, assumptions) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Resolve applies the catalogs and defaults to a Query, validating it. The
// strings are the assumptions it made, in words. A question the estimator
// cannot use (unknown names, impossible numbers, contradictions) returns
// an *InputError.
func Resolve(q Query) (Request, []string, error) {
	rs, err := resolve(q)
	if err != nil {
		return Request{}, nil, err
	}
	return rs.req, rs.assumptions, nil
}

func inputErr(hint, format string, args ...any) *InputError {
	return &InputError{Problem: fmt.Sprintf(format, args...), Hint: hint}
}

func resolve(q Query) (*resolved, error) {
	if err := checkNumbers(q); err != nil {
		return nil, err
	}
	rs := &resolved{cheapestWays: q.Cheapest && q.Quant == "" && q.Precision == "", asked: q}
	if err := rs.resolveModel(q); err != nil {
		return nil, err
	}
	if err := rs.resolveGPU(q); err != nil {
		return nil, err
	}
	if err := rs.resolveMethod(q); err != nil {
		return nil, err
	}
	if err := rs.resolvePrecision(q); err != nil {
		return nil, err
	}
	shapeQ := serveLengths(q)
	if q.Job.Documents > 0 {
		shapeQ = rs.jobShape(shapeQ)
	}
	if err := rs.resolveShape(shapeQ); err != nil {
		return nil, err
	}
	if rs.model.Kind == KindDiffusion {
		if err := rs.diffusionAssumptions(q); err != nil {
			return nil, err
		}
	}
	switch {
	case q.Images > 0 && rs.model.Kind == KindDiffusion && rs.req.Method != MethodInference:
		// A diffusion model fine-tuned on images learns from them one
		// batch at a time: they are its data set, not a context.
		rs.assume("%d image(s) are the training set, not a context: memory does not grow with their number", q.Images)
	case q.Images > 0:
		if err := rs.addImages(q); err != nil {
			return nil, err
		}
	}
	if err := rs.resolveServe(q); err != nil {
		return nil, err
	}
	rs.crossAttnAssumptions()
	if rs.req.Method != MethodInference {
		if err := rs.resolveTraining(q); err != nil {
			return nil, err
		}
	} else if err := rs.resolveLayout(q); err != nil {
		return nil, err
	}
	rs.req.Spot = q.Spot // priced and launched at a spot rate, training or serving
	rs.req.Tokens = q.Tokens
	if q.Job.Documents > 0 {
		rs.req.Tokens = rs.jobTokens
	}
	rs.req.PerMonth = q.PerMonth
	rs.req.Projection = q.Projection
	rs.req.Own = q.Own
	rs.req.GPUHours, rs.req.GPUHoursAsked = q.GPUHours, q.GPUHoursAsked
	if rs.req.Method != MethodInference {
		rs.req.RunsPerMonth = q.Cadence.perMonth()
	}
	if q.Fastest && rs.req.Method != MethodInference {
		rs.req.Fastest = true
		if rs.req.Tokens == 0 {
			rs.req.Tokens = RoundRunTokens
			rs.assume("fastest asked: each way is timed on a run of 1B tokens (no budget said) and listed fastest first")
		} else {
			rs.assume("fastest asked: the other ways are listed fastest first")
		}
	}
	return rs, nil
}

// checkNumbers rejects sizes that cannot be: zero is "not said", negative
// is never valid.
func checkNumbers(q Query) error {
	for _, c := range []struct {
		name string
		v    int64
	}{
		{"parameter count", q.Params}, {"expert count", int64(q.Experts)}, {"GPU count", int64(q.GPUs)},
		{"node count", int64(q.Nodes)}, {"sequence length", int64(q.SeqLen)}, {"batch size", int64(q.MicroBatch)},
		{"LoRA rank", int64(q.LoRARank)}, {"token budget", q.Tokens}, {"GPU memory", q.GPUMemoryBytes},
		{"document count", q.Job.Documents}, {"document length", int64(q.Job.DocTokens)},
	} {
		if c.v < 0 {
			return inputErr("fit llama-3.1-8b lora rtx-4090", "the %s cannot be negative (got %d)", c.name, c.v)
		}
	}
	if q.GPUMemoryBytes > 0 && q.GPU == "" {
		return inputErr("fit 13B lora rtx-4090 16gb", "a typed GPU memory needs a card to size it on")
	}
	if q.ZeROStage != nil && (*q.ZeROStage < 0 || *q.ZeROStage > 3) {
		return inputErr("fit 13B full 4 a100 zero3", "ZeRO stages are 0 to 3 (got %d)", *q.ZeROStage)
	}
	return nil
}

func (rs *resolved) resolveModel(q Query) error {
	switch {
	case q.Arch != nil:
		rs.model = *q.Arch
		if rs.model.Kind != KindDiffusion && (rs.model.Layers <= 0 || rs.model.Hidden <= 0 || (rs.model.Heads <= 0 && rs.model.Kind != KindSSM)) {
			return inputErr("fit --config config.json lora rtx-4090", "the model configuration has no layers, hidden size or heads")
		}
		if note := rs.model.Assumption(); note != "" {
			rs.assume("%s", note)
		}
	case q.Model != "":
		m, note, err := LookupModel(q.Model)
		if n, ok := LookupNamed(q.Model); err != nil && ok {
			return n.Refusal()
		}
		if err != nil {
			return notFound(err, q)
		}
		rs.model = m
		if note != "" {
			rs.assume("%s", note)
		}
	case q.Params > 0:
		rs.model = BareModel(q.Params, q.Experts)
		rs.assume("%s", rs.model.Assumption())
	case q.Experts > 0:
		return inputErr("fit 8x7B qlora a100", "%d experts of what size? Give the size of one expert", q.Experts)
	default:
		// The example keeps what was asked and adds only a model.
		example := q
		example.Model, example.Params, example.Experts = "llama-3.1-8b", 0, 0
		return inputErr("fit "+Format(example), "no model named: give a catalog model or a size such as 7B")
	}
	rs.shape = shapeOf(rs.model)
	if note := rs.model.ssmNote(); note != "" && rs.model.Assumption() == "" {
		rs.assume("%s: %s", rs.model.Name, note)
	}
	total, active := rs.model.ParamCount()
	if rs.model.MoE() && !rs.model.TiedEmbeddings {
		rs.assume("%s: %s parameters, %s active per token (the input embedding, a lookup, is not counted as active)",
			rs.model.Name, humanCount(total), humanCount(active))
	}
	if rs.model.Note != "" {
		rs.assume("%s", rs.model.Note)
	}
	rs.req.Model = rs.model.ID
	rs.req.Architecture = rs.model.Architecture()
	rs.req.Params, rs.req.ActiveParams = total, active
	return nil
}

// notFound turns a catalog miss into an InputError that carries the
// catalog's suggestions and a corrected command.
func notFound(err error, q Query) error {
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		return err
	}
	hint := ""
	if len(nf.Suggestions) > 0 {
		switch nf.Kind {
		case "GPU":
			q.GPU = nf.Suggestions[0]
		default:
			q.Model = nf.Suggestions[0]
		}
		hint = hintFor(q)
	}
	return &InputError{Problem: nf.Error(), Hint: hint}
}

// hintFor writes a short corrected command for a query.
func hintFor(q Query) string {
	parts := []string{"fit"}
	switch {
	case q.Model != "":
		parts = append(parts, q.Model)
	case q.Params > 0:
		parts = append(parts, bareName(q.Params))
	}
	if q.Method != "" {
		parts = append(parts, string(q.Method))
	}
	if q.GPUs > 1 {
		parts = append(parts, fmt.Sprint(q.GPUs))
	}
	if q.GPU != "" {
		parts = append(parts, q.GPU)
	}
	return strings.Join(parts, " ")
}

func (rs *resolved) resolveGPU(q Query) error {
	if q.GPU == "" {
		return nil
	}
	g, note, err := LookupGPU(q.GPU)
	if err != nil {
		return notFound(err, q)
	}
	if note != "" && q.GPUMemoryBytes == 0 {
		rs.assume("%s", note)
	}
	if q.GPUMemoryBytes > 0 {
		g = withMemory(g, q.GPUMemoryBytes)
		rs.req.GPUMemoryBytes = g.MemoryBytes
	}
	rs.setGPU(g)
	return nil
}

// withMemory is card g with the memory the asker typed (whole GiB of the
// card's stated size; Apple silicon gives the GPU its usable share).
func withMemory(g GPU, typed int64) GPU {
	usable := typed
	if g.UsableFraction > 0 {
		g.UsableFraction = AppleGPUShare(typed)
		usable = int64(float64(typed) * g.UsableFraction)
	}
	if gb := NominalGB(g.Name); gb > 0 {
		g.Name = fmt.Sprintf("%s %d GB", LineOf(g.Name), typed>>30)
	}
	g.MemoryBytes = usable
	return g
}

// setGPU records the card and resolves the GPU and machine counts for it.
func (rs *resolved) setGPU(g GPU) {
	rs.gpu, rs.gpuNamed = g, true
	rs.req.GPU = g.ID
}

// maxPerNode is how many of a card one machine holds.
func MaxPerNode(g GPU) int {
	if g.MaxPerNode > 0 {
		return g.MaxPerNode
	}
	return DefaultMaxPerNode
}

// resolveCounts sets GPUs and Nodes for the request's card.
func (rs *resolved) resolveCounts(q Query) error {
	per := MaxPerNode(rs.gpu)
	gpus, nodes := q.GPUs, q.Nodes
	switch {
	case gpus == 0 && nodes == 0:
		gpus, nodes = 1, 1
	case gpus == 0:
		gpus = nodes * per
		rs.assume("%d machines of %d GPUs each: %d GPUs in all", nodes, per, gpus)
	case nodes == 0:
		nodes = (gpus + per - 1) / per
		for gpus%nodes != 0 {
			nodes++ // "20 a100s": five machines of 4, as no machine holds a part share
		}
		if nodes > 1 && nodes*per != gpus && nodes > (gpus+per-1)/per {
			rs.assume("%d GPUs do not fill machines of %d evenly: sized as %d machines of %d", gpus, per, nodes, gpus/nodes)
		} else if nodes > 1 {
			rs.assume("%d GPUs spread over %d machines of %d", gpus, nodes, per)
		}
	}
	if gpus%nodes != 0 {
		return inputErr(fmt.Sprintf("fit %s %d %s", rs.req.Model, nodes*(gpus/nodes+1), rs.gpu.ID),
			"%d GPUs do not split evenly over %d machines", gpus, nodes)
	}
	if gpus/nodes > per && rs.gpuNamed {
		return inputErr(fmt.Sprintf("fit %s %d nodes of %d %s", rs.req.Model, (gpus+per-1)/per, per, rs.gpu.ID),
			"one machine holds at most %d %s, not %d", per, rs.gpu.Name, gpus/nodes)
	}
	rs.req.GPUs, rs.req.Nodes = gpus, nodes
	return nil
}

// trainingSaid reports whether the query names anything only training has.
func trainingSaid(q Query) bool {
	return q.Optimizer != "" || q.LoRARank > 0 || q.ZeROStage != nil || q.Offload != "" ||
		q.GradCheckpointing != nil || q.Tokens > 0 || q.GradAccumSteps > 0 || q.GlobalBatchTokens > 0
}

func (rs *resolved) resolveMethod(q Query) error {
	m := q.Method
	if m == "" {
		if trainingSaid(q) {
			m = MethodFull
			rs.assume("no method said: full fine-tuning (say lora or qlora for adapters)")
		} else {
			m = MethodInference
			rs.assume("no method said: inference (say train, lora or qlora to size training)")
		}
	}
	hint := fmt.Sprintf("fit %s qlora %s", rs.req.Model, ifEmpty(rs.req.GPU, "rtx-4090"))
	switch m {
	case MethodInference:
		switch {
		case q.Optimizer != "":
			return inputErr(hint, "inference has no optimizer: %s only applies to training", q.Optimizer)
		case q.LoRARank > 0:
			return inputErr(hint, "a LoRA rank needs lora or qlora, not inference")
		case q.ZeROStage != nil || (q.Offload != "" && q.Offload != OffloadNone && !(rs.model.Kind == KindDiffusion && q.Offload == OffloadCPU)):
			return inputErr(fmt.Sprintf("fit %s 2 %s", rs.req.Model, ifEmpty(rs.req.GPU, "h100")),
				"ZeRO stages and offload shard training state; to serve on more GPUs, name the GPU count (tensor parallel)")
		case q.GradCheckpointing != nil:
			return inputErr(hint, "gradient checkpointing is a training setting, not an inference one")
		case q.GradAccumSteps > 0 || q.GlobalBatchTokens > 0:
			return inputErr(hint, "gradient accumulation and global batches are training settings, not inference ones")
		}
	case MethodFull:
		if q.Quant != QuantNone {
			return inputErr(hint, "full fine-tuning updates every weight; %s weights cannot be trained directly (QLoRA trains adapters on a 4-bit base)", q.Quant)
		}
		if q.LoRARank > 0 {
			return inputErr(hint, "a LoRA rank needs lora or qlora, not full fine-tuning")
		}
	case MethodLoRA, MethodQLoRA:
	default:
		return inputErr(hint, "unknown method %q: use full, lora, qlora or inference", m)
	}
	if m != MethodInference && q.KVPrecision != "" {
		return inputErr(hint, "a KV-cache precision applies to inference, not training")
	}
	rs.req.Method = m
	return nil
}

func ifEmpty(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func (rs *resolved) resolvePrecision(q Query) error {
	r := &rs.req
	hint := fmt.Sprintf("fit %s qlora %s", r.Model, ifEmpty(r.GPU, "rtx-4090"))
	p, quant := q.Precision, q.Quant
	half := PrecisionBF16
	if rs.gpuNamed && !rs.gpu.BF16 {
		half = PrecisionFP16
	}
	if r.Method == MethodInference {
		if p == PrecisionPureBF16 {
			p = PrecisionBF16 // no optimizer, no master copy: plain bf16
		}
		switch p {
		case PrecisionINT8:
			if quant == QuantNone {
				quant = QuantINT8
			}
			p = half
		case PrecisionINT4:
			if quant == QuantNone {
				quant = QuantAWQ
				rs.assume("int4 weights taken as AWQ/GPTQ-style: group size 128 with fp16 scale and zero (4.25 bits per weight)")
			}
			p = half
		case PrecisionFP8:
			if quant == QuantNone {
				quant = QuantFP8
			}
		case "":
			p = half
			rel := rs.model.ReleasedFormat
			switch {
			case quant == QuantNone && rel != QuantNone:
				quant = rel
				if rel == QuantFP8 && (!rs.gpuNamed || rs.gpu.FP8) {
					p = PrecisionFP8
				}
				rs.assume("%s", releasedNote(rs.model, &rs.shape, rel))
			case quant == QuantNone:
				rs.assume("inference in %s (weights unquantised)", half)
			}
		}
		if rel := rs.model.ReleasedFormat; rel != QuantNone && quant == QuantNone {
			// The weights three ways, so that "full precision" of an FP8
			// model is not read one way silently.
			gib := func(q Quant, p Precision) float64 { return modelWeightBytes(&rs.shape, q, p) / (1 << 30) }
			also := ""
			if p != PrecisionBF16 && p != PrecisionFP16 {
				also = fmt.Sprintf(" and %.1f GiB in bf16", gib(QuantNone, PrecisionBF16))
			}
			rs.assume("%s ships %s; sized in %s as asked: %.1f GiB of weights, against %.1f GiB as released%s",
				rs.model.Name, strings.ToUpper(string(rel)), p, gib(QuantNone, p), gib(rel, PrecisionBF16), also)
		}
		if k := rs.model.Kept16; k != nil && storedAs(quant, p) == k.Format && rs.model.ReleasedFormat != k.Format {
			rs.assume("%s sized as the maker's %s checkpoint: %s; %.1f GiB of weights, against %.1f GiB with every linear layer in %s",
				rs.model.Name, strings.ToUpper(string(k.Format)), strings.TrimPrefix(keptNote(k), "the "+strings.ToUpper(string(k.Format))+" checkpoint "),
				modelWeightBytes(&rs.shape, quant, p)/(1<<30), modelWeightBytes(&rs.shape, quant, p)/(1<<30)-float64(rs.shape.keptLinear)*(2-weightElemBytes(quant, p, rs.shape.hidden, true, false, false))/(1<<30),
				strings.ToUpper(string(k.Format)))
		}
		if why := noAWQ(&rs.model); why != "" && quant == QuantAWQ {
			rs.notes = append(rs.notes, "AWQ sized as asked, but "+why)
		}
		if quant == QuantFP8 && rs.gpuNamed && !rs.gpu.FP8 {
			rs.notes = append(rs.notes, fmt.Sprintf("%s has no FP8 tensor cores: FP8 weights are dequantised on the fly (weight-only), compute stays 16-bit", rs.gpu.Name))
		}
		kv := q.KVPrecision
		if kv == "" {
			kv = half
			switch rs.model.Kind {
			case KindDiffusion:
				// No KV cache; the pipeline's assumptions say what is held.
			case KindEncoder:
				rs.assume("%s is an encoder: no KV cache; each batch of sequences is read whole in one forward pass, and its speed is sequences per second", rs.model.Name)
			default:
				fixed := kvCacheBytes(&rs.shape, 0, 1, kvElemBytes(half))
				if rs.shape.encoderSeq > 0 {
					// Whisper: the cross-attention KV is per clip, not per token.
					rs.assume("KV cache in %s: %s per text token of the decoder's own attention (all layers, one clip), plus %s per clip for the cross-attention over its %s encoder frames",
						half, perTokenBytes(kvCacheBytes(&rs.shape, 1, 1, kvElemBytes(half))-fixed), perTokenBytes(fixed), Commas(rs.shape.encoderSeq))
				} else if rs.shape.crossElems > 0 {
					// Llama 3.2 Vision: the image's KV is per sequence, not per token.
					rs.assume("KV cache in %s: %s per text token (the self-attention layers, one request), plus %s per sequence for the cross-attention layers' image states",
						half, perTokenBytes(kvCacheBytes(&rs.shape, 1, 1, kvElemBytes(half))-fixed), perTokenBytes(fixed))
				} else if b := kvCacheBytes(&rs.shape, 1, 1, kvElemBytes(half)); b >= 1<<10 {
					rs.assume("KV cache in %s: %s per token of context (all layers, one request)", half, perTokenBytes(b))
				} else {
					rs.assume("KV cache in %s", half) // a search's probe model, not one asked
				}
			}
		}
		r.KVPrecision = kv
		r.Precision, r.Quant, r.Offload = p, quant, OffloadNone
		if rs.model.Kind == KindDiffusion && q.Offload == OffloadCPU {
			r.Offload = OffloadCPU // diffusers' model CPU offload
		}
		r.VAESlicing = rs.model.Kind == KindDiffusion && q.VAESlicing
		return nil
	}
	switch p {
	case PrecisionINT8, PrecisionINT4:
		return inputErr(hint, "training does not run in %s; for a quantised base use qlora", p)
	case PrecisionFP8:
		if rs.gpuNamed && !rs.gpu.FP8 {
			return inputErr(fmt.Sprintf("fit %s %s h100", r.Model, r.Method), "%s has no FP8 tensor cores; FP8 training needs Hopper, Ada or newer", rs.gpu.Name)
		}
	case PrecisionBF16, PrecisionPureBF16:
		if rs.gpuNamed && !rs.gpu.BF16 {
			return inputErr(fmt.Sprintf("fit %s %s %s fp16", r.Model, r.Method, rs.gpu.ID), "%s has no BF16 support; use fp16", rs.gpu.Name)
		}
		if p == PrecisionPureBF16 {
			rs.assume("pure bf16 (torchtune's and LitGPT's default): weights, gradients and optimizer states in bf16, no fp32 master copy")
		}
	case "":
		p = half
		rs.assume("%s mixed precision (16-bit weights and gradients, fp32 master weights and optimizer states)", half)
		if half == PrecisionFP16 {
			rs.assume("%s has no BF16: fp16 with loss scaling", rs.gpu.Name)
		}
	}
	switch r.Method {
	case MethodLoRA:
		switch {
		case quant == QuantNF4 || quant == QuantNF4DQ:
			r.Method = MethodQLoRA
			rs.assume("LoRA on a 4-bit NF4 base is QLoRA")
		case isGGUF(quant):
			return inputErr(hint, "%s is a llama.cpp inference format; to train adapters on a 4-bit base use qlora", quant)
		case quant != QuantNone:
			rs.assume("frozen base stored as %s", quant)
		}
	case MethodQLoRA:
		switch quant {
		case QuantNone:
			quant = QuantNF4DQ
			rs.assume("QLoRA base in 4-bit NF4 with double quantisation (4.127 bits per weight); embeddings, LM head and norms stay 16-bit")
			rs.assume("QLoRA loads the 16-bit checkpoint shard by shard (5 GB at most each), bitsandbytes quantising each on load: host RAM never holds the whole 16-bit copy")
		case QuantNF4, QuantNF4DQ:
		case QuantINT8:
			rs.assume("QLoRA over an 8-bit base: bitsandbytes LLM.int8 (load_in_8bit, one fp32 scale per row), as PEFT's prepare_model_for_kbit_training takes it")
		default:
			return inputErr(hint, "QLoRA trains adapters on a 4-bit NF4 or 8-bit LLM.int8 base; %s is not a QLoRA base", quant)
		}
	}
	if rel := rs.model.ReleasedFormat; rel != QuantNone && quant != rel {
		rs.assume("%s", releasedTrainingNote(rs.model.Name, rel, quant, p, r.Method))
	}
	r.Precision, r.Quant = p, quant
	return nil
}

// releasedTrainingNote says what training does with the weights of a
// model released in format rel when it trains at precision p with base
// storage quant. FP8 training (Transformer Engine, DeepSeek-V3's own
// recipe) computes its matrix multiplies in FP8 from bf16 weights with an
// fp32 master copy: nothing is upcast to FP8. A full fine-tune therefore
// starts from the checkpoint dequantised to bf16 (DeepSeek's
// inference/fp8_cast_bf16.py does it for V3); LoRA at FP8 keeps the frozen
// base in FP8, in the released blocks when the model ships FP8.
func releasedTrainingNote(model string, rel, quant Quant, p Precision, m Method) string {
	shipped := fmt.Sprintf("%s ships %s", model, strings.ToUpper(string(rel)))
	adapters := m == MethodLoRA || m == MethodQLoRA
	switch {
	case quant != QuantNone:
		return fmt.Sprintf("%s; training assumes the weights dequantised and stored again as %s (the released checkpoint is dequantised first)", shipped, quant)
	case p == PrecisionFP8 && adapters && rel == QuantFP8:
		return shipped + "; the frozen base stays in its released FP8 blocks (not dequantised), and the adapters train in bf16 with FP8 matrix multiplies"
	case p == PrecisionFP8 && adapters:
		return shipped + "; the frozen base is dequantised and stored again as FP8, and the adapters train in bf16 with FP8 matrix multiplies"
	case p == PrecisionFP8:
		return shipped + "; FP8 training keeps bf16 weights with an fp32 master copy and runs only the matrix multiplies in FP8, so the released checkpoint is dequantised to bf16 first"
	}
	half := p
	if p == PrecisionPureBF16 {
		half = PrecisionBF16
	}
	return fmt.Sprintf("%s; training assumes the weights upcast to %s (the released checkpoint is dequantised first)", shipped, half)
}

// resolveShape sets the sequence, batch, LoRA rank and GPU counts, which
// the model's context and the card bound.
func (rs *resolved) resolveShape(q Query) error {
	r := &rs.req
	maxCtx := rs.model.MaxContext
	switch {
	case rs.model.Kind == KindDiffusion:
		// A pipeline's sequence is its image: set by diffusionAssumptions.
	case q.SeqLen == 0:
		r.SeqLen = DefaultSeqLen
		if maxCtx > 0 && maxCtx < DefaultSeqLen {
			r.SeqLen = maxCtx
		}
		word := "sequence length"
		if r.Method == MethodInference {
			word = "context"
		}
		rs.assume("%s %d tokens", word, r.SeqLen)
	case maxCtx > 0 && q.SeqLen > maxCtx && q.SeqLen <= yarnContext(rs.model):
		// "qwen3-32b at 64k": the model card's YaRN rope scaling takes it.
		r.SeqLen = q.SeqLen
		rs.assume("%d tokens is past %s's %d-token config: read with YaRN rope scaling, factor %d, as Qwen's model card documents (up to %d tokens; "+
			"the KV cache per token is the same, and a static YaRN factor may lower quality on short texts)",
			q.SeqLen, rs.model.Name, maxCtx, yarnFactor, yarnContext(rs.model))
	case maxCtx > 0 && q.SeqLen > maxCtx && r.Method != MethodInference && (rs.model.Kind == KindDecoder || rs.model.Kind == ""):
		// "llama 3 8b qlora at 64k": fine-tuning past the trained context
		// is how a context is extended (refused it); the
		// memory is the length's, the model learns to use it.
		r.SeqLen = q.SeqLen
		rs.assume("%d tokens is past %s's %d-token context: sized as a context-extension fine-tune, which also needs its rope scaling raised (YaRN, or a larger rope theta as Llama 3.1 and Code Llama did)",
			q.SeqLen, rs.model.Name, maxCtx)
	case maxCtx > 0 && q.SeqLen > maxCtx:
		// The Try is the question as asked, with the model (or the
		// context) changed: the hardware, precision and load stay.
		try := rs.asked
		if longer, ok := longerContextTwin(rs.model, q.SeqLen); ok {
			// "llama 3 8b at 128k": Llama 3.1 8B is the same size and takes it.
			try.Model, try.Params, try.Experts = longer.ID, 0, 0
			return inputErr("fit "+Format(try),
				"%d tokens is longer than %s's context of %d tokens; %s, of the same size, takes %d", q.SeqLen, rs.model.Name, maxCtx, longer.Name, longer.MaxContext)
		}
		limit := max(maxCtx, yarnContext(rs.model))
		try.SeqLen = limit
		if l := try.Serve; try.SeqLen != 0 && (l.PromptTokens > 0 || l.OutputTokens > 0) {
			try.Serve.PromptTokens, try.Serve.OutputTokens = 0, 0 // the context replaces the lengths said
		}
		return inputErr("fit "+Format(try), "%d tokens is longer than %s's context of %d tokens", q.SeqLen, rs.model.Name, limit)
	default:
		r.SeqLen = q.SeqLen
	}
	r.MicroBatch = q.MicroBatch
	if r.MicroBatch == 0 {
		r.MicroBatch = 1
		if r.Method == MethodInference {
			rs.assume("one request at a time (batch 1)")
		} else {
			rs.assume("micro-batch 1 per GPU")
		}
	}
	if n := rs.model.EncoderSeq; n > 0 {
		rs.assume("%s: batch %d is %d clip(s) of 30 s at once, each encoded to %s frames whose cross-attention KV is cached beside the decoder's own KV (up to %d text tokens); beam search adds only decoder KV per beam, which is not counted",
			rs.model.Name, r.MicroBatch, r.MicroBatch, thousands(float64(n)), rs.model.MaxContext)
	}
	r.GradAccumSteps = max(q.GradAccumSteps, 1)
	if r.Method == MethodLoRA || r.Method == MethodQLoRA {
		r.LoRARank = q.LoRARank
		if r.LoRARank == 0 && rs.model.Kind == KindDiffusion {
			r.LoRARank = defaultLoRARank
		}
		if r.LoRARank == 0 {
			r.LoRARank = defaultLoRARank
			rs.assume("LoRA rank %d on all linear layers (q, k, v, o, gate, up, down): %s adapter parameters",
				r.LoRARank, humanCount(rs.shape.loraParams(r.LoRARank)))
		}
	}
	rs.countSaid = q.GPUs > 0 || q.Nodes > 0
	if rs.gpuNamed {
		if err := rs.resolveCounts(q); err != nil {
			return err
		}
	} else {
		r.GPUs, r.Nodes = max(q.GPUs, 1), max(q.Nodes, 1)
	}
	return nil
}

func (rs *resolved) resolveTraining(q Query) error {
	r := &rs.req
	r.Optimizer = q.Optimizer
	if r.Optimizer == "" {
		r.Optimizer = OptimizerAdamW
		rs.assume("AdamW optimizer (12 bytes of state per trainable parameter: fp32 master, m and v)")
	}
	rs.assume("FlashAttention (no attention-score activations)")
	if rs.model.Kind == KindEncoder {
		rs.assume("%s fine-tuned with a classification head, as encoders usually are: no vocabulary logits (masked-LM training would add them)", rs.model.Name)
		if embeddingFamilies[rs.model.Family] && rs.model.ExtraParams == 0 { // a reranker is a cross-encoder
			// An embedding model is fine-tuned contrastively.
			rs.assume("one sequence per example: contrastive training with in-batch negatives (sentence-transformers' MultipleNegativesRankingLoss) encodes a query and a positive, and any hard negatives, per example, at least 2× these activations, and gradient accumulation does not keep its negatives; not modelled")
		}
	}
	switch {
	case q.GradCheckpointing != nil:
		r.GradCheckpointing = *q.GradCheckpointing
	case r.Method == MethodQLoRA:
		r.GradCheckpointing = true
		rs.assume("gradient checkpointing on, as QLoRA's k-bit preparation does")
	default:
		rs.assume("no gradient checkpointing")
	}
	r.Offload = q.Offload
	r.MFU = q.MFU
	if r.Offload == "" {
		r.Offload = OffloadNone
	}
	offload := r.Offload != OffloadNone
	if err := rs.resolveFineTuning(q); err != nil {
		return err
	}
	rs.resolveAlignment(q)
	r.FromScratch = q.FromScratch && r.Method == MethodFull
	r.Stack = q.Stack
	if r.Stack == StackTransformerEngine && r.Precision == PrecisionFP8 {
		rs.assume("FP8 through Transformer Engine (NeMo, Megatron-LM): the casts and scaling fused into the GEMMs, so a linear layer reaches the share of the FP8 peak a BF16 one of its width reaches of the BF16 peak (fitted to NeMo's FP8 pre-training and fine-tuning rows)")
	}
	r.FusedLoss = q.FusedLoss != nil && *q.FusedLoss
	if r.FusedLoss {
		rs.assume("fused/chunked cross-entropy (Liger, Unsloth, Cut Cross-Entropy): the full-vocabulary logits are never held, a hidden-sized chunk per token instead")
	}
	if err := rs.resolveLayout(q); err != nil {
		return err
	}
	if batchUnsaid(q) {
		r.GradAccumSteps = pipelineAccum(pipelineParallel(r))
	}
	switch {
	case q.ZeROStage != nil:
		r.ZeROStage = *q.ZeROStage
		if r.ZeROStage == 0 && offload {
			return inputErr(fmt.Sprintf("fit %s %s zero3 offload %s", r.Model, r.Method, ifEmpty(r.GPU, "a100")),
				"offload needs a ZeRO stage of 1 to 3; stage 0 keeps everything on the GPU")
		}
		if r.Offload == OffloadNVMe && r.ZeROStage < 3 {
			// DeepSpeed's docs (config-json, offload_optimizer): "nvme" is
			// for ZeRO stage 3; at stages 1-2 the optimizer lands in CPU RAM.
			r.Offload = OffloadCPU
			rs.notes = append(rs.notes, fmt.Sprintf("NVMe offload is ZeRO-3 only in DeepSpeed; at stage %d the optimizer states go to CPU RAM, so this is sized as CPU offload (host RAM below); ask zero3 for NVMe", r.ZeROStage))
		}
	case r.Offload == OffloadNVMe:
		r.ZeROStage = 3
		rs.assume("NVMe offload taken as ZeRO-3 (ZeRO-Infinity), the only stage DeepSpeed offloads to NVMe")
	case offload:
		r.ZeROStage = 2
		if rs.gpuNamed && trainingMemory(r, &rs.shape).TotalBytes > rs.gpu.MemoryBytes {
			r.ZeROStage = 3
		}
		if r.ZeROStage == 2 {
			rs.assume("offload taken as ZeRO-Offload (ZeRO-2, offload_optimizer): optimizer states, fp32 master and gradients on the host, 16-bit weights on the GPU")
		} else {
			rs.assume("offload taken as ZeRO-3 with offload_param and offload_optimizer (ZeRO-Infinity): only the layers being computed stay on the GPU")
		}
	case r.GPUs > 1 && zeroRanks(r, &rs.shape) == 1:
		rs.assume("no ZeRO: it shards across data-parallel ranks, and %s on %d GPUs leaves one (each GPU holds a different part of the model)", layoutName(r), r.GPUs)
	case r.GPUs > 1:
		r.ZeROStage = rs.lowestFittingStage()
		rs.assume("ZeRO stage %d: the lowest stage that fits on %d GPUs (stage 3 = FSDP full shard)", r.ZeROStage, r.GPUs)
	}
	if q.ZeROStage != nil && r.ZeROStage > 0 && !offload && r.GPUs > 1 && zeroRanks(r, &rs.shape) == 1 {
		rs.notes = append(rs.notes, fmt.Sprintf("ZeRO-%d shards across data-parallel ranks only, and %s on %d GPUs leaves one: it shards nothing here", r.ZeROStage, layoutName(r), r.GPUs))
	}
	if r.GPUs == 1 && r.ZeROStage > 0 {
		switch {
		case offload && r.ZeROStage == 3:
			rs.notes = append(rs.notes, fmt.Sprintf("ZeRO-3 on one GPU with %s offload is ZeRO-Infinity: weights, gradients and optimizer states live off the GPU and stream in layer by layer", r.Offload))
		case offload:
			rs.notes = append(rs.notes, fmt.Sprintf("ZeRO on one GPU with %s offload is ZeRO-Offload: the optimizer states and gradients live off the GPU", r.Offload))
		default:
			rs.notes = append(rs.notes, "ZeRO on one GPU shards nothing: the memory is the same as without it")
		}
	}
	if err := rs.resolveGlobalBatch(q); err != nil {
		return err
	}
	rs.searchLayout(q)
	if shardingStage(r) != r.ZeROStage {
		rs.assume("ZeRO-%d under a pipeline keeps each stage's weights and gradients gathered across its micro-batches (torchtitan's FSDP with PP; DeepSpeed refuses ZeRO-2/3 with pipeline parallelism): only the optimizer states are sharded", r.ZeROStage)
	}
	if batchUnsaid(q) && pipelineParallel(r) > 1 {
		rs.assume("%d micro-batches per step (4 × the %d pipeline stages), as no accumulation or global batch was said: the 1F1B bubble is (PP-1)/(4·PP·V) of the compute and the first stage holds %d micro-batches' activations; a pipeline with one micro-batch per step would idle %d of %d stages",
			r.GradAccumSteps, pipelineParallel(r), pipelineParallel(r), pipelineParallel(r)-1, pipelineParallel(r))
	}
	if hasLayout(r) {
		rs.assume("layout %s as Megatron-LM lays it out: %s", layoutName(r), layoutHow(r, &rs.shape))
	}
	if offload {
		rs.assume("host RAM is 1.5× the offloaded state (the seeds advise provisioning 1.5-2×; pinned memory fragments)")
	}
	if offload && r.Method == MethodQLoRA && r.ZeROStage == 3 {
		rs.assume("the base is offloaded as it is stored, in 4 bits: host RAM holds it, the adapters' 16-bit weights, fp32 gradients and optimizer states, not a 16-bit copy of the model")
	}
	return nil
}

// resolveGlobalBatch sets the accumulation steps from a global batch in
// tokens, or the global batch from the steps: tokens per optimizer step =
// sequence × micro-batch × accumulation steps × data-parallel GPUs.
func (rs *resolved) resolveGlobalBatch(q Query) error {
	r := &rs.req
	perStep := int64(r.SeqLen) * int64(r.MicroBatch) * int64(dataParallel(r))
	if q.GlobalBatchTokens > 0 {
		accum := int((q.GlobalBatchTokens + perStep - 1) / perStep)
		if q.GradAccumSteps > 0 && q.GradAccumSteps != accum {
			return inputErr(fmt.Sprintf("fit %s %s global batch %s tokens", r.Model, r.Method, FormatCount(q.GlobalBatchTokens)),
				"a global batch of %s tokens is %d accumulation steps of %d tokens here, not %d: say one or the other",
				thousands(float64(q.GlobalBatchTokens)), accum, perStep, q.GradAccumSteps)
		}
		r.GradAccumSteps = accum
		rs.assume("global batch of %s tokens: %d accumulation steps of %s tokens (sequence × micro-batch × %d data-parallel GPUs)",
			thousands(float64(q.GlobalBatchTokens)), accum, thousands(float64(perStep)), dataParallel(r))
	}
	r.GlobalBatchTokens = perStep * int64(r.GradAccumSteps)
	return nil
}

// lowestFittingStage picks the ZeRO stage for a multi-GPU request that did
// not say: the lowest (least communication) whose per-GPU total fits the
// card, or stage 3 when none does. Without a card it is stage 3.
func (rs *resolved) lowestFittingStage() int {
	if !rs.gpuNamed {
		return 3
	}
	r := rs.req
	for stage := 0; stage < 3; stage++ {
		r.ZeROStage = stage
		if trainingMemory(&r, &rs.shape).TotalBytes <= rs.gpu.MemoryBytes {
			return stage
		}
	}
	return 3
}

// releasedNote says what a model's released weight format costs and how
// it splits its tensors, for the answer's assumptions.
func releasedNote(m Model, s *shape, q Quant) string {
	b, _ := quantBytesPerParam(q, s.hidden)
	split := fmt.Sprintf("linear layers in %s, %.3g bits per weight; embeddings, LM head and norms in bf16", q, 8*b)
	switch {
	case q == QuantFP8:
		split = "linear layers in FP8 e4m3 with one fp32 scale per 128×128 block; embeddings, LM head and norms in bf16"
	case q == QuantMXFP4 && s.expertLinear > 0:
		split = "MoE experts in MXFP4, 4.25 bits per weight; attention, router and embeddings in bf16"
	case q == QuantMXFP4:
		split = "linear layers in MXFP4, 4.25 bits per weight; embeddings and norms in bf16"
	case q == QuantNVFP4:
		split = "linear layers in NVFP4, 4.5 bits per weight; embeddings, LM head and norms in bf16"
	}
	return fmt.Sprintf("%s ships %s: %.1f GiB of weights (%s)", m.Name, strings.ToUpper(string(q)),
		modelWeightBytes(s, q, PrecisionBF16)/(1<<30), split)
}

// humanCount writes a parameter count briefly: 41.9M, 6.74B.
func humanCount(n int64) string {
	switch {
	case n >= 999_500_000_000: // "1.03T", never "1.03e+03B"
		return fmt.Sprintf("%.3gT", float64(n)/1e12)
	case n >= 999_500_000:
		return fmt.Sprintf("%.3gB", float64(n)/1e9)
	case n >= 999_500:
		return fmt.Sprintf("%.3gM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.3gK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// resolveFineTuning takes the fine-tuning options: trained embeddings
// beside LoRA (modules_to_save) and Unsloth's offloaded checkpointing.
func (rs *resolved) resolveFineTuning(q Query) error {
	r := &rs.req
	lora := r.Method == MethodLoRA || r.Method == MethodQLoRA
	hint := fmt.Sprintf("fit %s lora modules-to-save %s", ifEmpty(r.Model, "llama-3.1-8b"), ifEmpty(r.GPU, "a100-80"))
	if q.ModulesToSave != nil && *q.ModulesToSave {
		if !lora {
			return inputErr(hint, "modules_to_save trains the embeddings and LM head beside LoRA adapters; %s training already trains them", r.Method)
		}
		r.ModulesToSave = true
		rs.assume("modules_to_save: embeddings and LM head trained in full beside the adapters (%s parameters; PEFT keeps a trainable copy next to the frozen original)", humanCount(rs.shape.embedParams()))
	}
	if q.OffloadActivations != nil && *q.OffloadActivations {
		if q.GradCheckpointing != nil && !*q.GradCheckpointing {
			return inputErr(hint, "offloaded checkpointing offloads the checkpoints; it cannot run with checkpointing off")
		}
		r.OffloadActivations, r.GradCheckpointing = true, true
		rs.assume("offloaded gradient checkpointing (Unsloth's): each layer's input waits in host RAM, the GPU keeps two")
	}
	return nil
}

// longerContextTwin is a catalog model of m's family and size (within
// 5% of its parameters) whose context holds seq tokens, the shortest such
// ("llama-3-8b" at 128k: Llama 3.1 8B); ok is false when there is none.
func longerContextTwin(m Model, seq int) (Model, bool) {
	total, _ := m.ParamCount()
	var best Model
	for _, c := range loadCatalog().models {
		if c.Family != m.Family || c.ID == m.ID || c.Kind != m.Kind || c.MaxContext < seq {
			continue
		}
		if n, _ := c.ParamCount(); math.Abs(float64(n-total)) > 0.05*float64(total) {
			continue
		}
		if best.ID == "" || c.MaxContext < best.MaxContext {
			best = c
		}
	}
	return best, best.ID != ""
}

// yarnFactor is the YaRN rope-scaling factor Qwen's model cards give for
// a longer context than the config's: 4.0 over 32,768 native tokens.
const yarnFactor = 4

// yarnModels are the catalog models whose Hugging Face model cards
// document YaRN rope scaling (factor 4) up to 131,072 tokens: the dense
// Qwen3 models from 4B up ("32,768 natively and 131,072 tokens with
// YaRN") and the Qwen2.5 Instruct models from 7B up ("Full 131,072
// tokens"). Qwen3 0.6B and Qwen2.5 up to 3B are documented at 32,768.
var yarnModels = map[string]bool{
	"qwen3-4b": true, "qwen3-8b": true, "qwen3-14b": true, "qwen3-32b": true,
	"qwen2.5-7b": true, "qwen2.5-14b": true, "qwen2.5-32b": true, "qwen2.5-72b": true,
}

// yarnContext is the longest context m takes with its documented YaRN
// rope scaling; 0 when none is documented.
func yarnContext(m Model) int {
	if yarnModels[m.ID] {
		return yarnFactor * 32768
	}
	return 0
}

// embeddingFamilies are the catalog's embedding-model families, fine-tuned
// contrastively.
var embeddingFamilies = map[string]bool{"bge": true, "e5": true, "gte": true, "nomic": true, "qwen3-embedding": true}

// perTokenBytes writes a KV cache's bytes per token: "128 KiB",
// "1.25 MiB".
func perTokenBytes(b float64) string {
	if b < 1<<20 {
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.2f MiB", b/(1<<20))
}
