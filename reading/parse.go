package reading

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fitbot/fitbot/sizing"
)

// Field says which of the asker's words gave one field of the Query.
type Field struct {
	Name  string `json:"name,omitempty"`  // the field's key in the request JSON: "model", "gpus", "seq_len"
	Value string `json:"value,omitempty"` // the value, as Format writes it
	Words string `json:"words,omitempty"` // the asker's words that gave it, as written
}

// Request is what fitbot read from one message: which kind of message it
// is, and for a sizing question the question itself (Query, Intent), what
// was said about money, time and workload, the comparison it asks, the
// assumptions made and the words left unread. Both readers fill it: the
// grammar (Read, Parse) and a language model, whose reply goes through
// Validate like the grammar's. Its JSON is documented in docs/json.md.
type Request struct {
	// Kind is the kind of message: a sizing question, prices, plans,
	// help or chat (Route). Parse leaves it empty; Read sets it.
	Kind RouteKind `json:"kind,omitempty"`
	// Route is what a message that is not a sizing question asked
	// (prices of which cards, which plans); nil for a sizing question.
	Route *Routing `json:"route,omitempty"`
	// Comparison is set when a sizing question compares two options
	// ("a100 vs h100 for 13b lora"); each option reads on its own.
	Comparison *Comparison   `json:"comparison,omitempty"`
	Query      sizing.Query  `json:"query,omitempty"`
	Intent     sizing.Intent `json:"intent,omitempty"`
	Fields     []Field       `json:"fields,omitempty"`  // the fields that were said, in the order of the request JSON
	Notes      []string      `json:"notes,omitempty"`   // assumptions made while reading: "a100 taken as A100 80 GB SXM"
	Ignored    []string      `json:"ignored,omitempty"` // words not used: "can", "we", "<@U123>"
	// Unused are the words among Ignored that are neither question
	// phrasing, chat nor mentions: what the asker may have meant and the
	// parser did not read ("big" in "tune the big one", "multi-node",
	// "long context"); see parse_meaning.go.
	Unused []string `json:"unused,omitempty"`
	// HostRAMBytes is the machine's memory when the text gave it ("128 GB
	// RAM"); the estimate does not use it, a team's machine keeps it.
	HostRAMBytes int64 `json:"host_ram_bytes,omitempty"`
	// MethodImplied is true when a verb ("run", "fine-tune") rather than a
	// method's name set Query.Method, so a reply can say what was assumed.
	MethodImplied bool `json:"method_implied,omitempty"`
	// Workload is what a buy-or-rent question said about use (jobs a
	// week, hours a job, price of power, years); zero fields were not said.
	Workload sizing.Workload `json:"workload,omitempty"`
	// Hub is the Hugging Face repo id the question named by id or link
	// when the catalog does not have it ("Qwen/Qwen3-14B"); Query.Model
	// holds it too. The parser does no I/O: a caller that can reach the
	// Hub resolves it and sets Query.Arch (see ModelFromHub).
	Hub string `json:"hub,omitempty"`
	// Missing is a model name the catalog lacks ("qwen3 14b"), which a
	// caller may look up on the Hub; zero when there is none. The parse
	// then has an error saying the name is unknown.
	Missing NameSpan `json:"missing,omitempty"`
	// Deadline is the time the run should take at most ("in a week");
	// zero when none was said. The answer checks it (answer.Service.Fit).
	Deadline Deadline `json:"deadline,omitempty"`
	// Money is the budget and the price per GPU-hour the question said
	// ("$5k/month", "at $2.5/hr"); zero fields were not said.
	Money Money `json:"money,omitempty"`
	// Alternatives are the things the question may ask when the reader
	// is unsure which (Unsure): with two or more, the answer is a
	// question back offering each; nil for a clear question.
	Alternatives []Alternative `json:"alternatives,omitempty"`
	// Emit is the launch config the words ask for with the answer ("a
	// deepspeed config for ...": deepspeed), a launch.Kind's name; ""
	// when none is asked.
	Emit string `json:"emit,omitempty"`
}

// NameSpan is words of a question and where they are in it, in bytes.
type NameSpan struct {
	Words string `json:"words,omitempty"`
	Start int    `json:"start,omitempty"`
	End   int    `json:"end,omitempty"`
}

// Parse reads a sizing question written in any order and case — a slash
// command ("13B lora 4090") or a chat sentence ("can we full fine-tune
// Qwen2.5 7B on a single H100 with 8-bit Adam?") — and returns what was
// asked. Words it does not need are returned in Ignored.
//
// Input it cannot use gives an *InputError whose Problem quotes the words
// it could not use and whose Hint is a corrected example: an unknown model
// or GPU ("did you mean rtx-4090?"), two models or two GPUs, an absurd
// number, empty or filler-only text, text over MaxQuestionBytes or
// MaxQuestionWords, invalid UTF-8 or control characters. Parse does no
// I/O and never panics.
//
// With an error, the Request still holds what was understood around the
// problem, so that a caller can tell a question that named no model or
// method (worth another reading) from one with a bad number in it.
func Parse(input string) (Request, error) {
	return parseWith(input, catalogLexicon{})
}

// lexicon is what the parser needs of the model and GPU catalogs: exact
// matches for word n-grams, suggestions for near misses, and whether a
// word names a model family.
type lexicon interface {
	matchModel(words string) (id, note string, ok bool)
	matchGPU(words string) (id, note string, ok bool)
	suggestModels(words string) []string
	suggestGPUs(words string) []string
	isModelFamily(key string) bool
	// memoryCard is the card a typed memory of gb GB is sized on, for the
	// named card id ("" when none was named); see parse_memory.go.
	memoryCard(named string, gb int) (memoryPick, bool)
	// nameWords are the words that start model and GPU names ("llama",
	// "mistral", "rtx"), for typo corrections.
	nameWords() []string
}

// field indexes the Query fields for the parser's bookkeeping.
type field int

const (
	fModel field = iota
	fMethod
	fOptimizer
	fPrecision
	fQuant
	fKV
	fGPU
	fGPUs
	fNodes
	fZeRO
	fOffload
	fSeq
	fBatch
	fCkpt
	fRank
	fTokens
	fAccum
	fGlobalBatch
	fTP
	fPP
	fCP
	fEP
	fRes
	fImages
	fMFU
	fMeasured
	fGPUHours
	numFields
)

// fieldNames are the request JSON keys of the fields, and what to call
// two of them in a message.
var fieldNames = [numFields]struct{ key, plural string }{
	fModel:     {"model", "models"},
	fMethod:    {"method", "methods"},
	fOptimizer: {"optimizer", "optimizers"},
	fPrecision: {"precision", "precisions"},
	fQuant:     {"quant", "quantisations"},
	fKV:        {"kv_cache_precision", "KV-cache precisions"},
	fGPU:       {"gpu", "GPUs"},
	fGPUs:      {"gpus", "GPU counts"},
	fNodes:     {"nodes", "node counts"},
	fZeRO:      {"zero_stage", "ZeRO stages"},
	fOffload:   {"offload", "offload targets"},
	fSeq:       {"seq_len", "context lengths"},
	fBatch:     {"micro_batch", "batch sizes"},
	fCkpt:      {"grad_checkpointing", "checkpointing settings"},
	fRank:      {"lora_rank", "LoRA ranks"},
	fTokens:    {"tokens", "token budgets"},

	fAccum:       {"grad_accum_steps", "gradient accumulation steps"},
	fGlobalBatch: {"global_batch_tokens", "global batches"},

	fTP: {"tensor_parallel", "tensor-parallel degrees"},
	fPP: {"pipeline_parallel", "pipeline-parallel degrees"},
	fCP: {"context_parallel", "context-parallel degrees"},
	fEP: {"expert_parallel", "expert-parallel degrees"},

	fRes:    {"resolution", "image resolutions"},
	fImages: {"images", "image counts"},

	fMFU:      {"mfu", "MFUs"},
	fMeasured: {"measured_tokens_per_second", "measured speeds"},

	fGPUHours: {"gpu_hours", "GPU-hour budgets"},
}

// parser is the state of one Parse call.
type parser struct {
	in   string
	toks []token
	lex  lexicon
	q    sizing.Query

	words  [numFields]string // the words that gave each field
	notes  []string
	unread unread

	verb           said[wordKind] // kindTrainVerb or kindServeVerb when only a verb was said
	weights        weightWords
	run            runWords
	cards          cardWords
	device         said[word]      // a device fitbot does not size ("raspberry pi"): refused unless a GPU is named too
	closedProducts []closedProduct // closed names said as what is built ("an internal chatgpt"), settled once read
	deepspeed      bool            // "deepspeed" said: ZeRO at the lowest stage that fits unless one is named
	fixes          []typoFix       // typo corrections found in this pass (parse_typo.go)

	refusal        // the problem found, if any, and how its Try is made
	before  passes // what the passes before the main one read

	hub     string   // a Hub repo id named by id or link
	missing NameSpan // a model name the catalog lacks
}

// said is a value read from the question and the words that said it.
type said[T any] struct {
	v     T
	words string
}

// unread is the words the parse did not use: all of them (ignored), and
// those that carry meaning (unused), which the answer lists.
type unread struct {
	ignored []string
	unused  []string
}

// weightWords is what was said of the weights' format, resolved once
// the method is known (resolveQuant, resolveEXL2).
type weightWords struct {
	int4     string        // "int4" or "4-bit" said
	quantize string        // "quantize" said: 4-bit weights unless a scheme or precision is named
	gguf     string        // "gguf" or "ollama" said: q4_k_m unless a type is named
	exl2     string        // "exl2" or "exllama" said: EXL2 weights (parse_exl2.go)
	bpw      said[float64] // an EXL2 width said ("4.65bpw"), in bits per weight
}

// runWords is the size of the run or request said in other terms than a
// context length and a token budget, settled once the model and the
// method are known (finish).
type runWords struct {
	examples said[int64] // "50k examples" with no length: that many sequences of the run's length
	epochs   said[int]
	docs     docsSaid    // a count of documents: a batch job or examples (docJob)
	short    shortTokens // "~1k tokens": a request's length when serving, else refused
	seqOther said[int]   // a second context length said, settled once the model is known (settleSeqPair)
	window   said[int]   // a model's window said after its name ("phi-3.5 mini 128k"), settled likewise
}

