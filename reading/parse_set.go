package reading

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// setMethod records a method named outright. LoRA and QLoRA together
// mean QLoRA ("qlora with lora rank 64"); any other pair is a conflict.
func (p *parser) setMethod(m sizing.Method, words string) {
	switch {
	case p.q.Method == "" || p.q.Method == m:
	case p.q.Method == sizing.MethodQLoRA && m == sizing.MethodLoRA:
		return
	case p.q.Method == sizing.MethodLoRA && m == sizing.MethodQLoRA:
		p.words[fMethod] = words
	default:
		p.claim(fMethod, false, words)
		return
	}
	p.claim(fMethod, true, words)
	p.q.Method = m
}

// setVerb records a verb that implies a method unless one is named:
// "train", "fine-tune" (full) and "run", "serve" (inference). A training
// verb wins over a serving one ("run a fine-tune").
func (p *parser) setVerb(k wordKind, words string) {
	if p.verb.v == kindTrainVerb {
		return
	}
	p.verb.v, p.verb.words = k, words
}

func (p *parser) setModel(id, note, words string) {
	if p.words[fModel] != "" && p.q.Model == "" && p.q.Experts == 0 && p.q.Params > 0 && sizeAgrees(id, float64(p.q.Params)) {
		// "a 125m gpt2": the size the model has, said first.
		p.words[fModel] += " " + words
		p.q.Model, p.q.Params = id, 0
		p.note(note)
		return
	}
	if p.words[fModel] != "" && p.q.Model != id {
		p.claim(fModel, false, words)
		return
	}
	p.claim(fModel, true, words)
	p.q.Model = id
	p.note(note)
}

func (p *parser) setGPU(id, note, words string) {
	if colab := saysColab(words); colab && p.words[fGPU] != "" || !colab && saysColab(p.words[fGPU]) {
		// "colab pro a100", "an l4 on colab": Colab is where the named
		// card runs, not a second card.
		if !colab {
			p.cards.colab, p.words[fGPU], p.q.GPU = p.words[fGPU], "", ""
		}
		id, note = p.onColab(id, words)
	}
	if setSaid(p, fGPU, &p.q.GPU, id, words) {
		if note != "" {
			p.gpuNote(note)
		}
	}
}

// nodesAsked reports whether the question asks how many machines ("how
// many a100 80gb nodes", "how many nodes"), read in the words as typed:
// the serving pass takes "how many" out of the parser's tokens.
func (p *parser) nodesAsked() bool {
	return containsFold(p.in, "many") && nodesAsk.MatchString(p.in)
}

// containsFold reports whether s holds sub, in any case: a cheap test
// before a case-blind expression is run over a whole question.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// vramAsk asks a model's GPU memory in words ("how much vram", "vram
// needed for", "how much gpu memory"; vocab.txt: vram_asked,
// vram_asked_after).
var vramAsk = regexp.MustCompile(`(?i)\bhow\s+much\s+(?:gpu\s+)?(?:` + alternation("vram_asked") + `)\b|\bvram\s+(?:` + alternation("vram_asked_after") + `)\b`)

// vramAsked reports whether the question asks a model's GPU memory in
// words (vramAsk).
func (p *parser) vramAsked() bool {
	return (containsFold(p.in, "much") || containsFold(p.in, "vram")) && vramAsk.MatchString(p.in)
}

// nodesAsk is "how many", up to four words, and a word for machines
// (vocab.txt: nodes_asked).
var nodesAsk = regexp.MustCompile(`(?i)\bhow\s+many\s+(?:\S+\s+){0,4}?(?:` + alternation("nodes_asked") + `)\b`)

// saysColab reports whether a GPU's words name Google Colab, which the
// catalog takes as its free tier's T4 when no card is named.
func saysColab(words string) bool {
	return strings.Contains(strings.ReplaceAll(keyOf(words), " ", ""), "colab")
}

// onColab is the card and note of a question that names Colab and a card
// (id, with words, the one read now): the card, and Colab's A100 is the
// 40 GB one. The note replaces the card's own.
func (p *parser) onColab(id, words string) (string, string) {
	card, colab := id, p.cards.colab
	if saysColab(words) {
		card, colab = p.q.GPU, words
	}
	p.cards.colab = colab
	note := fmt.Sprintf("%s read as where the card runs", quote(colab))
	if card == "a100-80" {
		card = "a100-40"
		note += ": Colab's A100 is the 40 GB one"
	}
	if p.cards.noteAt >= 0 && p.cards.noteAt < len(p.notes) {
		p.notes[p.cards.noteAt] = note
		note = ""
	}
	if saysColab(words) {
		p.q.GPU = card
		if note != "" {
			p.gpuNote(note)
		}
		return card, ""
	}
	return card, note
}

// setCount records a GPU count; after "N nodes of" it is per node.
func (p *parser) setCount(count int, words string) {
	if p.cards.perNode && p.q.Nodes > 0 {
		p.cards.perNode = false
		if count > sizing.MaxGPUsPerNode {
			p.fail(fmt.Sprintf("%s is more GPUs than one machine holds (the limit is %d)", quote(words), sizing.MaxGPUsPerNode),
				func(q *sizing.Query) { q.GPUs = q.Nodes * 8 })
			return
		}
		count *= p.q.Nodes
	}
	if count < 1 || count > sizing.MaxGPUs {
		p.fail(fmt.Sprintf("%s is more GPUs than I size (the limit is %d in one question)", quote(words), sizing.MaxGPUs),
			func(q *sizing.Query) { q.GPUs = 8 })
		return
	}
	setSaid(p, fGPUs, &p.q.GPUs, count, words)
}

