package sizing

import (
	"fmt"
	"math"
	"strings"
)

const (
	// TightFraction is the share of the card below whose headroom a fit
	// is tight: the seeds advise budgeting 20-50 % beyond the model states.
	// The verdict, every alternative, the searches and the memory picture
	// use this one figure.
	TightFraction = 0.20
	// hostRAMFactor is how much host RAM fitbot asks for per byte that
	// offload moves there (the seeds: provision 1.5-2×).
	hostRAMFactor = 1.5
	// checkpointShardBytes is the most of a 16-bit checkpoint a QLoRA load
	// holds in host RAM at once: one safetensors shard (Hugging Face's
	// save_pretrained writes shards of at most 5 GB), which bitsandbytes
	// quantises to 4 bits on the GPU before the next is read.
	checkpointShardBytes = 5e9
	// maxServerRAMBytes is the most host RAM fitbot takes one machine to
	// hold: 4 TiB, the largest memory NVIDIA lists for a DGX B200 (2 TB,
	// up to 4 TB); a DGX H100 has 2 TB. CPU offload that needs more per
	// machine is said in the answer and never offered as an alternative.
	maxServerRAMBytes = 4 << 40
)

// Estimator answers sizing questions. The zero value works: no prices,
// a utilisation fitted to published runs for each model, card, sequence
// and scale.
type Estimator struct {
	Prices PriceSource // nil: no costs
	// MFU, when above zero, is one share of peak for every kernel of every
	// run instead of the fitted rates (the answer still states the MFU its
	// speed implies).
	MFU float64
	// provider is the one provider Prices are limited to (atProvider):
	// a question naming no card is answered among the cards it prices.
	provider string
	// spotOnly: Prices are spot prices only (onSpot), so a question asking
	// spot with no card named is answered among the cards sold on spot.
	spotOnly bool
}

// Footprint is a model prepared for the memory model: its architecture
// reduced to the numbers the per-GPU memory depends on. Building one costs
// a walk over the model's layers; Memory on it is arithmetic only, so
// searches over many configurations should build it once.
type Footprint struct {
	s shape
}

// NewFootprint prepares m for repeated memory estimates.
func NewFootprint(m Model) *Footprint { return &Footprint{s: shapeOf(m)} }

// Memory is the per-GPU memory of a resolved request on this model. It
// does not allocate. The card plays no part: whether it fits is
// Memory().TotalBytes <= GPU.MemoryBytes.
func (f *Footprint) Memory(r *Request) Memory {
	if f.s.diffusion != nil {
		return diffusionMemory(r, f.s.diffusion)
	}
	if r.Method == MethodInference {
		return inferenceMemory(r, &f.s)
	}
	return trainingMemory(r, &f.s)
}

// LoRAParams is the exact number of adapter parameters at rank r on all
// linear layers.
func (f *Footprint) LoRAParams(r int) int64 { return f.s.loraParams(r) }

// EstimateMemory is the per-GPU memory of a resolved request on model m;
// see Footprint for repeated use.
func EstimateMemory(r Request, m Model) Memory {
	f := Footprint{s: shapeOf(m)}
	return f.Memory(&r)
}

// Answer resolves a question and answers it: memory per GPU term by term,
// the verdict, host RAM and disk, speed and cost, warnings, and up to five
// alternatives. Input it cannot use returns an *InputError. A question
// that names a provider is priced at that provider (answerAtProvider).
func (e *Estimator) Answer(q Query) (Answer, error) {
	if q.Provider != "" && e.provider == "" {
		return e.answerAtProvider(q)
	}
	if q.Spot && q.GPU == "" && !e.spotOnly {
		if at, ok := e.onSpot(); ok {
			if a, err := at.answer(q); err != nil || a.Price != nil {
				if err == nil {
					a.Assumptions = append([]string{"spot asked: the cards ranked by their spot prices, among those with a spot offer"}, a.Assumptions...)
				}
				return a, err
			}
		}
	}
	return e.answer(q)
}