// cardWords is what was said of the cards and machines beside their
// name and count.
type cardWords struct {
	plural      bool      // the card was named in the plural ("h100s"): some of them, how many unsaid
	fewest      bool      // how many of the card was asked ("how many l40s", "fewest h100")
	fewestAsked bool      // "fewest", "min gpus" said (not only "how many a100s")
	perNode     bool      // "nodes of": the next GPU count is per node
	multiNode   string    // "multi node": machines said with no count, unused unless a count of them is said
	colab       string    // the words that named Colab beside a card ("colab pro"): where it runs
	mem         said[int] // a typed GPU memory ("24gb"), in GB; 0 when none
	hostRAMGB   int       // "128 GB RAM": the machine's memory, for team hardware
	noteAt      int       // the index in notes of the GPU name's assumption; -1 when none
}

// passes is what the passes before the main one read (parsePass).
type passes struct {
	ask      askWords      // the intent and workload words
	serve    serveWords    // the serving load, targets and asks
	mfu      mfuWords      // the MFU said or asked
	gpuHours gpuHoursWords // the GPU-hours budget or ask
	deadline Deadline
	money    Money
	emit     string // the launch config asked (emitAsked), from the words as lexed
}

// parseWith is Parse with the catalogs behind lx: one pass over the
// tokens, each step taking the longest reading that starts at a token,
// then the decisions that need the whole question (finish).
func parseWith(input string, lx lexicon) (Request, error) {
	p := parsers.Get().(*parser)
	defer parsers.Put(p)
	first, words, err := parsePass(p, input, lx)
	if !words {
		return first, err
	}
	first.Emit = p.before.emit
	if len(p.fixes) == 0 {
		return first, err
	}
	// Read the question again with the typos corrected; keep that reading
	// when it is understood (a problem is reported in the asker's words).
	text, notes := p.corrected()
	again := parsers.Get().(*parser)
	defer parsers.Put(again)
	second, _, err2 := parsePass(again, text, lx)
	if err2 != nil {
		return first, err
	}
	second.Notes = append(notes, second.Notes...)
	second.Emit = first.Emit
	return second, nil
}

// parsers are parsers to read into: a parser is a few kilobytes, which
// each question would otherwise allocate. Nothing a parse returns points
// into its parser, which read empties before it reads.
var parsers = sync.Pool{New: func() any { return new(parser) }}

// parsePass is one reading of a question into p, with the Try of its
// problem; words is false when the text could not be split into words.
func parsePass(p *parser, input string, lx lexicon) (r Request, words bool, err error) {
	if err := p.read(input, lx); err != nil {
		return Request{}, false, err
	}
	if p.err == nil {
		return p.result(), true, nil
	}
	p.err.Hint = p.tryLine()
	return p.result(), true, p.err
}

// read is one reading of a question without the Try of its problem.
func read(input string, lx lexicon) (*parser, error) {
	p := new(parser)
	if err := p.read(input, lx); err != nil {
		return nil, err
	}
	return p, nil
}

// read is one reading of a question into p, emptied first, without the
// Try of its problem.
func (p *parser) read(input string, lx lexicon) error {
	spare := p.toks[:cap(p.toks)] // the last question's tokens' array, read into again
	clear(spare)
	*p = parser{}
	toks, err := lexInto(spare, input)
	if err != nil {
		return err
	}
	emit := emitAsked(toks)
	toks, vague := readNumberWords(toks)
	toks, gpuHours := readGPUHours(input, toks)
	toks, ask := readAsk(input, toks)
	toks, money := readMoney(input, toks)
	toks, mfu := readMFU(toks)
	toks, serve := readServe(toks)
	toks, deadline := readDeadline(input, toks)
	for k := range toks {
		_, toks[k].known = phrases[toks[k].key]
		toks[k].prefix = phrasePrefixes[toks[k].key]
	}
	*p = parser{in: input, toks: toks, lex: lx, unread: unread{ignored: make([]string, 0, len(toks))},
		before: passes{ask: ask, serve: serve, mfu: mfu, gpuHours: gpuHours, deadline: deadline, money: money, emit: emit}, cards: cardWords{noteAt: -1}}
	for _, n := range slices.Concat(vague, ask.notes, serve.notes) {
		p.note(n)
	}
	if ask.problem != "" {
		p.fail(ask.problem, nil)
	}
	if serve.problem != "" {
		p.fail(serve.problem, nil)
	}
	for i := 0; i < len(toks); {
		if toks[i].ignorable {
			if repo, ok := sizing.HubRepoID(toks[i].raw); ok { // Slack's <https://huggingface.co/org/name|...>
				p.setHub(repo, toks[i].raw)
				i++
				continue
			}
			p.ignore(i, i+1)
			if strings.HasPrefix(toks[i].raw, "$") { // money readMoney could not read ("$100/day"): never dropped silently
				p.unread.unused = append(p.unread.unused, toks[i].raw)
			}
			i++
			continue
		}
		if n := p.step(i); n > 0 {
			i += n
			continue
		}
		i += p.unknown(i)
	}
	p.settleClosedProducts()
	p.finish()
	return nil
}

// text is tokens [from, to) as the asker wrote them.
func (p *parser) text(from, to int) string { return span(p.in, p.toks, from, to) }

// ignore reports tokens [from, to) as unused.
func (p *parser) ignore(from, to int) {
	for k := from; k < to; k++ {
		p.unread.ignored = append(p.unread.ignored, p.toks[k].raw)
	}
}

// note records an assumption once; "" is none.
func (p *parser) note(s string) {
	if s != "" && !slices.Contains(p.notes, s) {
		p.notes = append(p.notes, s)
	}
}

// claim records that words gave field f. When other words already gave
// it a different value (same is false) it records the conflict and
// reports false.
func (p *parser) claim(f field, same bool, words string) bool {
	if p.words[f] == "" {
		p.words[f] = words
		return true
	}
	if same {
		return true
	}
	if f == fGPU && p.before.ask.buy && !p.before.ask.own {
		// "is a 4090 worth it vs renting an a100": buy-vs-rent prices
		// owning a card against renting the same card.
		p.fail(fmt.Sprintf("two GPUs in one question: %s and %s; buy-vs-rent weighs owning a card against renting the same card, so the Try asks it of %s (ask about %s on its own for its own figures)",
			quote(p.words[f]), quote(words), quote(p.words[f]), quote(words)), nil)
		return false
	}
	p.fail(fmt.Sprintf("two %s in one question: %s and %s; ask about one at a time",
		fieldNames[f].plural, quote(p.words[f]), quote(words)), nil)
	return false
}

// setSaid puts v, said in words, in *dst, field f of the Query, unless
// other words said another value (claim); it reports whether it did.
func setSaid[T comparable](p *parser, f field, dst *T, v T, words string) bool {
	if !p.claim(f, *dst == v, words) {
		return false
	}
	*dst = v
	return true
}

// lookup finds the longest known phrase or catalog name starting at token
// i. It reports the meaning and the number of tokens it covers (0 when
// none). At the start of a clause (first is true) a window may not begin
// with a filler word, so that "a 100" is never read as "A100".
func (p *parser) lookup(i int, first bool) (word, int) {
	toks := p.toks
	last := min(len(toks), i+maxPhrase)
	for k := i; k < last; k++ {
		if toks[k].ignorable {
			last = k
			break
		}
	}
	// Catalog names neither start with nor contain one of our words, so
	// they are probed only over the run of unknown words at i.
	nameEnd := i
	var w0 word
	known := toks[i].known
	if known {
		w0 = phrases[toks[i].key]
		if first && w0.kind == kindFiller && !fillerPhraseStarts.has(toks[i].key) {
			last = i + 1
		}
	} else {
		nameEnd = i + 1
		for nameEnd < last && !toks[nameEnd].known {
			nameEnd++
		}
	}
	// Our phrases: grow the window while it is the start of some phrase,
	// keeping the longest that is one.
	best, bestN := word{}, 0
	var buf [128]byte
	b := buf[:0]
	for end := i + 1; end <= last; end++ {
		b = append(b, toks[end-1].key...)
		w, ok, more := w0, known, toks[i].prefix // the first word alone, looked up once a question
		if end > i+1 {
			w, ok = phrases[string(b)]
			more = phrasePrefixes[string(b)]
		}
		if ok {
			best, bestN = w, end-i
		}
		if !more {
			break
		}
	}
	if bestN > 0 {
		return best, bestN
	}
	// A catalog id written out ("deepseek-v3") names that model: a number
	// after it is a count, not a version ("deepseek-v3 1 node" is not V3.1),
	// so the canonical form Format writes reads back the same.
	if nameEnd > i+1 && strings.ContainsRune(toks[i].raw, '-') {
		// A variant word after it ("phi-4 mini") makes a longer name.
		if id, note, ok := p.lex.matchModel(toks[i].raw); ok && strings.EqualFold(id, toks[i].raw) && !variantWords.has(toks[i+1].key) {
			return word{kind: kindModel, val: id, note: note}, 1
		}
	}
	for end := nameEnd; end > i; end-- {
		words := p.text(i, end)
		if id, note, ok := p.lex.matchModel(words); ok {
			return word{kind: kindModel, val: id, note: note}, end - i
		}
		if id, note, ok := p.lex.matchGPU(words); ok {
			return word{kind: kindGPU, val: id, note: note}, end - i
		}
		if c := words[len(words)-1]; c == 's' || c == 'S' {
			if id, note, ok := p.lex.matchGPU(words[:len(words)-1]); ok {
				p.cards.plural = true
				return word{kind: kindGPU, val: id, note: note}, end - i
			}
		}
	}
	return word{}, 0
}

