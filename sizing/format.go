package sizing

import (
	"strconv"
	"strings"
)

// Format turns a Query into the canonical short slash-command text, which
// Parse reads back to the same Query: the model or bare size, the method,
// then the other fields that were said, in a fixed order, e.g.
// "llama-3.1-70b qlora 2xa100-80 seq 4096". Unsaid (zero) fields are left
// out, so Format(Query{}) is "".
func Format(q Query) string {
	var b strings.Builder
	b.Grow(64)
	add := func(parts ...string) {
		for _, s := range parts {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(s)
		}
	}
	switch {
	case strings.Contains(q.Model, "/"): // a Hub repo id, written as a link so that no word in it is read as a setting
		add(HubLinkPrefix + q.Model)
	case q.Model != "":
		add(q.Model)
	case q.Params > 0:
		add(FormatSize(q.Params, q.Experts))
	}
	if q.Method != "" {
		add(string(q.Method))
	}
	if q.Optimizer != "" {
		add(string(q.Optimizer))
	}
	if q.Precision != "" {
		add(string(q.Precision))
	}
	if q.Quant != "" {
		add(string(q.Quant))
	}
	if q.KVPrecision != "" {
		add("kv-" + string(q.KVPrecision))
	}
	switch {
	case q.UnknownGPU != "" && q.GPUs > 0:
		add(strings.ToLower(q.UnknownGPU), strconv.Itoa(q.GPUs), "gpus") // "2 a00" would not read as a count
	case q.UnknownGPU != "":
		add(strings.ToLower(q.UnknownGPU))
	case q.GPU != "" && q.GPUs > 0:
		add(strconv.Itoa(q.GPUs) + "x" + q.GPU)
	case q.GPU != "":
		add(q.GPU)
	case q.GPUs > 0:
		add(strconv.Itoa(q.GPUs), "gpus")
	}
	if q.GPUMemoryBytes > 0 && q.GPU != "" && q.UnknownGPU == "" {
		add(strconv.FormatInt(q.GPUMemoryBytes>>30, 10) + "gb")
	}
	switch {
	case q.Nodes == 1:
		add("1 node")
	case q.Nodes > 1:
		add(strconv.Itoa(q.Nodes), "nodes")
	}
	if q.ZeROStage != nil {
		add("zero" + strconv.Itoa(*q.ZeROStage))
	}
	switch q.Offload {
	case "":
	case OffloadNone:
		add("no-offload")
	default:
		add("offload-" + string(q.Offload))
	}
	if q.GradCheckpointing != nil {
		if *q.GradCheckpointing {
			add("ckpt")
		} else {
			add("no-ckpt")
		}
	}
	if q.SeqLen > 0 {
		if seq := strconv.Itoa(q.SeqLen); q.GPU == "" && CardNumber(seq) {
			add("seq", seq, "tokens") // "seq 4070" alone names the card
		} else {
			add("seq", seq)
		}
	}
	if q.MicroBatch > 0 {
		add("batch", strconv.Itoa(q.MicroBatch))
	}
	if q.LoRARank > 0 {
		add("rank", strconv.Itoa(q.LoRARank))
	}
	if q.Resolution > 0 {
		add(strconv.Itoa(q.Resolution) + "px")
	}
	if q.Images > 0 {
		add(strconv.Itoa(q.Images), "images")
	}
	if q.GradAccumSteps > 0 {
		add("accum", strconv.Itoa(q.GradAccumSteps))
	}
	if q.GlobalBatchTokens > 0 {
		add("global-batch", FormatCount(q.GlobalBatchTokens), "tokens")
	}
	for _, d := range []struct {
		key string
		v   int
	}{{"tp", q.TensorParallel}, {"pp", q.PipelineParallel}, {"cp", q.ContextParallel}, {"ep", q.ExpertParallel}} {
		if d.v > 0 {
			add(d.key, strconv.Itoa(d.v))
		}
	}
	switch layout := q.ModelParallel && q.TensorParallel <= 1 && q.PipelineParallel <= 1; { // a degree above 1 says it
	case layout && q.Stack == StackTransformerEngine:
		add("megatron")
	case layout:
		add("3d-parallel")
	case q.Stack != "":
		add(string(q.Stack))
	}
	if q.FusedLoss != nil && *q.FusedLoss {
		add("fused-loss")
	}
	if q.ModulesToSave != nil && *q.ModulesToSave {
		add("modules-to-save")
	}
	if q.OffloadActivations != nil && *q.OffloadActivations {
		add("offload-activations")
	}
	if q.Alignment != "" {
		add(q.Alignment)
	}
	if q.FromScratch {
		add("from", "scratch")
	}
	if q.Tokens > 0 {
		add(FormatCount(q.Tokens), "tokens")
	}
	if j := q.Job; j.Documents > 0 {
		add(FormatCount(j.Documents), "docs")
		if j.DocTokens > 0 {
			add("of", FormatCount(int64(j.DocTokens)), "tokens")
		}
		if j.Monthly {
			add("a", "month")
		}
	}
	if q.GPUHours > 0 {
		add(formatGPUHours(q.GPUHours))
	}
	if q.GPUHoursAsked {
		add("how many gpu-hours")
	}
	// The load before the flags: "cheapest" right before "gpus needed"
	// would read as the which-GPU ask and be lost.
	if s := formatServe(q.Serve); s != "" {
		add(s)
	}
	if q.Spot {
		add("spot")
	}
	if q.Provider != "" {
		add("on", q.Provider)
	}
	if q.Own {
		add("on-prem")
	}
	if q.Cheapest {
		add("cheapest")
	}
	if q.Fewest {
		add("fewest")
	}
	if q.PerMonth {
		add("monthly")
	}
	if s := q.Cadence.String(); s != "" {
		add(s)
	}
	if q.Fastest {
		add("fastest")
	}
	if q.LinkAsked {
		add("nvlink")
	}
	if q.DeepSpeed {
		add("deepspeed")
	}
	if q.MFU > 0 {
		add(FormatMFU(q.MFU))
	}
	if q.MeasuredTokensPerSecond > 0 {
		add("mfu at", strconv.FormatFloat(q.MeasuredTokensPerSecond, 'f', -1, 64), "tok/s per gpu")
	}
	if q.MaxBatch { // last: a number after it would be read as the batch
		add("max", "batch")
	}
	return b.String()
}

// formatSize writes a bare size exactly: "13b", "350m", "1.5b", "8x7b".
func FormatSize(params int64, experts int) string {
	s := FormatCount(params)
	if experts > 0 {
		return strconv.Itoa(experts) + "x" + s
	}
	return s
}

// formatCount writes a count of parameters or tokens exactly, with the
// largest suffix that keeps it short: 1500000000 is "1.5b", 350000000
// "350m", 6738415616 "6.738415616b", 999 "999".
func FormatCount(n int64) string {
	for _, u := range []struct {
		unit   int64
		suffix string
	}{{1e12, "t"}, {1e9, "b"}, {1e6, "m"}} {
		if n < u.unit {
			continue
		}
		s := strconv.FormatInt(n/u.unit, 10)
		if frac := n % u.unit; frac != 0 {
			f := strconv.FormatInt(frac+u.unit, 10)[1:] // zero-padded to the unit's digits
			s += "." + strings.TrimRight(f, "0")
		}
		return s + u.suffix
	}
	return strconv.FormatInt(n, 10)
}