// setSize records a bare model size ("13b", "8x7b": experts > 0).
func (p *parser) setSize(num number, experts int, words string) {
	v, ok := num.scaled(decimalUnit(num.suffix))
	switch {
	case num.neg || (ok && v <= 0) || (!ok && num.approx(1) == 0):
		p.fail(fmt.Sprintf("%s is not a model size; give a positive size such as 13b or 350m", quote(words)),
			func(q *sizing.Query) { q.Params, q.Experts = 13e9, 0 })
		return
	case !ok || v > sizing.MaxParams:
		p.fail(fmt.Sprintf("%s is more parameters than any model I size (the limit is 20T)", quote(words)),
			func(q *sizing.Query) { q.Params, q.Experts = 13e9, 0 })
		return
	case v < sizing.MinBareParams:
		p.fail(fmt.Sprintf("%s is smaller than the smallest model I size (1M parameters)", quote(words)),
			func(q *sizing.Query) { q.Params, q.Experts = 13e9, 0 })
		return
	case experts > sizing.MaxExperts:
		p.fail(fmt.Sprintf("%s has more experts than I size (the limit is %d)", quote(words), sizing.MaxExperts),
			func(q *sizing.Query) { q.Experts = 8 })
		return
	}
	if p.words[fModel] != "" && p.q.Model != "" && p.q.Params == 0 && experts == 0 && sizeAgrees(p.q.Model, float64(v)) {
		p.claim(fModel, true, words) // "phi 4 14b": the size the model already has
		return
	}
	if p.words[fModel] != "" && (p.q.Params != v || p.q.Experts != experts) {
		p.claim(fModel, false, words)
		return
	}
	p.claim(fModel, true, words)
	p.q.Params, p.q.Experts = v, experts
}

// sizeAgrees reports whether a bare size said after a catalog model is
// that model's own size, as people round it ("phi 4 14b" for Phi-4's
// 14.7B parameters): within 15% of its parameter count.
func sizeAgrees(model string, params float64) bool {
	m, _, err := sizing.LookupModel(model)
	if err != nil {
		return false
	}
	total, _ := m.ParamCount()
	return total > 0 && math.Abs(params-float64(total)) <= 0.15*float64(total)
}

func (p *parser) setSeq(num number, words string) {
	v, ok := num.scaled(contextUnit(num.suffix))
	if num.neg || !ok || v < 1 || v > sizing.MaxSeqLen {
		p.fail(fmt.Sprintf("%s is not a context length I can use (1 to %d tokens)", quote(words), sizing.MaxSeqLen),
			func(q *sizing.Query) { q.SeqLen = 4096 })
		return
	}
	if p.words[fSeq] != "" && p.q.SeqLen != int(v) && p.run.seqOther.words == "" {
		// A second length: the model's window beside the one used
		// ("128k context with 100k tokens"), or a conflict
		// (settleSeqPair).
		p.run.seqOther = said[int]{int(v), words}
		return
	}
	setSaid(p, fSeq, &p.q.SeqLen, int(v), words)
}

// nearWindow reports whether a length said is a model's window of
// window tokens: "128k" is 131072 tokens, and "128000" is near enough.
func nearWindow(v, window int) bool {
	return window > 0 && math.Abs(float64(v-window)) <= 0.03*float64(window)
}

// settleSeqPair decides two context lengths said in one question: when
// the larger is the model's window and the other fits in it, the window
// is the model's and the other the request's ("phi-3.5 mini 128k context
// with 100k tokens": a request of 100k tokens, not two lengths to
// refuse); otherwise they conflict. A window said after the
// model's name (windowAfter) is noted beside the length used, and with
// none is a number without a meaning.
func (p *parser) settleSeqPair() {
	if w := p.run.window; w.words != "" {
		m, _ := sizing.MatchModel(p.q.Model)
		if p.words[fSeq] == "" {
			p.fail(fmt.Sprintf("%s is a number without a meaning: a context length or a token budget?", quote(w.words)),
				func(q *sizing.Query) { q.SeqLen = 4096 })
		} else if p.run.seqOther.words == "" {
			p.note(fmt.Sprintf("%s read as %s's window (%d tokens), not the request's: the %d tokens of %s are sized", quote(w.words), m.Name, m.MaxContext, p.q.SeqLen, quote(p.words[fSeq])))
		}
	}
	o := p.run.seqOther
	if o.words == "" {
		return
	}
	big, small := said[int]{p.q.SeqLen, p.words[fSeq]}, o
	if small.v > big.v {
		big, small = small, big
	}
	if m, ok := sizing.MatchModel(p.q.Model); ok && p.q.Model != "" && nearWindow(big.v, m.MaxContext) {
		p.q.SeqLen, p.words[fSeq] = small.v, small.words
		p.note(fmt.Sprintf("%s read as %s's window (%d tokens), not the request's: the %d tokens of %s are sized", quote(big.words), m.Name, m.MaxContext, small.v, quote(small.words)))
		return
	}
	p.claim(fSeq, false, o.words)
}

// wholes are the fields set by a whole number in bounds: the Query's int
// (at), its bounds, the value of a Try when the number is out of them, and
// the message then (its words quoted, then lo and hi).
var wholes = [numFields]struct {
	at          func(*sizing.Query) *int
	lo, hi, try int
	format      string
}{
	fBatch:  {func(q *sizing.Query) *int { return &q.MicroBatch }, 1, sizing.MaxMicroBatch, 8, "%s is not a batch size I can use (%d to %d)"},
	fRank:   {func(q *sizing.Query) *int { return &q.LoRARank }, 1, sizing.MaxLoRARank, 16, "%s is not a LoRA rank I can use (%d to %d)"},
	fAccum:  {func(q *sizing.Query) *int { return &q.GradAccumSteps }, 1, sizing.MaxGradAccum, 8, "%s is not a number of accumulation steps I can use (%d to %d)"},
	fRes:    {func(q *sizing.Query) *int { return &q.Resolution }, MinResolution, MaxResolution, 1024, "%s is not an image size I size (%d to %d pixels)"},
	fImages: {func(q *sizing.Query) *int { return &q.Images }, 1, MaxImages, 1, "%s is not a number of images I size (%d to %d per request)"},
}