// severalModels refuses a count of models at token i ("3x 8b models",
// "two llama 8b models"): several models on one card are not sized, and
// the Try sizes one of them. It reports whether it refused.
func (p *parser) severalModels(i int) bool {
	k := p.toks[i].key
	count := 0
	if w, ok := phrases[k]; ok && w.kind == kindCount {
		count = w.n
	} else if k != "" && isDigit(k[0]) {
		// Digits only first: Atoi's error on "7b" allocates.
		if s := strings.TrimSuffix(k, "x"); strings.Trim(s, "0123456789") == "" {
			if v, err := strconv.Atoi(s); err == nil {
				count = v
			}
		}
	}
	j := i + 1
	if count < 2 || j >= len(p.toks) || p.toks[j].ignorable {
		return false
	}
	m := 0
	if w, n := p.lookup(j, false); w.kind == kindModel {
		m = n
	} else if num, ok := parseNumber(p.toks[j].key); ok && num.sizeScaled() {
		m = 1
	}
	if m == 0 || !p.is(j+m, modelsNoun) {
		return false
	}
	p.fail(fmt.Sprintf("%s: several models sharing GPUs are not sized, only one at a time; the Try sizes one, and each of the %d needs its own weights and a share of the memory left for the KV cache",
		quote(p.text(i, j+m+1)), count), nil)
	return true
}

// step reads what starts at token i and reports how many tokens it used;
// 0 means nothing known starts there.
func (p *parser) step(i int) int {
	if raw := p.toks[i].raw; sizing.IsHubLink(raw) {
		if repo, ok := sizing.HubRepoID(raw); ok {
			p.setHub(repo, raw)
			return 1
		}
	}
	if n := p.outsideCardName(i); n > 0 {
		return n
	}
	if n := p.macBeforeChip(i); n > 0 {
		return n + p.step(i+n)
	}
	if p.severalModels(i) {
		return 1 // the count; the model is read next, the Try sizes one
	}
	if n := p.closed(i); n > 0 {
		return n
	}
	if outsideFirst.has(p.toks[i].key) { // "deepseek" alone is DeepSeek-V3; "deepseek coder v2" is not
		if n := p.outside(i); n > 0 {
			return n
		}
	}
	if n := p.bitsPerWeightAt(i); n > 0 {
		return n
	}
	w, n := p.lookup(i, true)
	if n == 0 {
		if num, ok := parseNumber(p.toks[i].key); ok {
			return p.numeric(i, num)
		}
		return p.glued(i)
	}
	words := p.text(i, i+n)
	if w.kind == kindMethod && n == 1 {
		if as, m, ok := p.fullAs(i); ok {
			// "the full 671b one", "assume full batching", "at the full
			// 128k ctx": the model whole, the cards kept busy or the
			// model's whole window, never a full fine-tune.
			p.ignore(i, i+as.takes)
			p.note(fmt.Sprintf("%s read as %s, not a full fine-tune", quote(p.text(i, i+m)), as.reading))
			return as.takes
		}
	}
	switch w.kind {
	case kindFiller, kindOf, kindTimes, kindGPUWord, kindParamsWord, kindTokensWord, kindEpochWord, kindBatchWord, kindSeqWord, kindUnusedWord, kindImageWord:
		p.ignore(i, i+n)
		p.note(w.note) // "fp32 states": read, and said how
	case kindVague:
		p.ignore(i, i+n)
		p.unread.unused = append(p.unread.unused, words)
	case kindSeqKey, kindBatchKey, kindRankKey, kindUnusedKey, kindAccumKey, kindGlobalBatchKey, kindParallelKey:
		return n + p.keyed(w, i, n)
	case kindNodeWord:
		if i > 0 && multiWords.has(p.toks[i-1].key) {
			// "multi node training ... across 2 nodes": no count, like
			// "multi-node", not one node.
			p.ignore(i, i+n)
			if u := len(p.unread.unused) - 1; u >= 0 && p.unread.unused[u] == p.toks[i-1].raw {
				p.unread.unused = p.unread.unused[:u] // "multi" alone, read before its "node"
			}
			p.cards.multiNode = p.text(i-1, i+n)
			return n
		}
		return p.nodes(i, n, 1, w.n == 1)
	case kindCount:
		return p.counted(i, n, w.n, true)
	case kindModel:
		if v := p.variantAfter(i+n, w.val, words); v != "" {
			p.missingModel(i, i+n+1)
			p.fail(fmt.Sprintf("%s is not a model I know: fitbot's catalog has %s, not its %s variant; name it by its Hugging Face id and fitbot reads its config.json",
				quote(p.text(i, i+n+1)), quote(words), v), func(q *sizing.Query) { q.Model, q.Params, q.Experts = "ORG/MODEL", 0, 0 })
			return n + 1
		}
		if end := p.versionedName(i + n); end > 0 && p.err == nil && (w.note != "" || !strings.Contains(w.val, p.toks[i+n].key)) {
			// "llava 1.6 34b": "llava" alone is taken as LLaVA 1.5 7B, but
			// a version and a size after it name another model.
			words := p.text(i, end)
			p.missingModel(i, end)
			p.unknownName(i, end, p.lex.suggestModels(words), modelName)
			return end - i
		}
		if n, ok := sizing.LookupNamed(w.val); ok && p.try != tryNamed && p.q.Model == "" {
			// Refused by name before anything later in the question can
			// fail with a Try that sizes it, and over what failed before
			// it: "a 3b-param vision transformer" is refused as a ViT,
			// its size and all.
			named := n.Refusal()
			if !strings.EqualFold(words, n.Name) {
				named.Problem = quote(words) + ": " + named.Problem // the asker's words, quoted
			}
			p.refuse(named, tryNamed, nil)
		}
		p.setModel(w.val, w.note, words)
		if p.windowAfter(i+n, w.val) {
			return n + 1
		}
	case kindGPU:
		if i >= 2 && vocab.phraseAt("fewest_asked", p.toks, i-2) {
			p.cards.fewest = true // "how many a100s", "how many l40s"
		}
		return p.gpuWithCount(i, n, w)
	case kindTrainVerb:
		if w.val != "" && i+n < len(p.toks) && trainedWords.has(p.toks[i+n].key) {
			// "serve a dpo tuned llama": how the model was made, not a run.
			p.ignore(i, i+n+1)
			p.note(fmt.Sprintf("%s read as how the model was trained, not as training to size", quote(p.text(i, i+n+1))))
			return n + 1
		}
		if trainedWords.has(strings.ReplaceAll(keyOf(words), " ", "")) && i > 0 && ownerWords.has(p.toks[i-1].key) {
			// "our fine-tuned llama": the model, not a run.
			p.ignore(i, i+n)
			if u := len(p.unread.unused) - 1; u >= 0 && p.unread.unused[u] == p.toks[i-1].raw {
				p.unread.unused = p.unread.unused[:u] // "own", read before its "fine tuned"
			}
			p.note(fmt.Sprintf("%s read as how the model was made, not as training to size", quote(p.text(i-1, i+n))))
			return n
		}
		if scratchWords.has(strings.ReplaceAll(keyOf(words), " ", "")) {
			p.q.FromScratch = true
		}
		p.apply(w, words)
	default:
		p.apply(w, words)
	}
	return n
}

// versionedName is the end of a version number and a model size at
// token k ("1.6 34b" after "llava"), or 0 when they are not there.
func (p *parser) versionedName(k int) int {
	if k+1 >= len(p.toks) || !strings.Contains(p.toks[k].key, ".") {
		return 0
	}
	if v, ok := parseNumber(p.toks[k].key); !ok || v.suffix != "" || v.neg {
		return 0
	}
	if _, _, ok := sizeSaid(p.toks[k+1].key); !ok && !variantWords.has(p.toks[k+1].key) {
		return 0 // "jamba 1.5 mini" names another model as "llava 1.6 34b" does
	}
	return k + 2
}

// variantAfter is the variant word at token k ("medium") when the catalog
// model id just read does not carry it: "phi-3 medium" is not the Phi-3
// mini that "phi-3" alone is taken as. A model size there ("8b" after
// "qwen3 embedding", taken as the 0.6B) that neither the words read nor
// the id carry names another size of the family, returned upper case
// ("8B"). "" when there is none.
func (p *parser) variantAfter(k int, id, words string) string {
	if k >= len(p.toks) {
		return ""
	}
	if size, params, ok := sizeSaid(p.toks[k].key); ok && !hasSize(id, size) && !nearSize(id, params) {
		if _, _, said := sizeSaid(words); !said {
			return strings.ToUpper(size)
		}
	}
	if !variantWords.has(p.toks[k].key) || strings.Contains(strings.ToLower(id), p.toks[k].key) {
		return ""
	}
	if k+1 < len(p.toks) {
		if w, _ := p.lookup(k, false); w.kind == kindVague { // "large context"
			return ""
		}
	}
	return p.toks[k].raw
}

// windowAfter reads a length said right after a model's name that is the
// model's window ("phi-3.5 mini 128k"): when another length is said too,
// it is the model's window, noted, not the request's;
// alone it is a number without a meaning (settleSeqPair). "128k context"
// after the name is a length asked.
func (p *parser) windowAfter(k int, id string) bool {
	if k >= len(p.toks) || p.toks[k].ignorable || p.run.window.words != "" {
		return false
	}
	num, ok := parseNumber(p.toks[k].key)
	if !ok || num.neg || num.scale() != scaleThousand {
		return false
	}
	v, ok := num.scaled(contextUnit(num.suffix))
	m, found := sizing.MatchModel(id)
	if !ok || !found || !nearWindow(int(v), m.MaxContext) {
		return false
	}
	if k+1 < len(p.toks) && !p.toks[k+1].ignorable {
		switch w, _ := p.lookup(k+1, false); w.kind {
		case kindSeqWord, kindSeqKey, kindTokensWord:
			return false
		}
	}
	p.run.window = said[int]{int(v), p.toks[k].raw}
	return true
}

// nearSize reports whether the catalog model id is of about params
// parameters, as a model's nominal size is of its count: "phi 4 14b" is
// Phi-4's 14.7B, "qwen2.5 vl 7b" the 8.3B.
func nearSize(id string, params int64) bool {
	m, ok := sizing.MatchModel(id)
	if !ok || m.PublishedParams == 0 {
		return false
	}
	r := float64(params) / float64(m.PublishedParams)
	return r > 0.75 && r < 1.3
}