// spotPrices is a price source of spot prices only: a card with no spot
// offer has no price.
type spotPrices struct{ src SpotPriceSource }

// GPUHourPrice implements PriceSource with the spot price.
func (s spotPrices) GPUHourPrice(gpu string) (Price, bool) { return s.src.SpotGPUHourPrice(gpu) }

// SpotGPUHourPrice implements SpotPriceSource.
func (s spotPrices) SpotGPUHourPrice(gpu string) (Price, bool) { return s.src.SpotGPUHourPrice(gpu) }

// onSpot is e priced at spot prices only, choosing among the cards sold
// on spot; ok is false when e's prices know no spot.
func (e *Estimator) onSpot() (*Estimator, bool) {
	src, ok := e.Prices.(SpotPriceSource)
	if !ok {
		return nil, false
	}
	at := *e
	at.Prices, at.spotOnly = spotPrices{src}, true
	return &at, true
}

// answer is Answer at e's prices, whatever provider q names.
func (e *Estimator) answer(q Query) (Answer, error) {
	var few *FewestGPUs
	if q.Fewest && q.GPU != "" && q.GPUs == 0 && q.Nodes == 0 {
		q, few = e.fewest(q)
	}
	var lb *LargestBatch
	if q.MaxBatch {
		q, lb = e.largestBatch(q)
	}
	rs, err := resolve(q)
	if err != nil {
		return Answer{}, err
	}
	if few != nil {
		rs.assumptions = append([]string{fewestNote(few, &rs.gpu)}, rs.assumptions...)
	}
	if lb != nil {
		rs.assumptions = append([]string{largestBatchNote(lb)}, rs.assumptions...)
	}
	chosen := !rs.gpuNamed
	if chosen {
		rs.wholeMachines = rs.req.Fastest && !rs.countSaid
		e.pickGPU(rs, q.Fewest)
	}
	r := &rs.req
	mem := rs.memory(r)
	a := Answer{
		Request:      *r,
		Fits:         mem.TotalBytes <= rs.gpu.MemoryBytes,
		PerGPU:       mem,
		VRAMBytes:    rs.gpu.MemoryBytes,
		ModelName:    rs.model.Name,
		GPUName:      standInName(q.UnknownGPU, rs.gpu.Name),
		BindingTerm:  bindingTerm(mem),
		Headroom:     headroom(mem.TotalBytes, rs.gpu.MemoryBytes),
		GPUChosen:    chosen,
		Fewest:       few,
		LargestBatch: lb,
	}
	a.HostRAMBytes, a.DiskBytes = hostNeeds(r, &rs.shape)
	var warnings []string
	a.Price, warnings = e.requestPrice(r)
	if w := wiredLimitNote(&rs.gpu, mem.TotalBytes); w != "" {
		warnings = append(warnings, w)
	}
	if offloadBeyondServer(r, &rs.shape) {
		warnings = append(warnings, fmt.Sprintf("cpu offload needs %s GiB of RAM per machine, more than a server holds (4 TiB at most, a DGX B200's largest): spread it over more machines or offload to NVMe",
			Commas(a.HostRAMBytes>>30)))
	}
	var tw []string
	if rs.shape.diffusion != nil {
		// Image models: memory only; their speed (steps per second) and
		// serving are not sized, nor other cards: one that does not fit is
		// offered the same card's ways that fit.
		a.Throughput = Throughput{USDPerHour: a.Price.perHour(r.GPUs)}
		a.Alternatives = []Alternative{}
		if !a.Fits {
			a.Alternatives = e.diffusionAlternatives(q, rs)
		}
		unsized := "speed, serving capacity and alternatives are not sized for diffusion models"
		if len(a.Alternatives) > 0 {
			unsized = "speed, serving capacity and other cards are not sized for diffusion models: the ways that fit keep the asked card"
		}
		a.Warnings = append(append(rs.notes, warnings...), unsized)
		a.Assumptions = append(rs.assumptions, e.costAssumptions(r, &rs.gpu, a.Throughput, a.Price)...)
		return a, nil
	}
	a.Throughput, tw = throughput(r, &rs.shape, &rs.gpu, e.mfu(), a.Price)
	a.Measured = measured(r, &rs.gpu, a.Throughput, q.MeasuredTokensPerSecond)
	a.Job = jobCost(r, a.Throughput)
	var first []string
	if q.LinkAsked {
		first = append(first, linkNote(r, &rs.shape, &rs.gpu, a.Throughput))
	}
	if r.Method == MethodInference && rs.shape.encoderSeq > 0 {
		tw = append([]string{audioRate(a.Throughput, rs.shape.encoderSeq, r.MicroBatch)}, tw...)
	}
	switch {
	case r.Method != MethodInference:
	case servedLikeADecoder(r.Architecture):
		sp := r.spec()
		if rs.gpu.UnifiedMemory && sp.users == 0 {
			sp.users = 1 // a Mac serves its owner: the speed of one request, not of the most its memory holds
		}
		sv := serveReplica(r, &rs.shape, &rs.gpu, e.mfu(), sp, a.Price, 1)
		if lengthUnsaid(q) {
			sv.MaxModelLen = rs.chatMaxModelLen()
		}
		a.Serving = &sv
		if n := rs.tensorParallelNote(r); n != "" {
			first = append(first, n) // before the layout note: it answers "tp3 possible?"
		}
	case r.Documents > 0:
		// A batch job has no serving load: nothing to warn of.
	default:
		tw = append(tw, fmt.Sprintf("serving capacity (KV cache, concurrent requests) is sized for decoder LLMs only: not for this %s model", r.Architecture))
	}
	a.Warnings = append(append(append(first, rs.notes...), warnings...), tw...)
	if a.Warnings == nil {
		a.Warnings = []string{}
	}
	// A model that loads but leaves its serving engine no room for one
	// request is offered the ways that serve it, as one that does not fit.
	a.Alternatives = e.alternatives(rs, mem, a.Serving == nil || a.Serving.Fits)
	if r.PerMonth {
		perMonth(&a)
	}
	a.Assumptions = append(rs.assumptions, e.costAssumptions(r, &rs.gpu, a.Throughput, a.Price)...)
	if r.RunsPerMonth > 0 {
		a.Throughput.USDPerMonthOfRuns = monthOfRuns(r, a.Throughput)
		a.Assumptions = append(a.Assumptions, cadenceNote(r))
	}
	return a, nil
}