// setWhole records v (ok: a whole number was said) in field f of wholes.
func (p *parser) setWhole(f field, v int64, ok bool, words string) {
	w := wholes[f]
	if !ok || v < int64(w.lo) || v > int64(w.hi) {
		p.fail(fmt.Sprintf(w.format, quote(words), w.lo, w.hi), func(q *sizing.Query) { *w.at(q) = w.try })
		return
	}
	setSaid(p, f, w.at(&p.q), int(v), words)
}

// setNum is setWhole for a number said ("8", "1k").
func (p *parser) setNum(f field, num number, words string) {
	v, ok := num.scaled(decimalUnit(num.suffix))
	p.setWhole(f, v, ok && !num.neg, words)
}

// setGlobalBatch records a global batch in tokens ("global batch 4M
// tokens"); a bare count below 65,536 would be sequences, which fitbot
// asks to be said in tokens.
func (p *parser) setGlobalBatch(num number, words string) {
	v, ok := num.scaled(decimalUnit(num.suffix))
	switch {
	case num.neg || !ok || v > sizing.MaxTokens:
		p.fail(fmt.Sprintf("%s is not a global batch I can use", quote(words)), func(q *sizing.Query) { q.GlobalBatchTokens = 4e6 })
		return
	case v < sizing.MinGlobalBatchTokens:
		p.fail(fmt.Sprintf("%s: give the global batch in tokens, such as 4M tokens", quote(words)), func(q *sizing.Query) { q.GlobalBatchTokens = 4e6 })
		return
	}
	setSaid(p, fGlobalBatch, &p.q.GlobalBatchTokens, v, words)
}

func (p *parser) setTokens(num number, words string) {
	v, ok := num.scaled(decimalUnit(num.suffix))
	switch {
	case num.neg || (ok && v < 1):
		p.fail(fmt.Sprintf("%s is not a token budget", quote(words)), func(q *sizing.Query) { q.Tokens = 1e9 })
		return
	case !ok || v > sizing.MaxTokens:
		p.fail(fmt.Sprintf("%s is more tokens than I size (the limit is 1,000T)", quote(words)),
			func(q *sizing.Query) { q.Tokens = 1e9 })
		return
	case v < sizing.MinTokens:
		if p.run.short.words == "" {
			p.run.short = shortTokens{num, v, words} // a request's length on a serving question (finish)
		}
		return
	}
	setSaid(p, fTokens, &p.q.Tokens, v, words)
}

// docJob decides what a count of documents is: with an encoder model
// (embeddings, rerankers) and no training said, a batch job of them
// through its forward pass (Query.Job, inference); else a dataset's
// examples, read as before (a token budget).
func (p *parser) docJob() {
	d := p.run.docs
	if d.count == 0 {
		return
	}
	m, known := sizing.MatchModel(p.q.Model)
	training := p.q.Method != "" && p.q.Method != sizing.MethodInference || p.verb.v == kindTrainVerb || p.run.epochs.v > 0
	if !known || m.Kind != sizing.KindEncoder || training {
		if d.monthly != "" {
			p.unread.unused = append(p.unread.unused, d.monthly)
		}
		if d.per == 0 {
			if p.run.examples.words == "" {
				p.run.examples.v, p.run.examples.words = d.count, d.words
			}
			return
		}
		p.exampleBudget(d.count, d.per, d.words)
		return
	}
	if d.per > maxDocTokens {
		p.fail(fmt.Sprintf("%s: a document of more than %s tokens is not one I size", quote(d.words), sizing.Commas(maxDocTokens)),
			func(q *sizing.Query) { q.Job.DocTokens = sizing.JobDocTokens })
		return
	}
	if d.count > sizing.MaxTokens {
		p.fail(fmt.Sprintf("%s is more documents than I size", quote(d.words)), func(q *sizing.Query) { q.Job.Documents = 1e6 })
		return
	}
	p.q.Job = sizing.DocJob{Documents: d.count, DocTokens: int(d.per), Monthly: d.monthly != ""}
	if p.q.Method == "" {
		p.q.Method = sizing.MethodInference
		p.words[fMethod] = d.words
		if p.verb.words != "" {
			p.words[fMethod] = p.verb.words
		}
		p.verb.v = 0
	}
	// "embeddings for 10M docs": the word says the job, nothing else.
	p.unread.unused = slices.DeleteFunc(p.unread.unused, func(w string) bool { return docJobWords.has(strings.ToLower(w)) })
}

// docJobWords name a batch job of documents without a setting of their
// own: "bge-m3 embeddings for 10M docs".
var docJobWords = vocab.set("doc_job_words")

// maxDocTokens is the longest document a job is sized with (a book of
// about 750k words).
const maxDocTokens = 1 << 20