// apply records a word that stands alone: a method, optimizer, precision,
// quantisation, ZeRO stage, offload or checkpointing setting.
func (p *parser) apply(w word, words string) {
	switch w.kind {
	case kindMethod:
		p.setMethod(sizing.Method(w.val), words)
	case kindTrainVerb, kindServeVerb:
		p.setVerb(w.kind, words)
		if w.kind == kindTrainVerb && w.val != "" {
			p.q.Alignment = w.val
		}
	case kindOptimizer:
		setSaid(p, fOptimizer, &p.q.Optimizer, sizing.Optimizer(w.val), words)
	case kindPrecision:
		if setSaid(p, fPrecision, &p.q.Precision, sizing.Precision(w.val), words) {
			if fullPrecision.has(keyOf(strings.Join(strings.Fields(words), ""))) { // "full precision", "full-precision"
				// Said of a model released in FP8 or bf16 it may mean
				// unquantised: say the reading.
				p.note(fmt.Sprintf("%s taken as fp32, 4 bytes a weight; say bf16 or fp8 for the unquantised 16-bit or released 8-bit weights", quote(words)))
			}
		}
	case kindQuant:
		setSaid(p, fQuant, &p.q.Quant, sizing.Quant(w.val), words)
	case kindInt4:
		p.weights.int4 = words
	case kindGGUF: // a GGUF file is run by llama.cpp: inference
		p.weights.gguf = words
		p.setVerb(kindServeVerb, words)
	case kindEXL2: // EXL2 weights are run by ExLlamaV2: inference
		if p.weights.exl2 == "" {
			p.weights.exl2 = words
		}
		p.setVerb(kindServeVerb, words)
	case kindKV:
		setSaid(p, fKV, &p.q.KVPrecision, sizing.Precision(w.val), words)
	case kindZeRO:
		stage := w.n
		if p.claim(fZeRO, p.q.ZeROStage != nil && *p.q.ZeROStage == stage, words) {
			p.q.ZeROStage = &stage
		}
	case kindQuantize:
		p.weights.quantize = words
	case kindNoDevice:
		if p.device.words == "" {
			p.device.v, p.device.words = w, words
		}
	case kindSpot:
		p.q.Spot = true
	case kindProvider: // the first named; another is not used
		if p.q.Provider != "" && p.q.Provider != w.val {
			p.unread.ignored = append(p.unread.ignored, words)
			return
		}
		p.q.Provider = w.val
	case kindCheapest:
		p.q.Cheapest = true
	case kindFewest:
		p.cards.fewest, p.cards.fewestAsked = true, true
	case kindFastest:
		p.q.Fastest = true
	case kindLink:
		p.q.LinkAsked = true
	case kindDeepSpeed:
		p.deepspeed = true
		p.unread.ignored = append(p.unread.ignored, words)
	case kindOffload:
		setSaid(p, fOffload, &p.q.Offload, sizing.Offload(w.val), words)
	case kindCkpt:
		on := w.n == 1
		if p.claim(fCkpt, p.q.GradCheckpointing != nil && *p.q.GradCheckpointing == on, words) {
			p.q.GradCheckpointing = &on
		}
	case kindLayoutWord:
		p.q.ModelParallel = true
		if w.val != "" {
			p.q.Stack = sizing.Stack(w.val)
		}
	case kindStack:
		p.q.Stack = sizing.Stack(w.val)
	case kindFusedLoss:
		on := true
		p.q.FusedLoss = &on
	case kindModules:
		on := true
		p.q.ModulesToSave = &on
	case kindOffloadAct:
		on := true
		p.q.OffloadActivations = &on
		if w.n == 1 { // Unsloth also chunks its cross-entropy
			p.q.FusedLoss = &on
		}
	case kindBits:
		p.fail(fmt.Sprintf("%s: bitsandbytes trains adapters on a 4-bit (NF4) or 8-bit (LLM.int8) base only, and %d-bit is neither; for %d-bit inference name a GGUF type such as q%d_k",
			quote(words), w.n, w.n, max(w.n, 2)), func(q *sizing.Query) { q.Method, q.Quant = sizing.MethodQLoRA, sizing.QuantNF4DQ })
	default:
		p.unread.ignored = append(p.unread.ignored, words)
		return
	}
	p.note(w.note)
}

// keyed reads the number after a keyword such as "seq", "bs" or "rank"
// (at i, n tokens) and reports how many tokens after the keyword it used.
func (p *parser) keyed(w word, i, n int) int {
	words := p.text(i, i+n)
	if w.kind == kindRankKey && w.val != "" {
		p.setMethod(sizing.MethodLoRA, words)
	}
	j := i + n
	if p.is(j, ofWords) {
		j++
	}
	for p.is(j, hedgeWords) { // "context like 32k"
		j++
	}
	if j >= len(p.toks) {
		p.ignore(i, i+n)
		return 0
	}
	num, ok := parseNumber(p.toks[j].key)
	if !ok || w.kind == kindSeqKey && p.q.GPU == "" && sizing.CardNumber(p.toks[j].key) && !p.is(j+1, tokenWords) { // "seq 4070 tokens" is a length
		p.ignore(i, i+n)
		return 0
	}
	all := p.text(i, j+1)
	switch w.kind {
	case kindUnusedKey:
		p.ignore(i, j+1)
		p.note(fmt.Sprintf("%s does not change the memory estimate", quote(all)))
	case kindSeqKey:
		p.setSeq(num, all)
	case kindBatchKey:
		p.setNum(fBatch, num, all)
	case kindRankKey:
		p.setNum(fRank, num, all)
	case kindAccumKey:
		p.setNum(fAccum, num, all)
	case kindParallelKey:
		p.setParallel(w.val, num, all)
	case kindGlobalBatchKey:
		if k := j + 1; k < len(p.toks) {
			if w, m := p.lookup(k, false); w.kind == kindTokensWord {
				all = p.text(i, k+m)
				j += m
			}
		}
		p.setGlobalBatch(num, all)
	}
	return j + 1 - (i + n)
}

// numeric reads a word that is a number (at i): a bare size ("13b"), or a
// count, length or budget said by the words after it ("2 x rtx 4090",
// "8 gpus", "32k context", "2B tokens", "3 epochs", "8 concurrent users").
func (p *parser) numeric(i int, num number) int {
	j := i + 1
	if j < len(p.toks) && num.suffix == "" {
		if s, ok := scaleWords[p.toks[j].key]; ok {
			num.suffix = s
			j++
		}
	}
	if used := p.examples(i, j, num); used > 0 {
		return used
	}
	if used := p.teamOf(i, j, num); used > 0 {
		return used
	}
	if num.isInteger() {
		n, _ := num.scaled(1)
		if n > 0 && n <= 1<<20 {
			if used := p.counted(i, j-i, int(n), false); used > 0 {
				return used
			}
		}
	}
	if j < len(p.toks) && num.suffix == "" && gbUnits.has(p.toks[j].key) {
		if gb, ok := num.scaled(1); ok && gb > 0 && gb <= maxTypedGB {
			return p.memoryAt(i, j+1-i, int(gb))
		}
	}
	next, m := word{}, 0
	if j < len(p.toks) && !p.toks[j].ignorable {
		next, m = p.lookup(j, false)
	}
	if d, kind, end := p.describedLength(j); d > 0 && (num.scale() <= scaleThousand || kind == kindTokensWord && end > j+d) {
		// "16k rag context", "2k text tokens", "2k text": lengths, not
		// numbers without a meaning; "2b text
		// tokens" is a budget, "2b text" a size.
		if kind == kindSeqWord {
			p.setSeq(num, p.text(i, end))
		} else {
			p.setTokens(num, p.text(i, end))
		}
		return end - i
	}
	all := p.text(i, j+m)
	switch next.kind {
	case kindTokensWord:
		p.setTokens(num, all)
		return j + m - i
	case kindParamsWord:
		p.setSize(num, 0, all)
		return j + m - i
	case kindSeqWord, kindSeqKey:
		// "32k context", "10M context"; but "13b seq 4096" is a size,
		// then a keyword.
		if num.scale() <= scaleMillion && !p.lengthAt(j+m) {
			p.setSeq(num, all)
			return j + m - i
		}
	case kindBatchWord:
		p.setNum(fBatch, num, all)
		return j + m - i
	case kindUnusedWord:
		p.ignore(i, j+m)
		p.note(fmt.Sprintf("%s is not used in the estimate", quote(all)))
		return j + m - i
	}
	words := p.text(i, j)
	switch s := num.scale(); {
	case s > scaleThousand:
		p.setSize(num, 0, words)
	case s == scaleThousand:
		p.fail(fmt.Sprintf("%s is a number without a meaning: a context length or a token budget?", quote(words)),
			func(q *sizing.Query) {
				if q.SeqLen == 0 { // never replace a context the asker gave
					q.SeqLen = 4096
				}
			})
	default:
		p.unknownNumber(i, j)
	}
	return j - i
}

// describedLength reads, from token j after a number, one or two words of
// lengthDescribers then a context word ("rag context", "rag ctx") or a
// tokens word ("text tokens"), or "text" alone: the describers' count, the
// kind of length (kindSeqWord, or kindTokensWord for a count of tokens)
// and the token after it all; 0 when they are not there.
func (p *parser) describedLength(j int) (d int, kind wordKind, end int) {
	for d = 1; d <= 2 && j+d <= len(p.toks); d++ {
		if t := p.toks[j+d-1]; t.ignorable || !lengthDescribers.has(t.key) {
			break
		}
		k := j + d
		if k < len(p.toks) && !p.toks[k].ignorable {
			w, m := p.lookup(k, false)
			switch {
			case (w.kind == kindSeqWord || w.kind == kindSeqKey) && !p.lengthAt(k+m):
				return d, kindSeqWord, k + m
			case w.kind == kindTokensWord:
				return d, kindTokensWord, k + m
			}
		}
		if lengthText.has(p.toks[k-1].key) {
			return d, kindTokensWord, k
		}
	}
	return 0, 0, 0
}

// docsSaid is a count of documents read by examples, decided in finish:
// a batch job, or a dataset's examples.
type docsSaid struct {
	count   int64
	per     int64 // their length in tokens; 0 when not said
	words   string
	monthly string // "a month": the words, when said after them
}