// standInName is the card's display name: the catalog card's, or, for a
// card the catalog lacks sized by its typed memory, that card's name with
// the stand-in whose speed and price the answer uses, so that the first
// line never names another card than the one asked.
func standInName(unknown, catalog string) string {
	if unknown == "" {
		return catalog
	}
	return fmt.Sprintf("%s (sized as the %s)", unknown, catalog)
}

// mfu is the fixed utilisation set on the Estimator; 0 means fitted.
func (e *Estimator) mfu() float64 { return max(e.MFU, 0) }

func (e *Estimator) price(gpu string) *Price {
	if e.Prices == nil {
		return nil
	}
	p, ok := e.Prices.GPUHourPrice(gpu)
	if !ok {
		return nil
	}
	return &p
}

// requestPrice is the price the answer is costed at: the cheapest spot
// price when the question asked for spot and one is known, else the
// cheapest price, with a warning when spot was asked and none is known.
func (e *Estimator) requestPrice(r *Request) (*Price, []string) {
	if !r.Spot || e.Prices == nil {
		return e.price(r.GPU), nil
	}
	if sp, ok := e.Prices.(SpotPriceSource); ok {
		if p, ok := sp.SpotGPUHourPrice(r.GPU); ok {
			return &p, nil
		}
	}
	p := e.price(r.GPU)
	if p == nil || p.Market == "spot" {
		return p, nil
	}
	name := r.GPU
	if g, _, err := LookupGPU(r.GPU); err == nil {
		name = g.Name
	}
	return p, []string{fmt.Sprintf("no spot price is known for the %s: the cost is at the %s price", name, marketWords(p.Market))}
}