// finish applies what could only be decided once every word was read: the
// method a verb implies, what "int4" means for that method, the epochs,
// and the checks that span fields.
func (p *parser) finish() {
	p.docJob()
	if p.run.examples.words != "" && p.q.Tokens == 0 {
		seq := int64(p.q.SeqLen)
		what := "the sequence length"
		if seq == 0 {
			seq = sizing.DefaultSeqLen
			// An example is no longer than the model reads: BERT's 512.
			if m, ok := sizing.MatchModel(p.q.Model); ok && m.MaxContext > 0 && int64(m.MaxContext) < seq {
				seq, what = int64(m.MaxContext), m.Name+"'s longest sequence"
			}
		}
		total := p.run.examples.v * seq
		if total/seq != p.run.examples.v || total > sizing.MaxTokens {
			total = sizing.MaxTokens
		}
		budget, _ := parseNumber(strconv.FormatInt(total, 10))
		if total < sizing.MinTokens {
			p.note(fmt.Sprintf("%s is %s tokens at %d a sequence, too few for a training budget: not used", quote(p.run.examples.words), sizing.Commas(total), seq))
		} else {
			p.setTokens(budget, p.run.examples.words)
			p.note(fmt.Sprintf("%s taken as that many sequences of %d tokens (%s): %s tokens; say \"of 500 tokens\" for their own length",
				quote(p.run.examples.words), seq, what, strings.ToUpper(sizing.FormatCount(total))))
		}
	}
	if p.device.words != "" {
		switch {
		case p.q.GPU == "" && p.q.GPUMemoryBytes == 0:
			p.refuseDevice()
		case slices.ContainsFunc(p.toks, func(t token) bool { return connectors.has(t.key) }):
			// "tpu v5e vs h100": the device is half of what is asked;
			// sizing the card alone would drop it silently.
			p.refuseCompared()
		default:
			// "on a raspberry pi lol no, on an rtx 3050": the card named is sized.
			p.note(fmt.Sprintf("%s not used: the GPU named is sized", quote(p.device.words)))
		}
	}
	if p.q.Method == "" && p.verb.v != 0 {
		if p.verb.v == kindTrainVerb {
			p.q.Method = sizing.MethodFull
			p.note(fmt.Sprintf("%q taken as full fine-tuning (say lora or qlora for adapters)", p.verb.words))
		} else {
			p.q.Method = sizing.MethodInference
		}
		p.words[fMethod] = p.verb.words
	}
	p.readShortTokens()
	p.settleSeqPair()
	if p.weights.quantize != "" && p.weights.int4 == "" && p.q.Quant == "" && p.words[fPrecision] == "" && p.q.Method != sizing.MethodQLoRA {
		p.weights.int4 = p.weights.quantize
	}
	if p.weights.int4 != "" {
		p.resolveInt4()
	}
	p.resolveMemory()
	p.macWithoutChip()
	p.resolveEXL2()
	if p.weights.gguf != "" && p.q.Quant == "" {
		p.q.Quant = sizing.QuantQ4_KM
		p.words[fQuant] = p.weights.gguf
		p.note(fmt.Sprintf("%q taken as GGUF q4_k_m (name the type, e.g. q8_0, for another)", p.weights.gguf))
	}
	if p.deepspeed && p.q.ZeROStage == nil {
		p.q.DeepSpeed = true
		p.note("deepspeed: ZeRO data parallelism at the lowest stage that fits, no Megatron layout; say zero2 or zero3 to choose the stage")
	}
	if p.run.epochs.v > 0 {
		if p.q.Tokens == 0 {
			p.fail(fmt.Sprintf("%s: of how many tokens? write e.g. \"%d epochs of 500M tokens\"", quote(p.run.epochs.words), p.run.epochs.v),
				func(q *sizing.Query) { q.Tokens = int64(p.run.epochs.v) * 500e6 })
		} else if total := p.q.Tokens * int64(p.run.epochs.v); total > sizing.MaxTokens {
			p.fail(fmt.Sprintf("%s of %s is more tokens than I size (the limit is 1,000T)", quote(p.run.epochs.words), quote(p.words[fTokens])),
				func(q *sizing.Query) { q.Tokens = 1e9 })
		} else {
			p.note(fmt.Sprintf("%s of %s = %s tokens", p.run.epochs.words, p.words[fTokens], strings.ToUpper(sizing.FormatCount(total))))
			p.q.Tokens = total
			p.words[fTokens] = p.run.epochs.words + " " + p.words[fTokens]
		}
	}
	p.countFromLayout()
	if p.q.GPUs > 0 && p.q.Nodes > 0 {
		switch {
		case p.q.Nodes > p.q.GPUs:
			p.fail(fmt.Sprintf("%s is more machines than the %s GPUs", quote(p.words[fNodes]), quote(p.words[fGPUs])),
				func(q *sizing.Query) { q.Nodes = 1 })
		case p.q.GPUs%p.q.Nodes != 0:
			p.fail(fmt.Sprintf("%s GPUs do not split evenly over %s", quote(p.words[fGPUs]), quote(p.words[fNodes])),
				func(q *sizing.Query) { q.Nodes = 1 })
		case p.q.GPUs/p.q.Nodes > sizing.MaxGPUsPerNode:
			p.fail(fmt.Sprintf("%s GPUs over %s is more than %d per machine", quote(p.words[fGPUs]), quote(p.words[fNodes]), sizing.MaxGPUsPerNode),
				func(q *sizing.Query) { q.Nodes = (q.GPUs + 7) / 8 })
		}
	}
	if (p.cards.colab != "" || saysColab(p.words[fGPU])) && p.q.GPUs == 0 && p.q.Nodes == 0 {
		p.q.GPUs = 1 // a Colab runtime has one GPU: never the fewest of them
	}
	if p.cards.multiNode != "" && p.q.Nodes < 2 {
		p.unread.unused = append(p.unread.unused, p.cards.multiNode)
	}
	inference := p.q.Method == "" || p.q.Method == sizing.MethodInference
	p.unread.unused = reportedFigures(p.unread.unused, strings.ToLower(p.in), inference)
	if len(p.unread.unused) > 0 {
		words := make([]string, len(p.unread.unused))
		for k, w := range p.unread.unused {
			words[k] = quote(w)
		}
		p.note("not used: " + strings.Join(words, ", "))
	}
	if p.q.TensorParallel > 1 || p.q.PipelineParallel > 1 {
		p.q.ModelParallel = false // a degree says the layout, as Format writes it
	}
	p.applyMFU()
	p.applyGPUHours()
	if p.q.GPU != "" && p.q.Nodes <= 1 && p.q.Method != "" && p.q.Method != sizing.MethodInference && p.nodesAsked() {
		// "how many a100 80gb nodes do we need (8 gpus per node)": the
		// fewest machines of the card, not whether one machine of 8
		// fits.
		if p.q.GPUs > 0 {
			p.note(fmt.Sprintf("%s read as the GPUs in each machine: the fewest machines that fit are counted", quote(p.words[fGPUs])))
			p.q.GPUs, p.words[fGPUs] = 0, ""
		}
		p.q.Nodes, p.words[fNodes] = 0, "" // "per node" counts no machines
		p.q.Fewest = true
	}
	if (p.q.GPUHoursAsked || p.q.GPUHours > 0) && p.q.GPU != "" && p.q.GPUs == 0 && p.q.Nodes == 0 && p.q.Method != "" && p.q.Method != sizing.MethodInference {
		// "how many gpu hours on a100": the count is the asker's to pick,
		// so the fewest that fit as asked, never one card with offload
		// (one offloading card would count far too many A100-hours).
		p.q.Fewest = true
	}
	serving := p.q.Method == "" || p.q.Method == sizing.MethodInference
	if t := p.before.serve.tokenRate; t.per > 0 && !serving {
		p.note(fmt.Sprintf("not used: %s (a rate of tokens sizes serving; a training run's tokens are its budget)", quote(t.words)))
	} else if t.per > 0 {
		p.before.serve.settleTokenRate(p.q.SeqLen)
	}
	// "how much vram for ... 20 concurrent users" asks the memory of the
	// users at once, not the cards that serve them.
	routed := serving && slices.Contains([]sizing.Intent{sizing.IntentFit, sizing.IntentWhichGPU}, p.before.ask.intent(&p.q)) && !p.vramAsked()
	p.q.Serve = p.before.serve.settle(p.q.MicroBatch, p.cardsSaid(), routed, p.q.Fastest)
	if p.q.Serve.MaxBatch && !serving {
		// "max batch size" on a training run: its largest micro-batch.
		p.q.MaxBatch, p.q.Serve.MaxBatch = true, false
	}
	if b := p.q.Serve.BusyShare; b > 0 && !serving {
		// A training run keeps its cards busy; its cost is per run.
		p.q.Serve.BusyShare = 0
		p.note(fmt.Sprintf("not used: %q (a busy share prices serving; a training run's cost is its hours)", sizing.PercentOf(b)+" utilization"))
	}
	for _, n := range p.before.serve.settled {
		p.note(n)
	}
	p.q.PerMonth = p.before.serve.perMonth
	if p.q.Job.Documents > 0 && p.q.PerMonth {
		// "10M docs per month": the documents come each month.
		p.q.Job.Monthly, p.q.PerMonth = true, false
		if p.run.docs.monthly == "" {
			p.run.docs.monthly = "per month"
		}
	}
	if c := p.before.serve.cadence; c.Runs > 0 && serving {
		p.note(fmt.Sprintf("not used: %s (a cadence prices repeated training runs)", quote(p.before.serve.cadenceSaid)))
	} else if c.Runs > 0 {
		p.q.Cadence = c
		if p.q.PerMonth {
			p.q.PerMonth = false
			p.note(fmt.Sprintf("the cost per month is of the runs %s, not of the cards rented all month", quote(p.before.serve.cadenceSaid)))
		}
	}
	if (p.cards.plural || p.cards.fewest || p.before.serve.countAsked) && p.q.GPU != "" && p.q.GPUs == 0 && p.q.Nodes == 0 &&
		!p.q.Serve.Plan && !p.before.serve.capacity && p.before.ask.intent(&p.q) == sizing.IntentFit {
		p.q.Fewest = true // "how many a100s to full finetune a 70b": the fewest that fit
	}
	if p.cards.plural && p.before.serve.capacity && p.q.GPU != "" && p.q.GPUs == 0 && p.q.Nodes == 0 {
		p.q.Fewest = true // "cost per million tokens ... on h100s": the fewest that serve
	}
	if p.cards.fewestAsked && p.q.GPU == "" && p.q.GPUs == 0 && p.q.Nodes == 0 && !p.q.Serve.Plan && p.before.ask.intent(&p.q) == sizing.IntentFit {
		p.q.Fewest = true // "how many gpus min": the card that fits on the fewest
	}
	if p.err == nil && p.q == (sizing.Query{}) {
		words := p.text(0, len(p.toks))
		if words == "" {
			p.fail("the question is empty", nil)
		} else {
			p.fail(fmt.Sprintf("%s names no model, size, method or GPU I can size", quote(words)), nil)
		}
	}
	if p.before.ask.own && p.before.ask.intent(&p.q) != sizing.IntentBuyRent {
		// The cards to own, not whether to own them.
		p.q.Own = true
		p.note(ownNote)
	}
}