// examples reads a dataset said as examples and their length ("50k
// examples of 1k tokens", "10k samples, 2k tokens each") after the count
// num at i (j: the token after it) as a token budget of their product; the
// epochs multiply it (finish). A count of documents is kept aside for
// finish (docJob), which knows the model and the method. It reports the
// tokens used, 0 when no examples of a length follow.
func (p *parser) examples(i, j int, num number) int {
	key := keysOf(p.toks) // an ignorable token has no key
	if exampleKinds.has(key(j)) && exampleWords.has(key(j+1)) {
		j++ // "100k chat samples"
	}
	if !exampleWords.has(key(j)) {
		return 0
	}
	doc := docNouns.has(key(j)) && p.run.docs.count == 0
	// monthly reads "a month", "each month" after the documents (k: the
	// token after them) and reports the tokens it used.
	monthly := func(k int) int {
		if !doc {
			return 0
		}
		n := slotLen(docsMonthlySlot, key, k)
		if n > 0 {
			p.run.docs.monthly = p.text(k, k+n)
		}
		return n
	}
	k := j + 1
	for n := 0; n < 4 && lengthLeads.has(key(k)); n++ {
		k++ // "of", "avg", "at an average of", "each"
	}
	// "50k examples" with no length: sequences of the run's length,
	// counted once the question is read (finish).
	noLength := func() int {
		count, ok := num.scaled(decimalUnit(num.suffix))
		if !ok || num.neg || count < 1 {
			return 0
		}
		if doc {
			p.run.docs = docsSaid{count: count, words: p.text(i, j+1)}
			return j + 1 - i + monthly(j+1)
		}
		if p.run.examples.words == "" {
			p.run.examples.v, p.run.examples.words = count, p.text(i, j+1)
			return j + 1 - i
		}
		return 0
	}
	length, ok := parseNumber(key(k))
	if !ok {
		return noLength()
	}
	k++
	if length.suffix == "" {
		if s, ok := scaleWords[key(k)]; ok {
			length.suffix = s
			k++
		}
	}
	if phrases[key(k)].kind != kindTokensWord {
		// "20k examples, 3 epochs": the number after is not a length,
		// and the 20k stays a count of examples.
		return noLength()
	}
	k++
	k += slotLen(eachAfterSlot, key, k)
	count, ok1 := num.scaled(decimalUnit(num.suffix))
	per, ok2 := length.scaled(decimalUnit(length.suffix))
	if !ok1 || !ok2 || num.neg || length.neg || count < 1 || per < 1 {
		return 0
	}
	words := p.text(i, k)
	if doc {
		p.run.docs = docsSaid{count: count, per: per, words: words}
		return k - i + monthly(k)
	}
	p.exampleBudget(count, per, words)
	return k - i
}

// exampleBudget sets the token budget of count examples of per tokens,
// said in words.
func (p *parser) exampleBudget(count, per int64, words string) {
	total := count * per
	if total/per != count {
		total = sizing.MaxTokens + 1 // overflow: more than any budget
	}
	if total < sizing.MinTokens {
		p.fail(fmt.Sprintf("%s is %s tokens, too few for a training budget (at least 1M tokens)", quote(words), sizing.Commas(total)),
			func(q *sizing.Query) { q.Tokens = sizing.MinTokens })
		return
	}
	budget, _ := parseNumber(strconv.FormatInt(total, 10))
	p.setTokens(budget, words)
	if p.err == nil {
		p.note(fmt.Sprintf("%s taken as %s tokens", quote(words), strings.ToUpper(sizing.FormatCount(total))))
	}
}

// teamOf reads a count after "team of" (num at i, j the token after it)
// as concurrent users when no word after it says what it counts ("our
// team of 15": batch 15; "team of 15 devs" is read by the users word).
// It reports the tokens used, 0 when no team precedes.
func (p *parser) teamOf(i, j int, num number) int {
	if i < 2 || !ofWords.has(p.toks[i-1].key) || !teamWords.has(p.toks[i-2].key) || num.suffix != "" || !num.isInteger() {
		return 0
	}
	if j < len(p.toks) && !p.toks[j].ignorable {
		switch w, _ := p.lookup(j, false); w.kind {
		case kindBatchWord, kindGPU, kindGPUWord, kindNodeWord, kindEpochWord, kindTokensWord, kindParamsWord, kindSeqWord, kindImageWord:
			return 0 // the word after says what it counts
		}
		if _, ok := typedGB(p.toks[j].key); ok {
			return 0
		}
	}
	p.setNum(fBatch, num, p.text(i-2, j))
	return j - i
}

// lengthAt reports whether token k is a number that could be a context
// length ("4096", "8k"), not a size ("13b") nor a count the word after it
// names ("128k context 16 users", "32k context, 8 x h100").
func (p *parser) lengthAt(k int) bool {
	if k >= len(p.toks) {
		return false
	}
	n, ok := parseNumber(p.toks[k].key)
	if !ok || n.scale() > scaleThousand {
		return false
	}
	if k+1 < len(p.toks) && !p.toks[k+1].ignorable {
		switch w, _ := p.lookup(k+1, false); w.kind {
		case kindBatchWord, kindGPU, kindGPUWord, kindNodeWord, kindEpochWord, kindParamsWord, kindImageWord, kindTimes:
			return false
		}
		if _, ok := typedGB(p.toks[k+1].key); ok {
			return false
		}
	}
	return true
}

// counted reads what a count (at i, n tokens, value count) counts: GPUs
// ("two a100s", "8 x h100", "8 gpus"), nodes ("2 nodes of"), epochs,
// concurrent users. word is true for a number word ("two", "dual"), which
// is ignored when it counts nothing. It reports the tokens used, 0 when
// the count counts nothing it knows.
func (p *parser) counted(i, n, count int, isWord bool) int {
	j := i + n
	if p.is(j, countJoins) {
		j++
	}
	for j < len(p.toks) && vendors.has(p.toks[j].key) { // "2 x NVIDIA A100"
		j++
	}
	if j >= len(p.toks) || p.toks[j].ignorable {
		if isWord {
			p.ignoreCount(i, n, count)
			return n
		}
		return 0
	}
	if gb, ok := typedGB(p.toks[j].key); ok && hostRAMAfter(p.toks, j+1) == 0 {
		if !isWord && j == i+n && count >= 1000 && looksLikeGPU(p.toks[i].key) {
			return 0 // "4060 16gb": a card's number and its memory, not 4,060 cards
		}
		p.setCount(count, p.text(i, j+1))
		return j - i + p.memoryAt(j, 1, gb)
	}
	if _, m := p.outsideCardAt(j); m > 0 { // "2 2080 tis": a card the catalog lacks
		p.setCount(count, p.text(i, j+m))
		return j - i + p.outsideCardName(j)
	}
	w, m := p.lookup(j, false)
	switch w.kind {
	case kindGPU:
		p.setGPU(w.val, w.note, p.text(j, j+m))
		if k := j + m; j == i+n && p.is(k, cardNodeWords(count)) {
			// "one h100 node", "two h100 nodes": the count is of machines
			// (not one H100 for "one h100 node"); "8 x
			// h100 node" and "8 h100 node" are one machine of 8.
			return p.nodes(i, k+1-i, count, true)
		}
		p.setCount(count, p.text(i, j+m))
		return j + m - i
	case kindGPUWord:
		p.setCount(count, p.text(i, j+m))
		k := j + m
		if k+1 < len(p.toks) && ofWords.has(p.toks[k].key) {
			if g, gm := p.lookup(k+1, false); g.kind == kindGPU {
				p.setGPU(g.val, g.note, p.text(k+1, k+1+gm))
				return k + 1 + gm - i
			}
		}
		return k - i
	case kindNodeWord:
		return p.nodes(i, j+m-i, count, true)
	case kindEpochWord:
		if count > sizing.MaxEpochs {
			p.fail(fmt.Sprintf("%s is more epochs than I size (the limit is %d)", quote(p.text(i, j+m)), sizing.MaxEpochs), nil)
		} else if p.run.epochs.v == 0 || p.run.epochs.v == count {
			p.run.epochs.v, p.run.epochs.words = count, p.text(i, j+m)
		} else {
			p.fail(fmt.Sprintf("two epoch counts in one question: %s and %s", quote(p.run.epochs.words), quote(p.text(i, j+m))), nil)
		}
		k := j + m
		if p.is(k, epochJoins) {
			k++
		}
		return k - i
	case kindBatchWord:
		p.setWhole(fBatch, int64(count), true, p.text(i, j+m))
		return j + m - i
	case kindImageWord:
		p.setWhole(fImages, int64(count), true, p.text(i, j+m))
		return j + m - i
	}
	if isWord {
		p.ignoreCount(i, n, count)
		return n
	}
	return 0
}

// ignoreCount sets aside a count word (at i, n tokens) that counts
// nothing the parser knows. "one" and "two" are phrasing often enough
// ("the one with", "a question or two"); a larger count the asker wrote
// is reported as not used, never silently dropped.
func (p *parser) ignoreCount(i, n, count int) {
	p.ignore(i, i+n)
	if count > 2 {
		p.unread.unused = append(p.unread.unused, p.text(i, i+n))
	}
}

// cardNodeWords, after a card counted without "x", make the count one of
// machines full of that card, the singular for a count of one and the
// plural for a count of more: "two h100 nodes" is 16 H100s.
func cardNodeWords(count int) *wordSet {
	if count < 2 {
		return cardNodeOne
	}
	return cardNodeMany
}

var (
	cardNodeOne  = vocab.set("card_node_one")
	cardNodeMany = vocab.set("card_node_many")
)

// nodes reads "2 nodes", "a node", "2 nodes of": count machines covering
// tokens [i, i+n). A following "of" (nodeOf) makes the next GPU count per
// node.
func (p *parser) nodes(i, n, count int, said bool) int {
	if !said {
		p.ignore(i, i+n)
		return n
	}
	words := p.text(i, i+n)
	if count > sizing.MaxNodes {
		p.fail(fmt.Sprintf("%s is more machines than I size (the limit is %d nodes)", quote(words), sizing.MaxNodes),
			func(q *sizing.Query) { q.Nodes = sizing.MaxNodes })
	} else {
		setSaid(p, fNodes, &p.q.Nodes, count, words)
	}
	if p.timesCountAt(i + n) {
		// "2 nodes 8xh100", "2 nodes h100 x8": a count written with the
		// times sign right after the machines is each machine's, as "2
		// nodes of 8" is.
		p.cards.perNode = true
		return n
	}
	if k := i + n; k < len(p.toks) && (nodeOf.has(p.toks[k].key) || nodeOf.has(p.toks[k].low)) { // "w/" has no key
		p.cards.perNode = true
		if c, ok := p.bareCountAt(k + 1); ok {
			// "one node of 8 in bf16": the GPUs per node with no card word
			// after them, read rather than refused.
			p.setCount(c, p.text(i, k+2))
			return n + 2
		}
		return n + 1
	}
	return n
}