// marketWords is a price's market as people write it: "on-demand",
// "spot", "reserved".
func marketWords(market string) string { return strings.ReplaceAll(market, "_", "-") }

func (e *Estimator) costAssumptions(r *Request, g *GPU, t Throughput, p *Price) []string {
	out := []string{speedAssumption(r, g, t, e.mfu())}
	if p != nil {
		out = append(out, fmt.Sprintf("price $%.2f per GPU-hour (%s, %s, as of %s)", p.USDPerGPUHour, p.Provider, marketWords(p.Market), p.AsOf.Format("2006-01-02")))
	}
	out = append(out, "memory in GiB (2^30 bytes), against the capacity the card reports")
	return out
}

func (rs *resolved) memory(r *Request) Memory {
	if rs.shape.diffusion != nil {
		return diffusionMemory(r, rs.shape.diffusion)
	}
	if r.Method == MethodInference {
		return inferenceMemory(r, &rs.shape)
	}
	return trainingMemory(r, &rs.shape)
}

// comfortableBytes is the most a configuration may take of a card of
// vram bytes and still leave the headroom the seeds advise: the line
// between comfortable and tight, used by the verdict, the alternatives and
// the inverse searches alike.
func comfortableBytes(vram int64) int64 { return int64(float64(vram) * (1 - TightFraction)) }

// tightNote is what an answer adds to a figure that fits only tightly.
const tightNote = "tight: under 20% headroom"

// headroom classes a fit by the share of the card left free.
func headroom(total, vram int64) Headroom {
	switch {
	case total > vram:
		return HeadroomOver
	case float64(vram-total) < TightFraction*float64(vram):
		return HeadroomTight
	}
	return HeadroomComfortable
}

// bindingTerm names the largest per-GPU term: what to shrink first.
func bindingTerm(m Memory) string {
	name, v := "weights", m.WeightsBytes
	for _, t := range []struct {
		name string
		v    int64
	}{
		{"gradients", m.GradientsBytes}, {"optimizer", m.OptimizerBytes}, {"activations", m.ActivationsBytes},
		{"kv_cache", m.KVCacheBytes}, {"overhead", m.OverheadBytes}, {"qlora_working", m.QLoRAWorkBytes},
		{"gathered_layers", m.GatheredBytes},
	} {
		if t.v > v {
			name, v = t.name, t.v
		}
	}
	return name
}

// hostNeeds is the host RAM per machine and the local disk the request
// needs. Without offload, host RAM holds one copy of the checkpoint while
// it loads, except under QLoRA: bitsandbytes quantises each shard as it
// arrives, so host RAM holds one 16-bit shard at a time
// (checkpointShardBytes) and never the whole 16-bit copy. With CPU
// offload it holds the offloaded optimizer states and the fp32 gradients
// they step on (and at stage 3 the 16-bit weights of
// what is trained and the frozen base as stored, 4-bit under QLoRA),
// times hostRAMFactor, spread over the machines: 16 B per parameter at
// stage 2 and 18 B at stage 3 for mixed-precision AdamW, DeepSpeed's own
// figures (estimate_zero2/zero3_model_states_mem_needs with zero_init;
// its stage-2 max(4·GPUs, 16) also counts per-process pinned buffers,
// which fitbot leaves out).
// Disk holds the checkpoint (16-bit, or the quantised file for inference)
// and, for NVMe offload, the offloaded state.
func hostNeeds(r *Request, s *shape) (ram, disk int64) {
	ram, disk = hostStateNeeds(r, s)
	if r.OffloadActivations {
		// The checkpointed layer inputs of every GPU in the machine.
		acts := float64(s.layers) * activationElemBytes(r.Precision) * float64(s.hidden) *
			float64(r.SeqLen) * float64(r.MicroBatch) * float64(gpusPerMachine(r))
		ram += ceilBytes(acts * hostRAMFactor)
	}
	return ram, disk
}

