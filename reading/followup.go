package reading

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// FollowUp reads a message in the thread of an answer ("what about
// qlora on a 3090?", "and with 2 GPUs?", "in fp8", "bump context to 32k",
// "ok and for 500 users") against the request that answer was for: the
// message is read as any question is, and the slots it sets replace the
// same slots of base (a typed merge of the query, the money, the deadline,
// the workload and the host's memory); the rest of base stays. A new model
// replaces the whole model; a new card without a count is one card; a
// change of method drops the settings the new method cannot have. A
// message that sets nothing but asks about the answer again ("how long
// would that take") is base again. ok is false when the message says
// nothing a question is made of (or cannot be read), so that a thread's
// ordinary talk is left alone; the Request then holds the grammar's
// reading of the message alone, for a second reader.
func FollowUp(base Request, text string) (Request, bool) {
	text, countWords := threadCount(text, base.Query.GPU != "")
	p, err := Parse(text)
	askOnly := p.Query == (sizing.Query{}) && p.Intent != sizing.IntentFit && p.Intent != sizing.IntentLargest // "max context?"
	if err != nil && len(p.Fields) == 0 && p.Query == (sizing.Query{}) && asksAgain(text) {
		again := base
		again.Fields, again.Ignored, again.Unused = nil, p.Ignored, nil
		again.Notes = append([]string{fmt.Sprintf("read as the thread's question again (%s): the answer says its time and cost", FormatAsk(base))}, base.Notes...)
		return again, true
	}
	slots := requestSlots(p)
	if slots != nil && len(p.Fields) == 0 && p.Query == (sizing.Query{}) {
		err = nil // "and with a $5k budget?": the model and card are the thread's
	}
	if (err != nil || len(p.Fields) == 0 && p.Query == (sizing.Query{}) && slots == nil) && !askOnly {
		return p, false
	}
	baseQ := base.Query
	said := p.Query
	if gb, ok := typedGB(keyOf(fieldWords(p, "gpu"))); ok && baseQ.GPU != "" {
		// "on my 16gb card": the memory of the thread's card.
		if card, err := Parse(fmt.Sprintf("%s %dgb", baseQ.GPU, gb)); err == nil {
			said.GPU, said.GPUMemoryBytes = card.Query.GPU, card.Query.GPUMemoryBytes
		}
	}
	q := baseQ
	merge(&q, said)
	if said.Model != "" || said.Params != 0 || said.Arch != nil {
		q.Model, q.Params, q.Experts, q.Arch = said.Model, said.Params, said.Experts, said.Arch
	}
	if m, ok := sameFamilySize(baseQ.Model, said); ok {
		// "what about 14b?" in a Qwen2.5 7B thread is Qwen2.5 14B.
		q.Model, q.Params = m.ID, 0
		p.Notes = append(p.Notes, fmt.Sprintf("%s taken as %s, the thread's model at that size", strings.ToUpper(sizing.FormatSize(said.Params, 0)), m.Name))
	}
	if said.Cheapest && said.GPU == "" {
		// "cheapest?": the cheapest card that fits, whichever it is.
		q.GPU, q.GPUs, q.Nodes, q.GPUMemoryBytes = "", 0, 0, 0
	}
	if said.GPU != "" {
		q.GPUMemoryBytes = said.GPUMemoryBytes
		if said.GPUs == 0 && said.Nodes == 0 {
			q.GPUs, q.Nodes = 0, 0
		}
	}
	if q.GPUs > 0 || q.Nodes > 0 || q.GPU == "" {
		q.Fewest = false // "what about 8 of them?" in a count ask's thread: those 8
	}
	var dropped string
	if said.Method != "" && said.Method != baseQ.Method {
		dropped = dropForMethod(&q, baseQ, said)
	}
	if said.GPU != "" && said.GPU != baseQ.GPU && baseQ.MeasuredTokensPerSecond > 0 && said.MeasuredTokensPerSecond == 0 {
		q.MeasuredTokensPerSecond = 0
		dropped = strings.TrimPrefix(dropped+"; the speed measured on the thread's card does not carry over to another", "; ")
	}
	intent := followIntent(base.Intent, p.Intent, said, q)
	changed := make([]string, 0, len(p.Fields)+2)
	for _, f := range p.Fields {
		w := f.Words
		if f.Name == fieldNames[fGPUs].key && countWords != "" {
			w = countWords
		}
		changed = append(changed, fmt.Sprintf("%q", w))
	}
	if said.Spot && !baseQ.Spot {
		changed = append(changed, `"spot"`)
	}
	if said.Cheapest && !baseQ.Cheapest {
		changed = append(changed, `"cheapest": the cheapest card that fits`)
	}
	if askOnly && slots == nil {
		changed = append(changed, "the question to "+strings.ReplaceAll(string(p.Intent), "_", " "))
	}
	changed = append(changed, slots...)
	note := fmt.Sprintf("read with the thread's question (%s), changing %s", FormatAsk(base), strings.Join(changed, ", "))
	if dropped != "" {
		note += "; " + dropped
	}
	p.Notes = append([]string{note}, p.Notes...)
	p.Query, p.Intent = q, intent
	mergeRequest(&p, base)
	return p, true
}

