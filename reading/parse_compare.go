package reading

import (
	"regexp"
	"slices"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// Comparison is a question that weighs two options of one setting: two
// cards ("h100 or h200 for serving llama 3.1 70b", "13b lora 4090 h100"),
// two training methods ("lora vs full finetune for llama 3.1 8b"), two
// weight formats ("fp8 vs int4 awq for llama 3 70b") or two KV-cache
// precisions ("fp8 kv vs bf16 kv").
// Each option is the same question with the other option left out, so
// that each reads, and is answered, as a question of its own.
type Comparison struct {
	// Setting is what the options differ in: "gpu" (the card, its count
	// or its memory), "method", "model" (two models joined by a
	// connector: "llama 3.1 8b vs mistral 7b"), "zero_stage", "format"
	// (the weights' quantisation or precision: "fp8 vs awq", "int4 or
	// int8", "bf16 vs fp8") or "kv_cache_precision" ("fp8 kv vs bf16 kv").
	Setting string              `json:"setting,omitempty"`
	Options [2]ComparisonOption `json:"options,omitempty"`
	// Figure is the figure the question compares them by ("which is
	// cheaper per run"); FigureUnsaid when it names none.
	Figure Figure `json:"figure,omitempty"`
}

// ComparisonOption is one side of a comparison.
type ComparisonOption struct {
	Words string `json:"words,omitempty"` // the asker's words for the option: "a100 40gb", "full finetune"
	Text  string `json:"text,omitempty"`  // the question with this option alone: the other option, the comparison and figure words left out
	// One is true when an article said the option is one card: "an h100
	// and two l40s", "a single 4090 or".
	One bool `json:"one,omitempty"`
}

// Figure is what a comparison is asked to compare by.
type Figure string

// The figures a comparison may ask for.
const (
	FigureUnsaid                        Figure = ""
	FigurePerRun                        Figure = "usd_per_run"                   // "per run": a training run's cost
	FigurePerUser                       Figure = "usd_per_user_month"            // "per user": serving's cost a month per concurrent user
	FigurePerMillionOut                 Figure = "usd_per_million_output_tokens" // "per million tokens": serving's cost per 1M output tokens
	FigurePerMonth                      Figure = "usd_per_month"                 // "per month", "monthly"
	FigurePerHour                       Figure = "usd_per_hour"                  // "per hour", "hourly"
	FigureSpeed                         Figure = "tokens_per_second"             // "faster", "speed": tokens/s (decode at batch 1 for inference), higher is better
	FigureMemory                        Figure = "memory_per_gpu"                // "fits better", "less memory": memory per GPU on the cards as asked, lower is better
	FigureThroughput                    Figure = "output_tokens_per_second"      // "throughput": serving's output tokens/s of a replica at capacity (training's tokens/s), higher is better
	FigureUsers                         Figure = "concurrent_users"              // "more users", "how many users": the requests served at once, higher is better
	maxOptionTokens                            = 6                               // the longest option: "2 x nvidia a100 40 gb"
	settingGPU, settingMt, settingModel        = "gpu", "method", "model"
	settingZeRO                                = "zero_stage"
	settingFormat, settingKV                   = "format", "kv_cache_precision"
)

// zeroPair is two ZeRO stages with the word said once ("zero stage 2 vs
// 3", "stage 2 or 3"): written as two options that read alone ("zero2 vs
// zero3"), so the bare "3" is not refused.
var zeroPair = regexp.MustCompile(`(?i)\b(?:zero[ -]?stage|zero|stage|z)[ -]?([0-3])\s+(vs\.?|versus|or|against)\s+(?:(?:zero[ -]?stage|zero|stage|z)[ -]?)?([0-3])\b`)

// ParseComparison reads a question that compares two cards or two
// training methods, and reports false for any other. The options are
// joined by "vs", "versus", "or", "against", "compared to/with" or
// "between ... and ...", or, for two cards, simply written one after
// the other ("13b lora 4090 h100"); each option's question must read on
// its own, name a model, and differ. A question with two cards that is not a
// comparison (the same card twice, a card and a memory size) is left
// to Parse, which refuses two cards as ever.
func ParseComparison(input string) (Comparison, bool) {
	input = zeroPair.ReplaceAllString(input, "zero$1 $2 zero$3")
	toks, err := lex(input)
	if err != nil || len(toks) < 3 {
		return Comparison{}, false
	}
	figure, figFrom, figTo := comparisonFigure(toks)
	// The options' questions leave out the words that say what is
	// compared: the figure, "cheaper" (which of the two) and "difference".
	var drops [][2]int
	if figTo > figFrom {
		drops = append(drops, [2]int{figFrom, figTo})
	}
	rent := slices.ContainsFunc(toks, func(t token) bool { // "buy or rent", "buy-vs-cloud", "worth it vs renting"
		return rentedWords.has(t.key) || buyWords.has(t.key) && !buyOnlyWords.has(t.key)
	})
	for i, t := range toks {
		if compareDrops.has(t.key) && (i < figFrom || i >= figTo) {
			drops = append(drops, [2]int{i, i + 1})
		}
		// "4090 or a6000 to buy" weighs the cards, not owning one against
		// renting it: each option is asked without "buy".
		if buyOnlyWords.has(t.key) && !rent {
			drops = append(drops, [2]int{i, i + 1})
		}
	}
	key := keysOf(toks)
	for c := range toks {
		n := connectorAt(toks, key, c)
		if n == 0 {
			continue
		}
		if cmp, ok := compareAround(input, toks, c, n, drops); ok {
			cmp.Figure = figure
			return cmp, true
		}
	}
	// Two cards side by side: only where the whole reads as two cards.
	if _, err := Parse(input); err == nil || !strings.HasPrefix(err.Error(), "two GPUs in one question") {
		return Comparison{}, false
	}
	for b := 1; b < len(toks); b++ {
		if cmp, ok := compareAt(input, toks, b, b, 0, drops); ok {
			cmp.Figure = figure
			return cmp, true
		}
	}
	return Comparison{}, false
}

// ParseTooManyOptions reads a comparison of more than two options ("h100
// vs h200 vs b200 for ..."): it reports the question with the last
// option and its connector left out, which ParseComparison reads as a
// comparison of two, and the words left out; ok is false when input is
// not such a question.
func ParseTooManyOptions(input string) (kept, left string, ok bool) {
	toks, err := lex(input)
	if err != nil {
		return "", "", false
	}
	last, connectorsSeen, key := -1, 0, keysOf(toks)
	for c := range toks {
		if connectorAt(toks, key, c) > 0 {
			last = c
			connectorsSeen++
		}
	}
	if connectorsSeen < 2 {
		return "", "", false
	}
	n := connectorAt(toks, key, last)
	for m := 1; m <= 3 && last+n+m <= len(toks); m++ {
		from, to := toks[last].start, toks[last+n+m-1].end
		kept = strings.Join(strings.Fields(input[:from]+" "+input[to:]), " ")
		if _, ok := ParseComparison(kept); ok {
			return kept, input[toks[last+n].start:to], true
		}
	}
	return "", "", false
}

// connectorAt reports how many tokens the connector at c covers (the
// connector slot rows of vocab.txt: "vs", "compared to", "faster than"),
// or 1 for "and" after a "between" or "compare"; 0 when none. key reads
// the keys of toks.
func connectorAt(toks []token, key func(int) string, c int) int {
	if n := slotLen(connectorSlot, key, c); n > 0 {
		return n
	}
	if andWords.has(toks[c].key) {
		for j := c - 1; j >= 0 && j >= c-maxOptionTokens-1; j-- {
			if andOpeners.has(toks[j].key) {
				return 1
			}
		}
	}
	return 0
}

// compareAround finds the options on either side of the connector at c
// (n tokens): the longest option ending just before it and the longest
// starting just after it, fillers ("an", "the") around them aside.
func compareAround(input string, toks []token, c, n int, drops [][2]int) (Comparison, bool) {
	dropped := func(i int) bool {
		return slices.ContainsFunc(drops, func(d [2]int) bool { return d[0] <= i && i < d[1] })
	}
	le := c
	for le > 0 && (isFiller(toks[le-1]) || dropped(le-1)) { // "is a b200 worth it vs"
		le--
	}
	rs := c + n
	for rs < len(toks) && (isFiller(toks[rs]) || dropped(rs)) {
		rs++
	}
	if le == 0 || rs >= len(toks) {
		return Comparison{}, false
	}
	return compareAt(input, toks, le, rs, c, drops)
}

// compareAt reads the options ending at token le and starting at rs (the
// connector, if any, between them) and builds each option's question,
// the tokens in drops left out.
func compareAt(input string, toks []token, le, rs, c int, drops [][2]int) (Comparison, bool) {
	ls, lq, lset := longestOption(input, toks, le, true)
	re, rq, rset := longestOption(input, toks, rs, false)
	left, right := span(input, toks, ls, le), span(input, toks, rs, re)
	leftWith, rightWith := left, right
	// "fp8 vs bf16 kv cache": a bare precision against a KV-cache
	// precision is a KV-cache precision too, and its question says so.
	if bare := (optionOf{precision: lq.precision}); lset == settingFormat && rset == settingKV && lq == bare {
		lset, lq, leftWith = settingKV, optionOf{kv: lq.precision}, left+" kv cache"
	}
	if bare := (optionOf{precision: rq.precision}); rset == settingFormat && lset == settingKV && rq == bare {
		rset, rq, rightWith = settingKV, optionOf{kv: rq.precision}, right+" kv cache"
	}
	if lset == "" || lset != rset || lq == rq {
		return Comparison{}, false
	}
	from, to := ls, re
	if c > 0 && andWords.has(toks[c].key) {
		for from > 0 && !andOpeners.has(toks[from-1].key) {
			from--
		}
		if from == 0 {
			return Comparison{}, false
		}
		from--
	}
	cut := func(with string) string {
		edits := []edit{{toks[from].start, toks[to-1].end, with}}
		for _, d := range drops {
			if d[1] <= from || d[0] >= to {
				edits = append(edits, edit{toks[d[0]].start, toks[d[1]-1].end, ""})
			}
		}
		return splice(input, edits)
	}
	saysOne := func(start int) bool { return start > 0 && oneWords.has(toks[start-1].key) }
	cmp := Comparison{Setting: lset, Options: [2]ComparisonOption{{Words: left, Text: cut(leftWith), One: saysOne(ls)}, {Words: right, Text: cut(rightWith), One: saysOne(rs)}}}
	var qs [2]sizing.Query
	for i, o := range cmp.Options {
		p, err := Parse(o.Text)
		hub := p.Hub != "" || p.Missing.Words != "" // a model for the Hub: resolved with each option
		if err != nil && !hub || p.Query.Model == "" && p.Query.Params == 0 && !hub {
			return Comparison{}, false
		}
		qs[i] = p.Query
	}
	if qs[0] == qs[1] {
		return Comparison{}, false
	}
	return cmp, true
}

// edit replaces input[start:end] with with.
type edit struct {
	start, end int
	with       string
}

// splice applies non-overlapping edits to input and tidies the spaces
// they leave.
func splice(input string, edits []edit) string {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		b.WriteString(input[pos:e.start])
		b.WriteString(e.with)
		pos = e.end
	}
	b.WriteString(input[pos:])
	return strings.Join(strings.Fields(b.String()), " ")
}