// ownNote is the assumption of a question that asks which cards to buy.
const ownNote = `to own: the cards a load needs are the same bought or rented, so they are sized as usual; a serving plan and a which-GPU list add what the cards cost to buy where fitbot knows it (say "buy or rent" and the use, e.g. 3 jobs a week of 5 h, to weigh owning against renting)`

// shortTokens is a count of tokens too small for a training budget
// ("~1k tokens"), read once the method is known.
type shortTokens struct {
	num   number
	v     int64
	words string
}

// readShortTokens reads a count of tokens under a training budget: on
// an inference or serving question it is the request's length, prompt
// and answer, as a context ("300 users, mostly short chats ~1k tokens";
// not refused as a training budget); on a training question
// it is refused, pointing at "ctx".
func (p *parser) readShortTokens() {
	st := p.run.short
	switch {
	case st.words == "":
	case p.q.Method == "" || p.q.Method == sizing.MethodInference:
		p.setSeq(st.num, st.words)
		v, _ := st.num.scaled(contextUnit(st.num.suffix))
		p.note(fmt.Sprintf("%s taken as each request's length, prompt and answer: a context of %d tokens", quote(st.words), int(v)))
	default:
		p.fail(fmt.Sprintf("%s is too small for a training budget (at least 1M tokens); for a context length write \"ctx %d\"", quote(st.words), st.v),
			func(q *sizing.Query) { q.Tokens = 0; q.SeqLen = int(min(st.v, sizing.MaxSeqLen)) })
	}
}