// serverGPUs is the most GPUs of the common server (HGX, MI300X and
// L4 boards hold 8): a count with the times sign after machines up to
// it is each machine's, a larger one ("2 nodes, 16xh100") the total.
const serverGPUs = 8

// timesCountAt reports whether the tokens at k say a count of one
// common server with the times sign, before the card or after it: "8x",
// "8xh100", "h100x8", "h100 x8", "h100 x 8".
func (p *parser) timesCountAt(k int) bool {
	key := func(j int) string {
		if j < len(p.toks) {
			return p.toks[j].key
		}
		return ""
	}
	if serverCount(timesBefore(key(k))) {
		return true
	}
	if cut := strings.LastIndexAny(key(k), "x"); cut > 0 && looksLikeGPU(key(k)[:cut]) && serverCount(key(k)[cut+1:]) {
		return true // "h100x8"
	}
	if !looksLikeGPU(key(k)) {
		return false
	}
	next := key(k + 1)
	if nodeTimes.has(next) {
		return serverCount(key(k + 2)) // "h100 x 8"
	}
	return next != "" && nodeTimes.has(next[:1]) && serverCount(next[1:]) // "h100 x8"
}

// timesBefore is the count of a key written as N× ("8x", "8xh100"),
// "" when it is not one.
func timesBefore(key string) string {
	d := len(key) - len(strings.TrimLeft(key, "0123456789"))
	if d == 0 || d == len(key) || !nodeTimes.has(key[d:d+1]) {
		return ""
	}
	return key[:d]
}

// serverCount reports whether digits are a count one common server holds.
func serverCount(digits string) bool {
	n, err := strconv.Atoi(digits)
	return err == nil && n >= 1 && n <= serverGPUs
}

// bareCountAt reads a count of GPUs at token k that no card or GPU word
// follows ("node of 8", "node of 8, 70b"): a whole number no more than
// one machine holds.
func (p *parser) bareCountAt(k int) (int, bool) {
	if k >= len(p.toks) {
		return 0, false
	}
	num, ok := parseNumber(p.toks[k].key)
	if !ok || !num.isInteger() || num.suffix != "" {
		return 0, false
	}
	c, ok := num.scaled(1)
	if !ok || c < 1 || c > sizing.MaxGPUsPerNode {
		return 0, false
	}
	if k+1 < len(p.toks) && !p.toks[k+1].ignorable {
		switch w, _ := p.lookup(k+1, false); w.kind {
		case kindGPU, kindGPUWord, kindTimes:
			return 0, false
		}
	}
	return int(c), true
}

// gpuWithCount reads a GPU name (at i, n tokens) and a count written after
// it: "a100 x 8", "h100 x8".
func (p *parser) gpuWithCount(i, n int, w word) int {
	p.setGPU(w.val, w.note, p.text(i, i+n))
	j := i + n
	if j < len(p.toks) {
		k := p.toks[j].key
		if phrases[k].kind == kindTimes && j+1 < len(p.toks) {
			if num, ok := parseNumber(p.toks[j+1].key); ok && num.isInteger() {
				c, _ := num.scaled(1)
				p.setCount(int(min(c, 1<<20)), p.text(i, j+2))
				return n + 2
			}
		}
		if len(k) > 1 && k[0] == 'x' {
			if num, ok := parseNumber(k[1:]); ok && num.isInteger() {
				c, _ := num.scaled(1)
				p.setCount(int(min(c, 1<<20)), p.text(i, j+1))
				return n + 1
			}
		}
	}
	return n
}

// glued reads words that join a keyword or count to a number: "r16",
// "seq4096", "bs8", "2x4090", "8xh100", "a100x8", "8x7b".
func (p *parser) glued(i int) int {
	t := p.toks[i]
	k := t.key
	raw := strings.TrimSuffix(strings.ToLower(t.raw), "s")
	if h := strings.LastIndexByte(raw, '-'); h >= 0 && gluedLengths.has(raw[h+1:]) {
		size := raw[:h]
		if num, ok := parseNumber(size); ok && num.scale() <= scaleThousand {
			// "4k-token chats", "8k-context sessions": each request's
			// length.
			p.setSeq(num, t.raw)
			return 1
		}
	}
	if name, num, ok := gluedParallel(k); ok { // "tp8", "pp16"
		p.setParallel(name, num, t.raw)
		return 1
	}
	d := 0
	for d < len(k) && isDigit(k[d]) {
		d++
	}
	if d > 0 && k[d:] == "s" && i > 0 && theWords.has(p.toks[i-1].key) && memoryVariants.has(k[:d]) {
		// "or do i need the 80s": the other memory size of the card,
		// which the answer on the asked one settles.
		p.ignore(i, i+1)
		p.note(fmt.Sprintf("%s read as the %s GB cards the asked ones are weighed against: the answer is on the cards asked", quote("the "+t.raw), k[:d]))
		return 1
	}
	if res, ok := imageSide(k); ok && d > 0 {
		// An image size: 1024px, 1024x1024 (a diffusion model's side).
		p.setWhole(fRes, int64(res), true, t.raw)
		return 1
	}
	if d > 0 && d < len(k) && k[d] == 'x' {
		count, _ := parseNumber(k[:d])
		c := 1 << 20
		if v, ok := count.scaled(1); ok {
			c = int(min(v, 1<<20))
		}
		rest := k[d+1:]
		if rest == "" { // "8x h100", "2x 24GB"
			if i+1 < len(p.toks) && !p.toks[i+1].ignorable {
				if gb, ok := typedGB(p.toks[i+1].key); ok && hostRAMAfter(p.toks, i+2) == 0 {
					p.setCount(c, p.text(i, i+2))
					return 1 + p.memoryAt(i+1, 1, gb)
				}
				if w, m := p.lookup(i+1, false); w.kind == kindGPU {
					p.setGPU(w.val, w.note, p.text(i+1, i+1+m))
					p.setCount(c, p.text(i, i+1+m))
					return 1 + m
				}
				if _, m := p.outsideCardAt(i + 1); m > 0 { // "2x 2080 ti"
					p.setCount(c, p.text(i, i+1+m))
					return 1 + p.outsideCardName(i+1)
				}
			}
			return 0
		}
		restRaw := t.raw[strings.IndexAny(t.raw, "xX")+1:] // the GPU after "2x"
		id, note, ok := p.lex.matchGPU(restRaw)
		if !ok && (strings.HasSuffix(restRaw, "s") || strings.HasSuffix(restRaw, "S")) {
			id, note, ok = p.lex.matchGPU(restRaw[:len(restRaw)-1]) // "2xh100s"
		}
		if ok {
			p.setGPU(id, note, restRaw)
			p.setCount(c, t.raw)
			return 1
		}
		if num, ok := parseNumber(rest); ok && num.scale() > scaleThousand {
			p.setSize(num, c, t.raw)
			return 1
		}
		if gb, ok := typedGB(rest); ok { // "2x24gb": two cards of 24 GB
			p.setCount(c, t.raw)
			return p.memoryAt(i, 1, gb)
		}
		return 0
	}
	// A keyword glued to its number: r16, seq4096, ctx8k, bs8, mbs2.
	if pre := strings.IndexAny(k, "0123456789"); pre > 0 && gluedKeys.has(k[:pre]) {
		num, ok := parseNumber(k[pre:])
		if !ok {
			return 0
		}
		switch phrases[k[:pre]].kind {
		case kindSeqKey:
			p.setSeq(num, t.raw)
		case kindBatchKey:
			p.setNum(fBatch, num, t.raw)
		default:
			p.setNum(fRank, num, t.raw)
		}
		return 1
	}
	// A GPU with its count glued after: a100x8, h100x8.
	if x := strings.LastIndexByte(k, 'x'); x > 0 && x < len(k)-1 {
		num, ok := parseNumber(k[x+1:])
		if ok && num.isInteger() {
			rawX := strings.LastIndexAny(t.raw, "xX")
			if id, note, ok := p.lex.matchGPU(t.raw[:rawX]); ok {
				c, _ := num.scaled(1)
				p.setGPU(id, note, t.raw[:rawX])
				p.setCount(int(min(c, 1<<20)), t.raw)
				return 1
			}
		}
	}
	return 0
}