// followIntent is the kind of question a follow-up asks: the one its
// own words ask ("max context?", "ok and for 500 users"), else the
// thread's ("and with 8 of them?" in a which-GPU thread still asks which
// GPU), unless what the message changed is what the thread's kind of
// question leaves open: a model in a largest-model thread, a card in a
// which-GPU thread, a context length in a longest-context thread and a
// training method in a serving thread ask whether that fits. asked is
// the message's own intent, said its query and q the merged query.
func followIntent(thread, asked sizing.Intent, said, q sizing.Query) sizing.Intent {
	intent := asked
	if asked == sizing.IntentFit && thread != "" {
		intent = thread
	}
	inference := q.Method == "" || q.Method == sizing.MethodInference
	switch {
	case intent == sizing.IntentLargest && (q.Model != "" || q.Params != 0 || q.Arch != nil),
		intent == sizing.IntentWhichGPU && asked == sizing.IntentFit && said.GPU != "",
		intent == sizing.IntentMaxContext && asked == sizing.IntentFit && said.SeqLen != 0,
		intent == sizing.IntentServe && !inference:
		intent = sizing.IntentFit
	}
	if intent == sizing.IntentFit && inference && (q.Serve.Plan || q.Serve.Targets()) {
		intent = sizing.IntentServe // "in fp8" in a serving plan's thread plans again in fp8
	}
	return intent
}

// mergeRequest puts into a follow-up's reading p the slots of the
// thread's request base that p does not set: the money, the deadline,
// the buy-or-rent workload (field by field) and the host's memory.
func mergeRequest(p *Request, base Request) {
	if p.Money == (Money{}) {
		p.Money = base.Money
	}
	if p.Deadline == (Deadline{}) {
		p.Deadline = base.Deadline
	}
	if p.HostRAMBytes == 0 {
		p.HostRAMBytes = base.HostRAMBytes
	}
	w := base.Workload
	mergeFields(reflect.ValueOf(&w).Elem(), reflect.ValueOf(p.Workload))
	p.Workload = w
}

// requestSlots are the words of the slots of p outside its query that
// the message set (a budget, a price, a deadline, the host's memory, a
// workload), quoted; nil when none.
func requestSlots(p Request) []string {
	var said []string
	for _, w := range []string{p.Money.BudgetWords, p.Money.PriceWords, p.Deadline.Words} {
		if w != "" {
			said = append(said, fmt.Sprintf("%q", w))
		}
	}
	if p.HostRAMBytes != 0 {
		said = append(said, "the host's memory")
	}
	if p.Workload != (sizing.Workload{}) {
		said = append(said, "the workload")
	}
	return said
}

// asksAgain reports whether a message asks about the thread's answer
// itself ("how long would that take", "how fast"): a phrase of the
// vocabulary's set again.
func asksAgain(text string) bool {
	toks, err := lex(text)
	if err != nil {
		return false
	}
	for i := range toks {
		if vocab.phraseAt("again", toks, i) {
			return true
		}
	}
	return false
}

// fieldWords are the words that gave a field of p, "" when it was not said.
func fieldWords(p Request, name string) string {
	for _, f := range p.Fields {
		if f.Name == name {
			return f.Words
		}
	}
	return ""
}

// merge sets every field of dst that src says (is not zero): the fields
// of Query are merged by reflection, so new fields take part as they
// are added.
func merge(dst *sizing.Query, src sizing.Query) {
	mergeFields(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src))
}

// mergeFields sets every field of d that s says; a struct field (the
// serving load) merges field by field, so "ttft 500ms" keeps the
// thread's prompt and output lengths.
func mergeFields(d, s reflect.Value) {
	for i := range s.NumField() {
		f := s.Field(i)
		switch {
		case f.IsZero():
		case f.Kind() == reflect.Struct:
			mergeFields(d.Field(i), f)
		default:
			d.Field(i).Set(f)
		}
	}
}