// countFromLayout takes the count of cards named in the plural with no
// count ("tp=8 ... on h100s") from the parallel degrees said: tensor ×
// pipeline × context parallel is one replica's cards, so "tp=8 on h100s"
// is 8 H100s, not the fewest that fit (which may be 1× H100).
func (p *parser) countFromLayout() {
	n := max(p.q.TensorParallel, 1) * max(p.q.PipelineParallel, 1) * max(p.q.ContextParallel, 1)
	if n < 2 || n > sizing.MaxGPUs || !p.cards.plural || p.cards.fewest || p.before.serve.countAsked || p.q.GPU == "" || p.q.GPUs > 0 || p.q.Nodes > 0 {
		return
	}
	var said []string
	for _, f := range []field{fTP, fPP, fCP} {
		if p.words[f] != "" {
			said = append(said, p.words[f])
		}
	}
	p.q.GPUs = n
	p.words[fGPUs] = strings.Join(said, " and ")
	p.note(fmt.Sprintf("%d GPUs taken from %s: the cards were named in the plural with no count", n, quote(p.words[fGPUs])))
}

// refuseDevice refuses a question about a device fitbot does not size
// ("gemma 2b on a raspberry pi"), whatever else went wrong in it: the
// device is what is not sized. A Try cannot keep the device, and another
// card in its place would answer another question (such as "gemma-2-2b
// lora rtx-4090"), so there is none; only a Jetson, a GPU
// with its memory typed ("jetson orin nano 8gb"), gets the question on a
// desktop GPU of that memory, which tells whether the model fits.
func (p *parser) refuseDevice() {
	problem := fmt.Sprintf("fitbot does not size %s (%s): it sizes data-centre and desktop GPUs and Apple M-series Macs", p.device.v.val, quote(p.device.words))
	named := p.err == nil && (p.q.Model != "" || p.q.Params > 0)
	try := tryNone
	switch {
	case p.device.v.n == 1 && named && p.cards.mem.v > 0:
		try = tryTypedMemory
	case p.device.v.val == cpuOnly && named && (p.q.Method == "" || p.q.Method == sizing.MethodInference):
		try = tryWhichGPU
	}
	switch try {
	case tryTypedMemory:
		problem += fmt.Sprintf("; the Try sizes a desktop GPU with the same %d GB, which says whether the model fits but not how fast it runs (%s shares its memory with its CPU)", p.cards.mem.v, p.device.v.val)
	case tryWhichGPU:
		problem += "; the memory a model needs is about the same in RAM: the Try gives it, term by term, with the cards it fits (on a CPU people usually run a 4-bit GGUF: add q4_k_m for that)"
	default:
		problem += "; no similar device is sized, so there is no similar question to offer"
	}
	p.refuse(&sizing.InputError{Problem: problem}, try, nil)
}

// refuseCompared refuses a question that weighs a device fitbot does
// not size against a GPU ("tpu v5e vs h100 for serving gemma 7b"): the
// refusal says the device is not sized, and its Try is the GPU's half
// of the question, which fitbot answers.
func (p *parser) refuseCompared() {
	gpu := orDefault(p.words[fGPU], "the GPU")
	problem := fmt.Sprintf("fitbot does not size %s (%s), so it cannot weigh it against %s: it sizes data-centre and desktop GPUs and Apple M-series Macs",
		p.device.v.val, quote(p.device.words), quote(gpu))
	try := tryNone
	if p.err == nil && (p.q.Model != "" || p.q.Params > 0) {
		try = tryCompared
		problem += fmt.Sprintf("; the Try sizes the %s half alone, with its price", quote(gpu))
	}
	p.refuse(&sizing.InputError{Problem: problem}, try, nil)
}

// deviceHint is the Try of a device refusal: the question on a GPU of
// the device's typed memory when it has one, the model's memory in all
// for a CPU (refuseDevice), the GPU's half of a comparison with the
// device (refuseCompared), else none.
func (p *parser) deviceHint() string {
	if p.try == tryCompared {
		return "fit " + sizing.Format(p.q)
	}
	q := p.q
	q.GPU, q.GPUs, q.Nodes, q.GPUMemoryBytes = "", 0, 0, 0
	if p.try == tryWhichGPU {
		return "fit " + FormatAsk(Request{Query: q, Intent: sizing.IntentWhichGPU})
	}
	return fmt.Sprintf("fit %s %dgb", sizing.Format(q), p.cards.mem.v)
}

// cardsSaid is what the question said of its cards: none, one, some
// (plural, no count) or a count.
func (p *parser) cardsSaid() cardsSaid {
	switch {
	case p.q.GPUs > 0 || p.q.Nodes > 0, p.q.Method != "" && p.q.Method != sizing.MethodInference:
		return cardsCounted
	case p.q.GPU == "" && p.q.GPUMemoryBytes == 0:
		return cardsNone
	case p.cards.plural:
		return cardsSome
	}
	return cardsOne
}