// unknown handles a word nothing else used: a near miss of a model or GPU
// name is an error with suggestions, any other word with a digit is an
// error, and plain words are ignored. It reports the tokens it covered.
func (p *parser) unknown(i int) int {
	t := p.toks[i]
	if !hasDigit(t.key) && !p.lex.isModelFamily(t.key) && !gpuFamilies.has(t.key) {
		if to, ok := p.correction(t.key); ok {
			p.fixes = append(p.fixes, typoFix{from: i, to: i + 1, text: to})
			p.ignore(i, i+1)
			return 1
		}
	}
	if gb, ok := typedGB(t.key); ok { // read after a problem too: it may size an unknown card
		return p.memoryAt(i, 1, gb)
	}
	if p.err != nil {
		// Only the first problem is reported; spare the suggestion search.
		p.ignore(i, i+1)
		return 1
	}
	if repo, ok := sizing.HubRepoID(t.raw); ok {
		p.setHub(repo, t.raw)
		return 1
	}
	if p.splitName(i) || p.fineTuneName(i) {
		return 1
	}
	if n := p.outside(i); n > 0 {
		return n
	}
	// A model family word ("llama", "qwen2.5") starts a name: take the
	// words with digits after it as part of what was meant.
	if p.lex.isModelFamily(t.key) {
		j := i + 1
		for j < len(p.toks) && j < i+6 && !p.toks[j].ignorable && (hasDigit(p.toks[j].key) || !p.toks[j].known) && p.isNameish(j) {
			j++
		}
		if j == i+1 && p.q.Params > 0 && p.q.Model == "" && i > 0 && p.words[fModel] == p.toks[i-1].raw &&
			slices.ContainsFunc(p.toks, func(t token) bool { return scratchWords.has(t.key) }) {
			// "a 3b llama from scratch": the family is the architecture
			// of the size said, which a bare size is sized as ("llama"
			// is not refused); a model of it to fine-tune is another
			// question.
			p.ignore(i, i+1)
			p.note(fmt.Sprintf("%s read as the architecture of the %s model: a %s-style dense model of that size", quote(p.text(i-1, i+1)), p.toks[i-1].raw, t.raw))
			return 1
		}
		words := p.text(i, j)
		p.missingModel(i, j)
		p.unknownName(i, j, p.lex.suggestModels(words), modelName)
		return j - i
	}
	if gpuFamilies.has(t.key) {
		j := i + 1
		for j < len(p.toks) && j < i+3 && !p.toks[j].ignorable && hasDigit(p.toks[j].key) && p.isNameish(j) && !p.memoryWordAt(j) {
			j++
		}
		words := p.text(i, j)
		if s := p.lex.suggestGPUs(words); !p.nameFix(i, j, s) {
			p.unknownName(i, j, s, gpuName)
		}
		return j - i
	}
	if n := p.percentAt(i); n > 0 {
		return n
	}
	if typedQuantity(t.key) {
		// "500ms", "3wk", "p95" left over: a quantity typed by its unit
		// whose slot is unclear goes to the second reader, never to a
		// name lookup (quantity.go).
		p.ignore(i, i+1)
		p.unread.unused = append(p.unread.unused, t.raw)
		return 1
	}
	if hasDigit(t.key) {
		if looksLikeGPU(t.key) {
			if s := p.lex.suggestGPUs(t.raw); !p.nameFix(i, i+1, s) {
				p.unknownName(i, i+1, s, gpuName)
			}
		} else if s := p.lex.suggestModels(t.raw); len(s) > 0 {
			if !p.nameFix(i, i+1, s) {
				p.missingModel(i, i+1)
				p.unknownName(i, i+1, s, modelName)
			}
		} else if _, _, ok := sizeSaid(t.raw); ok {
			// "my in-house 45b-moe-custom": a name no catalog has, with
			// its size in it.
			p.missingModel(i, i+1)
			p.unknownName(i, i+1, nil, modelName)
		} else {
			p.failAt(i, i+1, "", fmt.Sprintf("I do not understand %s", quote(t.raw)), nil)
		}
		return 1
	}
	p.ignore(i, i+1)
	if carriesMeaning(t.raw) { // chat ("plese", "q") is phrasing
		p.unread.unused = append(p.unread.unused, t.raw)
	}
	return 1
}

// setHub records a model named by its Hub repo id or link: the catalog's
// entry when it has one, else the repo id for the caller to resolve.
func (p *parser) setHub(repo, words string) {
	if id, note, ok := p.lex.matchModel(repo); ok {
		p.setModel(id, note, words)
		return
	}
	p.setModel(repo, "", words)
	if p.q.Model == repo {
		p.hub = repo
	}
}

// missingModel records tokens [from, to) as a model name the catalog
// lacks, the first one only.
func (p *parser) missingModel(from, to int) {
	if p.missing.Words == "" && p.words[fModel] == "" {
		p.missing = NameSpan{Words: p.text(from, to), Start: p.toks[from].start, End: p.toks[to-1].end}
	}
}

// splitName reads a Hugging Face style name with a setting glued on
// ("Llama-3.1-8B-Instruct-AWQ", "Qwen2.5-7B-Instruct-GPTQ-Int4",
// "h100-fp8"): a catalog name, a hyphen, then one of the parser's words.
func (p *parser) splitName(i int) bool {
	raw := p.toks[i].raw
	for cut := strings.LastIndexAny(raw, "-_"); cut > 0; cut = strings.LastIndexAny(raw[:cut], "-_") {
		w, ok := phrases[keyOf(raw[cut+1:])]
		if !ok || w.kind == kindFiller {
			continue
		}
		name := raw[:cut]
		if id, note, ok := p.lex.matchModel(name); ok {
			p.setModel(id, note, name)
		} else if id, note, ok := p.lex.matchGPU(name); ok {
			p.setGPU(id, note, name)
		} else {
			continue
		}
		p.apply(w, raw[cut+1:])
		return true
	}
	return false
}

// percentAt reads a percentage at token i that nothing else used ("at
// 80% utilization"): never a model or card name ("80%" is no near
// miss of t5-base), it is left unused with the word it is a share of.
// It reports the tokens it covered, 0 when token i is no percentage.
func (p *parser) percentAt(i int) int {
	raw := p.toks[i].raw
	if !strings.HasSuffix(raw, "%") || !hasDigit(p.toks[i].key) {
		return 0
	}
	n := 1
	if i+1 < len(p.toks) && busyWords.has(strings.ToLower(p.toks[i+1].raw)) {
		n = 2
	}
	p.ignore(i, i+n)
	p.unread.unused = append(p.unread.unused, p.text(i, i+n))
	return n
}

// fineTuneTag matches the words a team adds to a model's name for its own
// fine-tune: "sft", "dpo", "v2", "ft", "ours", "run3", "step1200"
// (vocab.txt: finetune_tag, and the words a number may or must follow).
var fineTuneTag = regexp.MustCompile(`^(` + alternation("finetune_tag") + `|(` + alternation("finetune_tag_numbered") + `)\d*|(` +
	alternation("finetune_tag_counted") + `)\d+|v\d+(\.\d+)?|\d+)$`)

// alternation is the words of a vocab.txt set as a regular expression's
// alternatives, in a fixed order.
func alternation(set string) string {
	words := slices.Sorted(maps.Keys(vocab.set(set).words))
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, "|")
}

// fineTuneName reads a team's fine-tune named after its base model
// ("llama-3-8b-sft-v2"): a catalog name, then only fine-tune tags. It is
// sized as the base, whose shape a fine-tune keeps, and said (not an
// unknown 8B, nor a full fine-tune to run).
func (p *parser) fineTuneName(i int) bool {
	raw := p.toks[i].raw
	for cut := strings.LastIndexAny(raw, "-_"); cut > 0; cut = strings.LastIndexAny(raw[:cut], "-_") {
		tags := strings.FieldsFunc(strings.ToLower(raw[cut+1:]), func(r rune) bool { return r == '-' || r == '_' })
		if !slices.ContainsFunc(tags, func(t string) bool { return !fineTuneTag.MatchString(t) }) {
			if !hasDigit(raw[:cut]) {
				return false // "deepseek-v2": a family word and a version, another model
			}
			id, _, ok := p.lex.matchModel(raw[:cut])
			if !ok {
				continue
			}
			base := id
			if m, _, err := sizing.LookupModel(id); err == nil {
				base = m.Name
			}
			p.setModel(id, fmt.Sprintf("%s taken as a fine-tune of %s: the same shape, so the same memory and speed", quote(raw), base), raw)
			return true
		}
		return false
	}
	return false
}

// fullReading is what "full" is read as where a full_as slot row matches
// (vocab.txt), by the class the row captures: what it is read as, and how
// many words from "full" on that reading takes (the rest are read as
// usual: "671b" is the size, "128k ctx" the context).
type fullReading struct {
	reading string
	takes   int
}

// fullReadings are the readings of "full" by the class a full_as row
// captures.
var fullReadings = map[string]fullReading{
	"MODEL_NOUNS": {"the whole model", 1}, "NUMUNIT_B": {"the whole model", 1},
	"FULL_LOAD": {"the cards kept busy", 2}, "WORD_SEQ": {"the whole context", 1},
}

// fullAs reads "full" at token i as something other than the method: a
// full_as row that matches there, or from the word before it ("the full
// 671b"), gives the reading and how many words from "full" it covers.
func (p *parser) fullAs(i int) (fullReading, int, bool) {
	key := keysOf(p.toks)
	for _, from := range []int{i, i - 1} {
		if m, ok := fullAsSlot.at(key, from); ok && from+m.n > i {
			for _, v := range m.values {
				if r, ok := fullReadings[v.class]; ok {
					return r, from + m.n - i, true
				}
			}
		}
	}
	return fullReading{}, 0, false
}

// isNameish reports whether token j could continue a model or GPU name
// ("5", "70b", "v2") rather than start something of its own ("2x4090").
func (p *parser) isNameish(j int) bool {
	w, _ := p.lookup(j, false)
	return w.kind == 0 && !fillerTypo(p.toks[j].key) || w.kind == kindModel
}

// unknownNumber is a lone number that counts nothing: a mistyped GPU
// ("4900") or a stray figure.
func (p *parser) unknownNumber(from, to int) {
	words := p.text(from, to)
	if looksLikeGPU(keyOf(words)) {
		if s := p.lex.suggestGPUs(words); len(s) > 0 {
			p.unknownName(from, to, s, gpuName)
			return
		}
	}
	p.failAt(from, to, "", fmt.Sprintf("%s is a number without a meaning here: say what it counts (\"8 gpus\", \"seq 4096\", \"13b\")", quote(words)), nil)
}

// nameKind is what a name the catalogs lack was read as, in the words a
// refusal says it with.
type nameKind string

const (
	modelName nameKind = "model"
	gpuName   nameKind = "GPU"
)