// optionOf is what an option sets: its setting, and the query fields of
// that setting.
type optionOf struct {
	gpu         string
	gpus, nodes int
	memory      int64
	method      sizing.Method
	model       string
	params      int64
	experts     int // a bare mixture's experts: "8x7b"
	stage       int // a ZeRO stage: "zero2"
	quant       sizing.Quant
	precision   sizing.Precision
	kv          sizing.Precision // a KV-cache precision: "fp8 kv"
}

// longestOption finds the longest option that ends at token at (before
// is true) or starts there, within maxOptionTokens: its other end, what
// it sets and its setting ("" when none reads there).
func longestOption(input string, toks []token, at int, before bool) (int, optionOf, string) {
	for k := maxOptionTokens; k >= 1; k-- {
		from, to := at-k, at
		if !before {
			from, to = at, at+k
		}
		if from < 0 || to > len(toks) || isFiller(toks[from]) || isFiller(toks[to-1]) {
			continue
		}
		if o, set := optionIn(span(input, toks, from, to), toks[from]); set != "" {
			if before {
				return from, o, set
			}
			return to, o, set
		}
	}
	return at, optionOf{}, ""
}

// optionIn reads words alone as one option: a card (named, with its count
// or memory; not a memory alone), a training method, a ZeRO stage, a
// model, a weight format or a KV-cache precision, every word used.
func optionIn(words string, first token) (optionOf, string) {
	if strings.ContainsAny(words, ",;") {
		return optionOf{}, ""
	}
	p, err := Parse(words)
	if err != nil || len(p.Ignored) > 0 || len(p.Fields) == 0 {
		return optionOf{}, ""
	}
	names := make([]string, len(p.Fields))
	for i, f := range p.Fields {
		names[i] = f.Name
	}
	q := p.Query
	o := optionOf{gpu: q.GPU, gpus: q.GPUs, nodes: q.Nodes, memory: q.GPUMemoryBytes, method: q.Method}
	switch {
	case slices.Contains(names, "gpu") && subset(names, "gpu", "gpus", "nodes"):
		if _, typed := typedGB(first.key); typed {
			return optionOf{}, "" // "40gb" alone is a memory, not a card
		}
		return optionOf{gpu: o.gpu, gpus: o.gpus, nodes: o.nodes, memory: o.memory}, settingGPU
	case subset(names, "method") && !p.MethodImplied && (q.Method == sizing.MethodFull || q.Method == sizing.MethodLoRA || q.Method == sizing.MethodQLoRA):
		return optionOf{method: o.method}, settingMt
	case subset(names, "zero_stage") && q.ZeROStage != nil:
		return optionOf{stage: *q.ZeROStage}, settingZeRO
	case subset(names, "model") && (q.Model != "" || q.Params != 0):
		return optionOf{model: q.Model, params: q.Params, experts: q.Experts}, settingModel
	case subset(names, "quant", "precision") && (q.Quant != "" || q.Precision != ""):
		// A weight format: "fp8", "int4 awq", "gguf q4_k_m", "4-bit".
		return optionOf{quant: q.Quant, precision: q.Precision}, settingFormat
	case subset(names, "kv_cache_precision") && q.KVPrecision != "":
		return optionOf{kv: q.KVPrecision}, settingKV
	}
	return optionOf{}, ""
}