// resolveInt4 turns "int4" or "4-bit" into a scheme: NF4 for training
// (QLoRA's own 4-bit needs no extra word), GPTQ-style int4 for inference.
func (p *parser) resolveInt4() {
	switch p.q.Quant {
	case sizing.QuantGPTQ, sizing.QuantAWQ, sizing.QuantNF4, sizing.QuantNF4DQ, sizing.QuantQ4_0, sizing.QuantQ4_KM:
		return // a 4-bit scheme was named too
	case "":
	default:
		p.claim(fQuant, false, p.weights.int4)
		return
	}
	switch p.q.Method {
	case sizing.MethodQLoRA:
		return
	case sizing.MethodFull, sizing.MethodLoRA:
		p.q.Quant = sizing.QuantNF4
		p.note(fmt.Sprintf("%q taken as bitsandbytes NF4 weights for training", p.weights.int4))
	default:
		p.q.Quant = sizing.QuantGPTQ
		p.note(fmt.Sprintf("%q taken as GPTQ-style int4 weights (group size 128)", p.weights.int4))
	}
	p.words[fQuant] = p.weights.int4
}

// hint is the corrected example for a failed parse: what was understood,
// with the failing part replaced by a value that works.
func (p *parser) hint() string {
	q := p.q
	said := q != (sizing.Query{})
	if p.fix != nil {
		p.fix(&q)
	}
	if q.Model == "" && q.Params == 0 {
		q.Params, q.Experts = 13e9, 0
	}
	// The asker's own settings stay and nothing unasked is added; only a
	// question with nothing understood gets a whole example.
	if !said {
		q.Method, q.GPU = sizing.MethodLoRA, "rtx-4090"
	}
	if q.GPUs > 0 && q.Nodes > 0 && (q.Nodes > q.GPUs || q.GPUs%q.Nodes != 0) {
		q.Nodes = 0
	}
	if q.Tokens > 0 && q.Tokens < sizing.MinTokens {
		q.Tokens = 0
	}
	if p.cardGB > 0 && p.card != "" && q.UnknownGPU == "" {
		// A card the catalog lacks, of known memory: the Try types it.
		mem := fmt.Sprintf("%dgb", p.cardGB)
		if q.GPUs > 1 {
			mem = fmt.Sprintf("%dx%s", q.GPUs, mem)
		}
		q.GPU, q.GPUs, q.Nodes = "", 0, 0
		return "fit " + sizing.Format(q) + " " + mem
	}
	return "fit " + sizing.Format(q)
}

// result is the Request value of a successful parse.
func (p *parser) result() Request {
	r := Request{Query: p.q, Intent: p.before.ask.intent(&p.q), Notes: p.notes, Ignored: p.unread.ignored, Unused: p.unread.unused, Workload: p.before.ask.workload,
		Hub: p.hub, Missing: p.missing, HostRAMBytes: int64(p.cards.hostRAMGB) << 30}
	r.MethodImplied = p.q.Method != "" && p.verb.v != 0 && p.words[fMethod] == p.verb.words
	said := 0
	for _, w := range p.words {
		if w != "" {
			said++
		}
	}
	r.Fields = make([]Field, 0, said)
	for f := range numFields {
		if p.words[f] == "" {
			continue
		}
		r.Fields = append(r.Fields, Field{Name: fieldNames[f].key, Value: fieldValues[f](p.q), Words: p.words[f]})
	}
	if j := p.q.Job; j.Documents > 0 {
		r.Fields = append(r.Fields, Field{Name: "documents", Value: sizing.FormatCount(j.Documents), Words: p.run.docs.words})
		if j.Monthly {
			r.Fields = append(r.Fields, Field{Name: "documents_per_month", Value: "true", Words: p.run.docs.monthly})
		}
	}
	p.before.serve.apply(&r)
	r.Deadline, r.Money = p.before.deadline, p.before.money
	return r
}

// fieldValues write each field of a Query as Format writes it.
var fieldValues = [numFields]func(q sizing.Query) string{
	fModel: func(q sizing.Query) string {
		if q.Model != "" {
			return q.Model
		}
		return sizing.FormatSize(q.Params, q.Experts)
	},
	fMethod:    func(q sizing.Query) string { return string(q.Method) },
	fOptimizer: func(q sizing.Query) string { return string(q.Optimizer) },
	fPrecision: func(q sizing.Query) string { return string(q.Precision) },
	fQuant:     func(q sizing.Query) string { return string(q.Quant) },
	fKV:        func(q sizing.Query) string { return string(q.KVPrecision) },
	fGPU:       func(q sizing.Query) string { return q.GPU },
	fGPUs:      func(q sizing.Query) string { return strconv.Itoa(q.GPUs) },
	fNodes:     func(q sizing.Query) string { return strconv.Itoa(q.Nodes) },
	fZeRO:      func(q sizing.Query) string { return optional(q.ZeROStage, strconv.Itoa) },
	fOffload:   func(q sizing.Query) string { return string(q.Offload) },
	fSeq:       func(q sizing.Query) string { return strconv.Itoa(q.SeqLen) },
	fBatch:     func(q sizing.Query) string { return strconv.Itoa(q.MicroBatch) },
	fCkpt:      func(q sizing.Query) string { return optional(q.GradCheckpointing, strconv.FormatBool) },
	fRank:      func(q sizing.Query) string { return strconv.Itoa(q.LoRARank) },
	fTokens:    func(q sizing.Query) string { return sizing.FormatCount(q.Tokens) },
	fAccum:     func(q sizing.Query) string { return strconv.Itoa(q.GradAccumSteps) },
	fTP:        func(q sizing.Query) string { return strconv.Itoa(q.TensorParallel) },
	fPP:        func(q sizing.Query) string { return strconv.Itoa(q.PipelineParallel) },
	fCP:        func(q sizing.Query) string { return strconv.Itoa(q.ContextParallel) },
	fEP:        func(q sizing.Query) string { return strconv.Itoa(q.ExpertParallel) },
	fRes:       func(q sizing.Query) string { return strconv.Itoa(q.Resolution) },
	fImages:    func(q sizing.Query) string { return strconv.Itoa(q.Images) },
	fMFU:       func(q sizing.Query) string { return strings.TrimPrefix(sizing.FormatMFU(q.MFU), "mfu ") },
	fMeasured:  func(q sizing.Query) string { return strconv.FormatFloat(q.MeasuredTokensPerSecond, 'f', -1, 64) },
	fGPUHours:  func(q sizing.Query) string { return strconv.FormatFloat(q.GPUHours, 'f', -1, 64) },

	fGlobalBatch: func(q sizing.Query) string { return sizing.FormatCount(q.GlobalBatchTokens) },
}