// hostStateNeeds is hostNeeds without offloaded activations.
func hostStateNeeds(r *Request, s *shape) (ram, disk int64) {
	ckptQuant, ckptPrec := QuantNone, PrecisionBF16
	if r.Method == MethodInference {
		ckptQuant, ckptPrec = r.Quant, r.Precision
	}
	checkpoint := modelWeightBytes(s, ckptQuant, ckptPrec)
	ram, disk = ceilBytes(checkpoint), ceilBytes(checkpoint)
	if r.Method == MethodQLoRA {
		ram = min(ram, checkpointShardBytes)
	}
	if r.Method == MethodInference || r.Offload == OffloadNone {
		return ram, disk
	}
	_, gB, oB := trainingStateBytes(r.Optimizer, r.Precision)
	if r.Precision != PrecisionPureBF16 && r.Precision != PrecisionFP32 {
		gB = 4 // the host optimizer steps on an fp32 copy of the gradients
	}
	off := (oB + gB) * float64(s.trainable(r))
	if r.Optimizer == OptimizerAdafactor {
		off += 4 * float64(s.factoredState(r))
	}
	if r.ZeROStage == 3 {
		wB, _, _ := trainingStateBytes(r.Optimizer, r.Precision)
		off += wB * float64(s.trainable(r))
		if r.Method != MethodFull {
			off += modelWeightBytes(s, r.Quant, r.Precision)
		}
	}
	perNode := off / float64(max(r.Nodes, 1))
	switch r.Offload {
	case OffloadCPU:
		ram = max(ram, ceilBytes(perNode*hostRAMFactor))
	case OffloadNVMe:
		disk += ceilBytes(perNode)
	}
	return ram, disk
}

// servedLikeADecoder reports whether a family is served as the serving
// model sizes it: a paged KV cache per request that grows with its
// tokens. Encoders keep no cache, an encoder-decoder's is cross-attention
// over a fixed encoder output, a state-space model's is a fixed state.
func servedLikeADecoder(arch string) bool {
	switch arch {
	case "", ArchDecoder, ArchVisionLanguage, ArchHybrid:
		return true
	}
	return false
}

// perMonth adds the cost per month (hoursPerMonth at the hourly price)
// to an answer and its alternatives, where they are priced.
func perMonth(a *Answer) {
	month := func(perHour *float64) *float64 {
		if perHour == nil {
			return nil
		}
		v := *perHour * HoursPerMonth
		return &v
	}
	a.Throughput.USDPerMonth = month(a.Throughput.USDPerHour)
	for i := range a.Alternatives {
		a.Alternatives[i].USDPerMonth = month(a.Alternatives[i].USDPerHour)
	}
}

// wiredLimitNote says how an Apple chip fits what its default GPU share
// does not: macOS wires two thirds to three quarters of unified memory
// for the GPU (appleGPUShare), and the
// iogpu.wired_limit_mb sysctl raises it; up to 90% of the RAM leaves the
// system room. "" on other cards, when it fits, or when 90% is not enough.
func wiredLimitNote(g *GPU, total int64) string {
	if g.UsableFraction <= 0 || total <= g.MemoryBytes {
		return ""
	}
	ram := float64(g.MemoryBytes) / g.UsableFraction
	if float64(total) > 0.9*ram {
		return ""
	}
	return fmt.Sprintf("fits if the GPU may wire more of the Mac's memory: macOS gives it %.0f%% by default; sudo sysctl iogpu.wired_limit_mb=%d raises it (%s of the %s GB, leaving the system the rest)",
		g.UsableFraction*100, int64(0.9*ram)>>20, gibString(int64(0.9*ram)), Commas(int64(math.Round(ram/(1<<30)))))
}