// subset reports whether every name is one of allowed.
func subset(names []string, allowed ...string) bool {
	for _, n := range names {
		if !slices.Contains(allowed, n) {
			return false
		}
	}
	return true
}

// isFiller reports whether a token is question phrasing ("an", "the",
// "on") that may stand around an option.
func isFiller(t token) bool {
	return t.ignorable || phrases[t.key].kind == kindFiller && !connectors.has(t.key) && !andWords.has(t.key)
}

// valueWordsAt finds words that weigh what the work costs without naming
// a figure ("price/perf", "price-performance", "bang for the buck",
// "value for money", "worth it"): the tokens [from, to) they cover, or
// 0, 0.
func valueWordsAt(toks []token) (from, to int) {
	raw := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return strings.ToLower(strings.Trim(toks[i].raw, ",.;:?!()"))
	}
	for i := range toks {
		if n := slotLen(valueWordsSlot, raw, i); n > 0 {
			return i, i + n
		}
	}
	return 0, 0
}

// comparisonFigure finds the figure a question compares by ("cheaper per
// million tokens": the cost per 1M output tokens) and the tokens that
// say it, which the options' questions leave out; FigureUnsaid and an
// empty span when none is said.
func comparisonFigure(toks []token) (Figure, int, int) {
	key := keysOf(toks)
	for i, t := range toks {
		if !throughputWords.has(t.key) {
			continue
		}
		// "throughput" says which speed, whatever else is said: "which is
		// faster for throughput" weighs the output at capacity, and the
		// speed words just before it go with it.
		from := i
		for j := i - 1; j >= 0 && j >= i-3; j-- {
			if speedWords.has(toks[j].key) {
				from = j
			}
		}
		return FigureThroughput, from, i + 1
	}
	for i, t := range toks {
		if !figureUsers.has(t.key) {
			continue
		}
		from := i
		if from > 0 && concurrentWord.has(toks[from-1].key) {
			from--
		}
		if from > 0 && moreWords.has(toks[from-1].key) {
			// "how many more users", "which serves more concurrent users":
			// the users served at once ("50 users" is a load, "cost per
			// concurrent user" a cost).
			from--
			for from > 0 && (moreWords.has(toks[from-1].key) || howWords.has(toks[from-1].key)) {
				from--
			}
			return FigureUsers, from, i + 1
		}
	}
	if from, to := valueWordsAt(toks); to > from {
		// "price/perf", "bang for buck", "worth it": the cost of the work,
		// the default figure, not two GPUs to refuse.
		return FigureUnsaid, from, to
	}
	for i, t := range toks {
		if tpsUnits.has(strings.ToLower(strings.Trim(t.raw, ",.;:?!()"))) && (i == 0 || !hasDigit(toks[i-1].key)) {
			return FigureSpeed, i, i + 1 // "tokens/s" alone; "20 tok/s" is a target, not the figure
		}
		if n := slotLen(figureMemorySlot, key, i); n > 0 {
			return FigureMemory, i, i + n // "memory", "which fits better"
		}
		if figureSpeed.has(t.key) {
			return FigureSpeed, i, i + 1
		}
		if f, ok := costFigures[t.key]; ok {
			if costBefore(toks, i) {
				return Figure(f), i, i + 1 // "cheaper monthly"
			}
			continue
		}
		if !figurePer.has(t.key) && !figurePerTime.has(t.key) || i+1 >= len(toks) || !costBefore(toks, i) {
			continue
		}
		k := i + 1
		if concurrentWord.has(toks[k].key) && k+1 < len(toks) {
			k++ // "per concurrent user"
		}
		f, ok := figureWords[toks[k].key]
		if !ok || figurePerTime.has(t.key) && Figure(f) != FigurePerMonth && Figure(f) != FigurePerHour {
			continue // "a month", "an hour"; never "a user"
		}
		end := k + 1
		for end < len(toks) && end < i+4 && (figureWords[toks[end].key] != "" || figureTail.has(toks[end].key)) {
			end++ // "per million output tokens", "per 1m tokens"
		}
		return Figure(f), i, end
	}
	return FigureUnsaid, 0, 0
}