// optional writes *v, or "" when v is nil.
func optional[T any](v *T, write func(T) string) string {
	if v == nil {
		return ""
	}
	return write(*v)
}

// MaxParallel is the largest tensor, pipeline, context or expert parallel
// degree a question may ask.
const MaxParallel = 1024

// setParallel records a parallel degree: "tp 8", "pp 16", "cp 2", "ep 64".
func (p *parser) setParallel(name string, num number, words string) {
	v, ok := num.scaled(1)
	if num.neg || !ok || num.suffix != "" || v < 1 || v > MaxParallel {
		p.fail(fmt.Sprintf("%s is not a %s degree I can use (1 to %d)", quote(words), strings.ToUpper(name), MaxParallel),
			func(q *sizing.Query) { q.TensorParallel = 8 })
		return
	}
	switch n := int(v); name {
	case "tp":
		setSaid(p, fTP, &p.q.TensorParallel, n, words)
	case "pp":
		setSaid(p, fPP, &p.q.PipelineParallel, n, words)
	case "cp":
		setSaid(p, fCP, &p.q.ContextParallel, n, words)
	default:
		setSaid(p, fEP, &p.q.ExpertParallel, n, words)
	}
}

// gluedParallel reads a degree glued to its key: "tp8", "pp16".
func gluedParallel(k string) (name string, num number, ok bool) {
	if len(k) < 3 || phrases[k[:2]].kind != kindParallelKey {
		return "", number{}, false // the keys of two letters: tp, pp, cp, ep
	}
	for i := 2; i < len(k); i++ {
		if !isDigit(k[i]) {
			return "", number{}, false
		}
	}
	num, ok = parseNumber(k[2:])
	return k[:2], num, ok
}

// Image sides a diffusion question may ask, in pixels.
const (
	MinResolution = 64
	MaxResolution = 8192
)

// imageSide reads an image size written as one word: "1024px" or a
// square "1024x1024"; ok is false for anything else (a rectangle is
// not read: diffusion sizes are square here).
func imageSide(key string) (int, bool) {
	if s, ok := strings.CutSuffix(key, "px"); ok && sizing.IsDigits(s) && len(s) <= 5 {
		n, _ := strconv.Atoi(s)
		return n, true
	}
	if a, b, ok := strings.Cut(key, "x"); ok && a == b && sizing.IsDigits(a) && len(a) >= 3 && len(a) <= 5 {
		n, _ := strconv.Atoi(a)
		return n, true
	}
	return 0, false
}

// MaxImages is the most images one request may carry.
const MaxImages = 256

// macWords name a Mac, not its chip.
var macWords = vocab.set("mac_words")

// macBeforeChip reports how many words at i name a Mac ("mac studio",
// "macbook pro") right before its M-series chip ("m4 max 128gb"): the
// Mac is the chip's box, read with it; 0 when no chip follows.
func (p *parser) macBeforeChip(i int) int {
	if !macWords.has(p.toks[i].key) {
		return 0
	}
	n := 1
	if i+1 < len(p.toks) && macModels.has(p.toks[i+1].key) {
		n = 2
	}
	if i+n >= len(p.toks) || p.toks[i+n].ignorable {
		return 0
	}
	w, _ := p.lookup(i+n, false)
	if w.kind != kindGPU {
		return 0
	}
	if g, _, err := sizing.LookupGPU(w.val); err != nil || g.Vendor != "apple" {
		return 0
	}
	return n
}

// macModels follow "mac" or "macbook" in a Mac's name.
var macModels = vocab.set("mac_models")

// macWithoutChip refuses a question about a Mac whose chip it does not
// name ("on my macbook pro 36gb"): the Mac's words would otherwise go
// unused and the question be sized on another GPU (an RTX card of the
// typed memory).
func (p *parser) macWithoutChip() {
	if p.err != nil {
		return
	}
	if g, _, err := sizing.LookupGPU(p.q.GPU); err == nil && g.Vendor == "apple" {
		return
	}
	for i, t := range p.toks {
		if !macWords.has(t.key) {
			continue
		}
		words := p.text(i, i+1)
		if i+1 < len(p.toks) && macModels.has(p.toks[i+1].key) {
			words = p.text(i, i+2)
		}
		gpu := "m4-max-128"
		p.fail(fmt.Sprintf("%s: which chip? name it with its memory (\"m3 16gb\", \"m4 pro 48gb\", \"m3 max 36gb\"); a Mac is sized by its Apple M-series chip", quote(words)),
			func(q *sizing.Query) { q.GPU, q.GPUs, q.Nodes, q.GPUMemoryBytes = gpu, 0, 0, 0 })
		return
	}
}