// unknownName refuses the name in tokens [from, to) that no catalog
// holds, suggesting the similar names it does hold; the Try is the
// question with the first of them in its place.
func (p *parser) unknownName(from, to int, suggestions []string, kind nameKind) {
	words := p.text(from, to)
	problem := fmt.Sprintf("%s is not a %s I know", quote(words), kind)
	// A name that shares only digits with what was asked ("rtx-4090" for
	// "40ms", "t5-base" for "8x") is another question, never a suggestion.
	suggestions = slices.DeleteFunc(slices.Clone(suggestions), func(id string) bool { return !sharesName(words, id) })
	if kind == modelName {
		size, params, sized := sizeSaid(words)
		v, varied := wordSaid(words, func(w string) bool { return variantWords.has(w) && !sizeWords.has(w) })
		if varied {
			// "qwen2.5-vl 72b": a suggestion without the variant word
			// (qwen2.5-72b, text only) is another kind of model.
			suggestions = slices.DeleteFunc(slices.Clone(suggestions), func(id string) bool { return !slices.Contains(nameWords(id), v) })
		}
		if sized {
			// "gemma 2b": only the suggestions of that size (gemma-2-2b,
			// not gemma-2-9b).
			suggestions = slices.DeleteFunc(slices.Clone(suggestions), func(id string) bool { return !hasSize(id, size) })
		}
		if sized && len(suggestions) == 0 && varied {
			// "qwen2.5-vl 72b": a bare 72B is a text-only decoder,
			// another question.
			p.fail(problem+"; I know no similar "+strings.ToUpper(size)+" model with "+quote(v)+": name it by its Hugging Face id and fitbot reads its config.json",
				func(q *sizing.Query) { q.Model, q.Params, q.Experts = "ORG/MODEL", 0, 0 })
			return
		}
		if sized && len(suggestions) == 0 {
			// "llama 3.2 vision 11b": no catalog model of that size is
			// like it; the Try keeps the size asked, not another model.
			p.fail(problem+"; I know no similar "+strings.ToUpper(size)+" model: name it by its Hugging Face id, or size it as a bare "+strings.ToUpper(size),
				func(q *sizing.Query) { q.Model, q.Params, q.Experts = "", params, 0 })
			return
		}
		if size, ok := wordSaid(words, func(w string) bool { return sizeWords.has(w) }); ok {
			// "t5-xl": a suggestion of another size (t5-base, 220M for a
			// 3B) would be another question; keep those of its size.
			suggestions = slices.DeleteFunc(slices.Clone(suggestions), func(id string) bool { return !hasSize(id, size) })
			if len(suggestions) == 0 {
				if p.err == nil {
					p.fail(problem+"; I know no model of its size ("+size+"), so there is no similar question to offer: name it by its Hugging Face id", nil)
					p.try = tryNone
				}
				return
			}
		}
	}
	if len(suggestions) == 0 {
		p.fail(problem+"; "+knownHint(kind), nil)
		if kind == gpuName {
			p.unknownGPU(words)
		}
		return
	}
	problem += "; did you mean " + strings.Join(suggestions, ", ") + "?"
	first := suggestions[0]
	if kind == gpuName {
		// A card the catalog lacks is sized by its memory: say how.
		problem += fmt.Sprintf(" (a card I do not know: add its memory, %s)", quote(words+" 16gb"))
		p.failAt(from, to, first, problem, func(q *sizing.Query) { q.GPU = first })
		p.unknownGPU(words)
	} else {
		p.failAt(from, to, first, problem, func(q *sizing.Query) { q.Model, q.Params, q.Experts = first, 0, 0 })
	}
}

func knownHint(kind nameKind) string {
	if kind == gpuName {
		return "name a card such as rtx-4090, a100-80 or h100"
	}
	return "name a catalog model such as llama-3.1-8b or give a size such as 13b"
}

// sizeSaid is the parameter count written among a model's words ("11b"
// in "llama 3.2 vision 11b"): the word, lower case, and its value.
func sizeSaid(words string) (string, int64, bool) {
	for _, w := range nameWords(words) {
		num, ok := parseNumber(w)
		if !ok || num.neg || !num.sizeScaled() {
			continue
		}
		if v, ok := num.scaled(decimalUnit(num.suffix)); ok && v >= sizing.MinBareParams && v <= sizing.MaxParams {
			return w, v, true
		}
	}
	return "", 0, false
}

// nameWords are the words of a model name, lower case, split at spaces,
// hyphens and underscores: "45b-moe-custom" is 45b, moe and custom.
func nameWords(words string) []string {
	return strings.FieldsFunc(strings.ToLower(words), func(r rune) bool { return r == ' ' || r == '-' || r == '_' || r == '\t' })
}

// sharesName reports whether a suggested catalog id shares more than
// digits with the words asked: a run of two or more letters ("qwen",
// "rtx", "ti"), or the letter a name starts with ("h" of "h1000" and
// "h100"). A size's or count's letter after digits ("b" of "32b", "x" of
// "8x") names nothing. A bare model number ("4900") has only digits to
// share.
func sharesName(words, id string) bool {
	if strings.Trim(words, "0123456789 ") == "" {
		return true
	}
	theirs := nameLetters(id)
	for _, run := range nameLetters(words) {
		if slices.Contains(theirs, run) {
			return true
		}
	}
	return false
}

// nameLetters are the letter runs of a name's words that can name
// something (see sharesName).
func nameLetters(words string) []string {
	var runs []string
	for _, w := range nameWords(words) {
		for i := 0; i < len(w); {
			j := i
			for j < len(w) && ('a' <= w[j] && w[j] <= 'z' || w[j] >= utf8.RuneSelf) {
				j++
			}
			if j-i >= 2 || j > i && i == 0 {
				runs = append(runs, w[i:j])
			}
			i = max(j, i+1)
		}
	}
	return runs
}

// hasSize reports whether a catalog id carries the size word size:
// "gemma-2-2b" carries 2b, "mixtral-8x7b" 7b, "gemma-2-27b" not 7b.
func hasSize(id, size string) bool {
	return slices.ContainsFunc(nameWords(id), func(w string) bool { return w == size || strings.HasSuffix(w, "x"+size) })
}

// wordSaid is the first of a model's words that is one of its kind
// ("vl" in "qwen2.5-vl 72b", "xl" in "t5-xl").
func wordSaid(words string, kind func(string) bool) (string, bool) {
	for _, w := range nameWords(words) {
		if kind(w) {
			return w, true
		}
	}
	return "", false
}

// memoryWordAt reports whether token j starts a typed GPU memory ("6gb",
// "6 gb"): it is the card's memory, never part of an unknown card's name
// ("rtx 2060 6gb").
func (p *parser) memoryWordAt(j int) bool {
	if _, ok := typedGB(p.toks[j].key); ok {
		return true
	}
	_, ok := parseNumber(p.toks[j].key)
	return ok && j+1 < len(p.toks) && gbUnits.has(p.toks[j+1].key)
}

// unknownGPU records words as a card the catalog lacks when the failure
// just recorded is theirs: a typed memory ("4060 ti 16gb") sizes it
// (resolveMemory).
func (p *parser) unknownGPU(words string) {
	if p.err != nil && p.card == "" && p.words[fGPU] == "" {
		p.card = words
	}
}

// looksLikeGPU reports whether a key has the shape of a GPU model number:
// up to four letters, two to four digits, up to four letters ("4900",
// "rtx4095", "a200", "h300x").
func looksLikeGPU(k string) bool {
	if isDuration(k) {
		return false // "500ms", "40ms": a time, typed before names are looked up
	}
	i := 0
	for i < len(k) && i < 4 && 'a' <= k[i] && k[i] <= 'z' {
		i++
	}
	d := i
	for i < len(k) && isDigit(k[i]) {
		i++
	}
	if n := i - d; n < 2 || n > 4 {
		return false
	}
	e := i
	for i < len(k) && 'a' <= k[i] && k[i] <= 'z' {
		i++
	}
	return i == len(k) && i-e <= 4
}

// isDuration reports whether a key is a number glued to a unit of time:
// "500ms", "2s", "1.5sec".
func isDuration(k string) bool {
	i := 0
	for i < len(k) && (isDigit(k[i]) || k[i] == '.' && i > 0) {
		i++
	}
	return i > 0 && i < len(k) && durationUnits.has(k[i:])
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

// keysOf reads the keys of toks for slot patterns: "" past either end.
func keysOf(toks []token) func(int) string {
	return func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return toks[i].key
	}
}

// is reports whether token k is a word of set; false past the end.
func (p *parser) is(k int, set *wordSet) bool {
	return k >= 0 && k < len(p.toks) && set.has(p.toks[k].key)
}

// The words of parse.go's own tests (vocab.txt, its parse.go section).
var (
	modelsNoun    = vocab.set("models_noun")
	outsideFirst  = vocab.set("uncataloged_first")
	fullPrecision = vocab.set("full_precision")
	ofWords       = vocab.set("of_words")
	lengthText    = vocab.set("length_text")
	countJoins    = vocab.set("count_joins")
	epochJoins    = vocab.set("epoch_joins")
	gluedLengths  = vocab.set("glued_lengths")
	gluedKeys     = vocab.set("glued_keys")
	theWords      = vocab.set("the_words")

	fillerPhraseStarts = vocab.set("filler_phrase_starts") // fillers that start phrases: "long context", "on cpu"
	scratchWords       = vocab.set("scratch")              // training from random weights: pretraining
	// variantWords name a size or kind within a family ("phi-3 medium"):
	// after a catalog name that lacks it, another model was meant.
	variantWords     = vocab.set("variant_words")
	ownerWords       = vocab.set("owner_words")             // before "fine-tuned": a model ("our fine-tuned llama"), not a run
	trainedWords     = vocab.set("trained_words")           // after an objective ("dpo tuned"): how a model was made
	lengthDescribers = vocab.set("length_describers")       // between a length and its noun: "16k rag context", "2k text tokens"
	exampleWords     = vocab.set("example_words")           // a dataset's examples: "50k examples of 1k tokens" is a budget
	exampleKinds     = vocab.set("example_kinds")           // between a count of examples and their noun: "100k chat samples"
	lengthLeads      = vocab.set("length_leads")            // between examples and their length: "of", "avg", "each"
	docNouns         = vocab.set("doc_nouns")               // a batch job's documents ("embed 5M documents"): see docJob
	teamWords        = vocab.set("team_words")              // groups whose size counts users: "a team of 15"
	hedgeWords       = vocab.set("keyword_hedge")           // between a keyword and its number: "context like 32k"
	scaleWords       = vocab.values("scale")                // number words written apart, with their suffix: "70 billion"
	memoryVariants   = vocab.set("memory_variant")          // a family's memory sizes in GB, plural as its cards: "the 80s"
	multiWords       = vocab.set("multi_words")             // before a node word, no count: "multi node"
	vendors          = vocab.set("vendors")                 // makers' words between a count and a GPU
	nodeTimes        = vocab.set("count_times_after_nodes") // the times sign of a count said right after machines: "2 nodes 8xh100"
	nodeOf           = vocab.set("node_of")                 // after machines, the next GPU count per machine: "2 nodes of 8"
	busyWords        = vocab.set("busy_words")              // what a percentage is a share of: "80% utilization"
	sizeWords        = vocab.set("size_words")              // sizes named apart from parameter counts: T5's xl, BERT's large
	gpuFamilies      = vocab.set("gpu_families")            // words that start a GPU name but are not one alone
	durationUnits    = vocab.set("duration_unit")           // the units of a time
	tokenWords       = vocab.set("tokens")                  // the TOKENS class of the slot rows
)