// threadCount turns a count that points at the thread's card ("2 of
// them", "4 of those", "2x?", "a couple of those") into a GPU count the
// parser reads ("2 gpus"), when the thread has a card; it returns the
// text to parse and the words it replaced ("" when none).
func threadCount(text string, haveGPU bool) (string, string) {
	if !haveGPU {
		return text, ""
	}
	m := threadCountRE.FindStringSubmatchIndex(text)
	if m == nil {
		return text, ""
	}
	n := text[m[2]:m[3]]
	words := strings.Fields(n)
	if w := phrases[keyOf(words[len(words)-1])]; w.kind == kindCount { // "a couple": the count word's n
		n = strconv.Itoa(w.n)
	}
	return text[:m[0]] + n + " gpus" + text[m[1]:], strings.TrimSpace(text[m[0]:m[1]])
}

// threadCountRE finds a count of the thread's cards: a number or a word
// for one, followed by "of them/those/these (cards/GPUs)" or by "x" alone
// (vocab.txt: thread_count_pair, thread_count, thread_pronoun).
var threadCountRE = regexp.MustCompile(`(?i)\b(\d{1,5}|a (?:` + alternation("thread_count_pair") + `)|` + alternation("thread_count") + `)\s*(?:(?:of\s+)?(?:` +
	alternation("thread_pronoun") + `)(?:\s+(?:cards?|gpus?))?|x)(?:\s|$|[?.!,])`)

// dropForMethod removes what the thread's question said that the newly
// said method cannot have: training settings for inference, adapters
// for full fine-tuning, serving formats for training, and a serving load
// (users, requests, targets) for training. What the message itself said
// stays. It says what it dropped that a person would miss, "" when
// nothing.
func dropForMethod(q *sizing.Query, base, said sizing.Query) (dropped string) {
	if base.Method == sizing.MethodInference && said.Method != sizing.MethodInference {
		if base.MicroBatch > 0 && said.MicroBatch == 0 {
			dropped = fmt.Sprintf("the %d concurrent users of the serving question do not carry over to training (batch 1 per GPU)", base.MicroBatch)
			if base.MicroBatch == 1 {
				dropped = "the one concurrent user of the serving question does not carry over to training (batch 1 per GPU)"
			}
			q.MicroBatch = 0
		}
		if said.Serve == (sizing.ServeLoad{}) && q.Serve != (sizing.ServeLoad{}) {
			if dropped == "" {
				dropped = "the serving load and targets do not carry over to training"
			}
			q.Serve = sizing.ServeLoad{}
		}
	}
	// merge gave q each setting the message said; what it did not say
	// the new method cannot have.
	switch said.Method {
	case sizing.MethodInference:
		q.Optimizer, q.LoRARank, q.ZeROStage, q.Offload = said.Optimizer, said.LoRARank, said.ZeROStage, said.Offload
		q.GradCheckpointing, q.GradAccumSteps, q.Tokens = said.GradCheckpointing, said.GradAccumSteps, said.Tokens
		if said.Quant == "" && (q.Quant == sizing.QuantNF4 || q.Quant == sizing.QuantNF4DQ) {
			q.Quant = ""
		}
	default:
		if said.Method == sizing.MethodFull {
			q.LoRARank = said.LoRARank
		}
		if said.Quant == "" && q.Quant != "" && (said.Method == sizing.MethodFull || said.Method == sizing.MethodLoRA || q.Quant != sizing.QuantNF4 && q.Quant != sizing.QuantNF4DQ) {
			q.Quant = "" // full and LoRA train a 16-bit base; QLoRA brings its own 4-bit one
		}
		q.KVPrecision = said.KVPrecision
	}
	return dropped
}

// sizeInID is the size in a catalog model id ("7b" in "qwen2.5-7b").
var sizeInID = regexp.MustCompile(`(^|-)(\d+(\.\d+)?[bm])(-|$)`)

// sameFamilySize is the catalog model of the thread's model family and
// generation at the bare size a follow-up says ("14b" after qwen2.5-7b:
// qwen2.5-14b), found by putting the size in the thread model's id; ok
// is false when the follow-up names a model or the catalog has no such.
func sameFamilySize(base string, said sizing.Query) (sizing.Model, bool) {
	if base == "" || said.Model != "" || said.Params == 0 || said.Experts != 0 {
		return sizing.Model{}, false
	}
	loc := sizeInID.FindStringSubmatchIndex(base)
	if loc == nil {
		return sizing.Model{}, false
	}
	id := base[:loc[4]] + sizing.FormatSize(said.Params, 0) + base[loc[5]:]
	if m, ok := sizing.MatchModel(id); ok && m.ID == id {
		return m, true
	}
	return sizing.Model{}, false
}