// costBefore reports whether a money word comes shortly before token i.
func costBefore(toks []token, i int) bool {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		if costWords.has(toks[j].key) {
			return true
		}
	}
	return false
}

// The words of parse_compare.go's own tests (vocab.txt, its
// parse_compare.go section).
var (
	compareDrops    = vocab.set("compare_drops")
	andWords        = vocab.set("and_words")
	throughputWords = vocab.set("throughput_words")
	figureUsers     = vocab.set("figure_users")
	concurrentWord  = vocab.set("concurrent_word")
	howWords        = vocab.set("how_words")
	figureSpeed     = vocab.set("figure_speed")
	figurePer       = vocab.set("figure_per")
	figurePerTime   = vocab.set("figure_per_time")
	figureTail      = vocab.set("figure_tail")

	oneWords     = vocab.set("one_words")      // one of what follows: "an h100", "a single 4090"
	connectors   = vocab.set("connectors")     // join the options: "vs", "or", "compared to", "between ... and"
	buyOnlyWords = vocab.set("buy_only_words") // to buy, not said against what
	andOpeners   = vocab.set("and_openers")    // start options "and" joins: "between lora and full"
	figureWords  = vocab.values("per_figure")  // after "per", the Figure each names
	costFigures  = vocab.values("cost_figure") // alone after a money word ("cheaper monthly"), the Figure each names
	costWords    = vocab.set("cost_words")     // a money figure follows: "cheaper per run", "cost per user"
	speedWords   = vocab.set("speed_words")    // a speed: "faster for throughput"
	moreWords    = vocab.set("more_words")     // before "users", the figure: "how many more users", "fewer users"
)
