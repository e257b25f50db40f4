package reading

// Routing: which kind of message a text is, before it is read as a sizing
// question. A price question ("how much does an H100 cost per hour?", "is
// the H200 cheaper than the H100 this week?") goes to prices, small talk
// and thanks get a friendly word, a request for help gets help; anything
// else is a sizing question for Parse. Route is deterministic and does no
// I/O, like Parse.

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// RouteKind is the kind of a message.
type RouteKind string

// The kinds of message.
const (
	RouteSizing RouteKind = "sizing" // a sizing question: read it with Parse
	RoutePrice  RouteKind = "price"  // GPU prices: of the GPUs named, or of every GPU
	RouteChat   RouteKind = "chat"   // small talk or thanks
	RouteHelp   RouteKind = "help"   // what fitbot can do, or nothing to read at all
	RoutePlans  RouteKind = "plans"  // the team's earlier plans: "what did we decide for llama last month?"
)

// Routing is where a message goes.
type Routing struct {
	Kind RouteKind `json:"kind,omitempty"`
	// GPUs are the catalog ids a price question names, in the order
	// said: none (every GPU), one, or two to compare.
	GPUs []string `json:"gpus,omitempty"`
	// Said are the words that named each of GPUs, as said without a
	// plural s ("a100" for "a100s"): a family name there ("a100", "h100")
	// asks about every variant of the family.
	Said []string `json:"said,omitempty"`
	// Spot is true when a price question asks for spot (preemptible)
	// prices: they are listed, or their absence is said first.
	Spot bool `json:"spot,omitempty"`
	// Reserved is true when a price question asks for reserved or
	// committed-use prices ("reserved vs on demand"): they are listed, or
	// their absence is said first.
	Reserved bool `json:"reserved,omitempty"`
	// Providers are the clouds a price question names ("on lambda vs
	// runpod"), by the name offers are filed under, in the order said;
	// none: every provider.
	Providers []string `json:"providers,omitempty"`
	// Week is true when a price question asks about the week ("this
	// week", "lately"): the digest's numbers answer it.
	Week bool `json:"week,omitempty"`
	// Power is true when a price question asks the electricity a card
	// draws ("electricity cost", "power bill", "kwh"): its board power
	// and what it costs, not its rental price.
	Power bool `json:"power,omitempty"`
	// Month is true when a price question asks for a month ("monthly",
	// "per month"): the answer adds each named GPU's cost around the
	// clock for a month.
	Month bool `json:"month,omitempty"`
	// Counts are the GPU counts said before each of GPUs ("8x h100": 8),
	// 0 where none was said.
	Counts []int `json:"counts,omitempty"`
	// GPUProviders are the providers named right after each of GPUs ("8x
	// a100 on gcp or 8x h100 on lambda": gcp, lambda), set only when each
	// GPU has its own; each GPU is then priced at its provider.
	GPUProviders []string `json:"gpu_providers,omitempty"`
	// Hours is a rental period asked ("for a week": 168), 0 when none;
	// Period the words that said it.
	Hours  float64 `json:"hours,omitempty"`
	Period string  `json:"period,omitempty"`
	// RunAsked is true when a price question names a training run or a
	// fine-tune but no model ("which is cheaper for a training run"): the
	// answer is per GPU-hour and says what a run's cost needs (RunLine).
	RunAsked bool `json:"run_asked,omitempty"`
	// Greeting is true when small talk greets ("hello there") and does
	// not thank: it is greeted back, not thanked.
	Greeting bool `json:"greeting,omitempty"`
	// Plans are the words of a plans question that name the model
	// ("llama" in "what did we decide for llama last month?"), as said;
	// "" when it names none.
	Plans string `json:"plans,omitempty"`
	// Args are the words after a command's own word ("17" of "plan 17",
	// "add box: 2x 4090" of "hardware add box: 2x 4090").
	Args string `json:"args,omitempty"`
	// Topic is the command a request for help asks about ("hardware" for
	// "how do i add our machines"); "" for help with everything.
	Topic string `json:"topic,omitempty"`
	// History is true when a price question asks how prices moved over
	// time ("have h100 prices gone down", "price trend over the last 3
	// months"): the prices observed over the last 90 days answer it.
	History bool `json:"history,omitempty"`
}

// Words of the routing pass, by key.
var (
	priceWords      = vocab.set("price")
	powerWords      = vocab.set("power")
	reservedWords   = vocab.set("reserved")
	priceMonthWords = keySet(monthWords.words, map[string]bool{"monthly": true, "permonth": true})
	weekWords       = vocab.set("week")
	chatWords       = vocab.set("chat")
	helpWords       = vocab.set("help")
	greetWords      = vocab.set("greet")
	thanksWords     = vocab.set("thanks")
	helpAsks        = vocab.set("help_ask")
)

// Route says which kind of message text is. It reads words only; a
// text that Parse would reject still routes (to RouteSizing), so that
// the parser's own message explains what is wrong.
func Route(text string) Routing {
	// The words as said, whatever the spacing between them: what the
	// routing quotes back (Said) reads the same for "t 4" and "t \t 4".
	text = strings.Join(strings.Fields(text), " ")
	toks, err := lex(text)
	if err != nil {
		return Routing{Kind: RouteSizing}
	}
	if r, ok := commandRoute(text, toks); ok {
		return r
	}
	words := 0
	chat, help, asksHelp, price, week, spot, month, reserved, power := true, true, false, false, false, false, false, false, false
	greets, thanks := false, false
	hours, period, from, to := rentalPeriod(text, toks)
	key := keysOf(toks) // an ignorable token has no key
	served := 0         // the words up to here ask what the cards serve, not a price
	for i, t := range toks {
		if t.ignorable {
			continue
		}
		if m, ok := tokensAskedSlot.at(key, i); ok {
			served = i + m.n // "how many tokens per hour can 8x h100 serve"
		}
		words++
		k := t.key
		chat = chat && chatWords.has(k)
		help = help && helpWords.has(k)
		asksHelp = asksHelp || helpAsks.has(k)
		price = price || i >= served && (priceWords.has(k) || t.raw[0] == '$' || k == "h" && t.raw == "/h" || howMuchIs(toks, i) ||
			vocab.phraseAt("price", toks, i)) // "what's an h100 going for""
		week = week || weekWords.has(k) && (i < from || i >= to) // "for a week" is a rental, not the digest
		month = month || priceMonthWords[k]
		spot = spot || phrases[k].kind == kindSpot
		reserved = reserved || reservedWords.has(k)
		power = power || powerWord(k)
		greets, thanks = greets || greetWords.has(k), thanks || thanksWords.has(k)
	}
	if r, ok := askedRoute(text, toks); ok {
		return r
	}
	if model, ok := plansAsked(toks); ok {
		return Routing{Kind: RoutePlans, Plans: model}
	}
	// A provider named with no price word still asks its price ("h100 on
	// runpod right now"), unless a model or method makes it a run's cost.
	price = price || len(providersNamed(toks)) > 0
	switch {
	case words == 0:
		return Routing{Kind: RouteHelp}
	case chat && !(words == 1 && toks[len(toks)-1].key == "help"):
		return Routing{Kind: RouteChat, Greeting: greets && !thanks}
	case help && asksHelp:
		return Routing{Kind: RouteHelp}
	case !price:
		return Routing{Kind: RouteSizing}
	}
	// A price word with a model or a method is the cost of a run, which
	// the sizing answer gives.
	p, _ := Parse(text)
	// A method read only from a verb ("to run one h100 24/7") names no job.
	if p.Query.Model != "" || p.Query.Params != 0 || p.Query.Method != "" && p.Query.Method != sizing.MethodInference && !p.MethodImplied || p.Missing.Words != "" || p.Hub != "" ||
		p.Intent == sizing.IntentBuyRent || p.Intent == sizing.IntentMaxContext || p.Intent == sizing.IntentWhichGPU || closedNamed(toks) {
		return Routing{Kind: RouteSizing}
	}
	gpus, said, counts := gpusNamed(text, toks)
	runAsked := slices.ContainsFunc(toks, func(t token) bool { return trainingRunWords[t.key] })
	history := historyAsked(toks)
	// A span back in time ("the last few months") is not a month's rent.
	return Routing{Kind: RoutePrice, GPUs: gpus, Said: said, Counts: counts, Week: week, History: history, Month: month && !history, Power: power, Hours: hours, Period: period, RunAsked: runAsked,
		Spot: spot, Reserved: reserved, Providers: providersNamed(toks), GPUProviders: providerPerGPU(text, toks, len(gpus))}
}

// powerWord reports whether key asks about electricity: a word of
// powerWords, or "electricity" typed with up to two slips ("electricty",
// "electicity", "electrcity"), so "the monthly electricty cost" asks
// the power bill, not the rent of the cards.
func powerWord(key string) bool {
	if powerWords.has(key) {
		return true
	}
	if len(key) < 9 || len(key) > 13 || !strings.HasPrefix(key, "ele") {
		return false
	}
	var w sizing.EditRows
	return w.Distance(key, "electricity", 2) <= 2
}

// providerNames are the clouds a price question may name, by key, and
// the name their offers are filed under.
var providerNames = map[string]string{
	"aws": "aws", "amazon": "aws", "ec2": "aws", "azure": "azure", "gcp": "gcp", "google": "gcp", "googlecloud": "gcp",
	"lambda": "lambda", "lambdalabs": "lambda", "lambdacloud": "lambda", "runpod": "runpod", "runpod.io": "runpod",
	"vast": "vast", "vastai": "vast", "vast.ai": "vast", "nebius": "nebius", "oci": "oci", "oracle": "oci",
	"verda": "verda", "datacrunch": "verda", "cloudrift": "cloudrift", "tensordock": "tensordock",
	// Clouds fitbot has no feed for: named so that the answer says it has
	// no price from them, instead of listing every other cloud's silently.
	"coreweave": "coreweave", "together": "together", "togetherai": "together", "crusoe": "crusoe", "paperspace": "paperspace",
	"jarvislabs": "jarvislabs", "fluidstack": "fluidstack", "hyperbolic": "hyperbolic", "modal": "modal",
}

// providersNamed are the providers named in the tokens, each once, in
// the order said.
func providersNamed(toks []token) []string {
	var out []string
	for _, t := range toks {
		// "runpod/vast" names both.
		for _, w := range append(strings.Split(t.low, "/"), t.key) {
			if p, ok := providerNames[w]; ok && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// gpusNamed are the catalog GPUs named in the tokens, longest name first
// at each word, each once, with the words that named each. A count glued
// before a name ("one 8xh100 node") is the count said for it.
func gpusNamed(text string, toks []token) (ids, said []string, counts []int) {
	for i := 0; i < len(toks); {
		n, id, name := 0, "", ""
		glued, skip := gluedCount(toks[i].raw)
		for end := min(len(toks), i+4); end > i && n == 0; end-- {
			words := span(text, toks, i, end)[skip:]
			if g, ok := sizing.MatchGPU(words); ok {
				n, id, name = end-i, g.ID, words
			} else if c := words[len(words)-1]; c == 's' || c == 'S' { // "h100s"
				if g, ok := sizing.MatchGPU(words[:len(words)-1]); ok {
					n, id, name = end-i, g.ID, words[:len(words)-1]
				}
			}
		}
		if n == 0 {
			i++
			continue
		}
		seen := false
		for _, x := range ids {
			seen = seen || x == id
		}
		if !seen {
			count := glued
			if count == 0 {
				count = countBefore(toks, i)
			}
			if count == 0 {
				count = countAfter(toks, i+n) // "h100s x8"
			}
			ids, said, counts = append(ids, id), append(said, name), append(counts, count)
		}
		i += n
	}
	return ids, said, counts
}

// gluedCount reads a count glued before a GPU name in one word ("8xh100",
// "2x4090"): the count and the bytes it covers with its "x"; 0, 0 when the
// word starts with none.
func gluedCount(raw string) (count, skip int) {
	d := 0
	for d < len(raw) && isDigit(raw[d]) {
		d++
	}
	if d == 0 || d+1 >= len(raw) || raw[d] != 'x' && raw[d] != 'X' {
		return 0, 0
	}
	n, err := strconv.Atoi(raw[:d])
	if err != nil || n < 1 || n > sizing.MaxGPUs {
		return 0, 0
	}
	return n, d + 1
}

// countBefore is the GPU count said just before token i ("8x", "8 x",
// "8"), or 0.
func countBefore(toks []token, i int) int {
	j := i - 1
	if j >= 1 && (toks[j].key == "x" || toks[j].key == "×") {
		j--
	}
	if j < 0 {
		return 0
	}
	if v, ok := unitWords[toks[j].key]; ok { // "three a100s"
		return v
	}
	if v, ok := teenWords[toks[j].key]; ok {
		return v
	}
	k := strings.TrimSuffix(strings.TrimSuffix(toks[j].key, "x"), "×")
	n, err := strconv.Atoi(k)
	if err != nil || n < 1 || n > sizing.MaxGPUs {
		return 0
	}
	return n
}

// countAfter is the GPU count said just after a GPU name ending before
// token j ("x8", "x 8", "×8"), or 0.
func countAfter(toks []token, j int) int {
	if j >= len(toks) {
		return 0
	}
	k, ok := strings.CutPrefix(toks[j].key, "x")
	if ok && k == "" && j+1 < len(toks) {
		k = toks[j+1].key // "x 8"
	}
	n, err := strconv.Atoi(k)
	if !ok || err != nil || n < 1 || n > sizing.MaxGPUs {
		return 0
	}
	return n
}

// FamilyModels are the catalog models of the family a word names, in
// catalog order: "llama" gives every Llama, "qwen" every Qwen generation,
// "qwen2.5" that generation only. A name with digits that names one
// model ("llama-3.1-8b"), or a word that names no family, gives none.
func FamilyModels(word string) []sizing.Model {
	key := strings.ReplaceAll(keyOf(strings.TrimSpace(word)), " ", "")
	if key == "" {
		return nil
	}
	if _, ok := sizing.MatchModel(word); ok && !isLetters(key) {
		return nil // "llama-3.1-8b": one model
	}
	var out []sizing.Model
	for _, m := range sizing.Models() {
		fam := keyOf(m.Family)
		if fam == key || isLetters(key) && leadingLetters(fam) == key {
			out = append(out, m)
		}
	}
	return out
}

// Words of a plans question: what the team decided or planned before
// (vocab.txt: plans_decided, plans_verb, plans_past, plans_other).
var (
	// plansDecided say on their own that a decision was made.
	plansDecided = vocab.set("plans_decided")
	// plansVerbs ask about a decision when a word of plansPast makes
	// them ask about the past ("what did we pick", "what did we land
	// on"); "can we plan a 70b run" is a sizing question.
	plansVerbs = vocab.set("plans_verb")
	plansPast  = vocab.set("plans_past")
	// plansOther are the rest of a plans question's words, which name
	// no model.
	plansOther = vocab.set("plans_other")
)

// plansAsked reports whether the words ask about the team's earlier
// plans ("what did we decide for llama last month?", "our plans for
// mistral"), and the words left that name the model.
func plansAsked(toks []token) (string, bool) {
	decided, verb, past := false, false, false
	key := keysOf(toks) // an ignorable token has no key
	for i, t := range toks {
		_, chose := plansAskedSlot.at(key, i) // "what did we pick for llama"
		decided = decided || plansDecided.has(t.key) || chose
		verb = verb || plansVerbs.has(t.key)
		past = past || plansPast.has(t.key)
	}
	if !decided && !(verb && past) {
		return "", false
	}
	var model []string
	for _, t := range toks {
		if t.ignorable || plansOther.has(t.key) || plansDecided.has(t.key) {
			continue
		}
		model = append(model, t.raw)
	}
	return strings.Join(model, " "), true
}

// trainingRunWords name a training run in a price question.
var trainingRunWords = map[string]bool{"training": true, "train": true, "finetune": true, "finetuning": true, "finetunes": true,
	"pretraining": true, "pretrain": true, "epoch": true, "epochs": true}

// howMuchIs reports whether token i starts "how much is/are/does/for/per":
// a price asked in words ("how much is an h100 on runpod", "how much per
// month is one a100"), unless it asks how much memory or context ("how
// much vram").
func howMuchIs(toks []token, i int) bool {
	if toks[i].key != "how" || i+2 >= len(toks) || toks[i+1].key != "much" {
		return false
	}
	switch toks[i+2].key {
	case "is", "are", "does", "do", "for", "would", "will", "an", "a", "to", "per":
		return true
	}
	return false
}

// periodHours are the hours of the periods a rental is asked for.
var periodHours = map[string]float64{"hour": 1, "hours": 1, "hr": 1, "hrs": 1, "day": 24, "days": 24, "weekend": 48, "weekends": 48,
	"week": 168, "weeks": 168, "month": 730, "months": 730}

// rentalPeriod reads a rental period ("for a week", "for 3 days", "for
// two weeks"): its hours, its words and the tokens [from, to) it covers;
// 0 hours when none is said.
func rentalPeriod(text string, toks []token) (hours float64, words string, from, to int) {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].key != "for" && !hedgeWords.has(toks[i].key) { // "for 48 hrs", "like 48 hrs"
			continue
		}
		n, j := 0.0, i+1
		switch k := toks[j].key; {
		case k == "a" || k == "an" || k == "one":
			n = 1
		case unitWords[k] > 0:
			n = float64(unitWords[k])
		default:
			v, err := strconv.Atoi(k)
			if err != nil || v < 1 || v > 1000 {
				continue
			}
			n = float64(v)
		}
		if h, ok := periodHours[toks[j+1].key]; ok {
			return n * h, span(text, toks, j, j+2), i, j + 2
		}
	}
	if hours, words, from, to = perPeriod(toks); hours > 0 {
		return hours, words, from, to
	}
	return runPeriod(text, toks)
}

// perPeriods are the periods a cost is asked per ("per day", "a week",
// "daily"); an hour and a month have lines of their own.
var perPeriods = map[string]float64{"day": 24, "week": 168}

// perPeriod reads a cost asked per day or per week ("what does it cost
// per day", "a week", "daily"; "cost per day to run 4x h100" is priced
// for a day, not a month): the period's hours, "a day" or "a week", and
// the tokens it covers.
func perPeriod(toks []token) (hours float64, words string, from, to int) {
	for i, t := range toks {
		switch {
		case t.key == "daily":
			return 24, "a day", i, i + 1
		case t.key == "weekly" && i > 0 && priceWords.has(toks[i-1].key):
			return 168, "a week", i, i + 1 // "cost weekly"; "weekly" alone asks the digest
		case (t.key == "per" || t.key == "a" || t.key == "each" || t.key == "every") && i+1 < len(toks):
			if h, ok := perPeriods[toks[i+1].key]; ok {
				return h, "a " + toks[i+1].key, i, i + 2
			}
		}
	}
	return 0, "", 0, 0
}

// runWordsAfter name what a period before them is the length of: "a 3
// day run", "a 2-week job".
var runWordsAfter = map[string]bool{"run": true, "job": true, "rental": true, "training": true, "stint": true}

// runPeriod reads a period said as a run's length ("a 3 day run", "a
// 2-week job"; "a 3 day run on 64 h100s" is priced for the 3 days, not
// a month).
func runPeriod(text string, toks []token) (hours float64, words string, from, to int) {
	for i := 0; i+1 < len(toks); i++ {
		k := toks[i].key
		d := 0
		for d < len(k) && isDigit(k[d]) {
			d++
		}
		n, err := strconv.Atoi(k[:d])
		if err != nil || n < 1 || n > 1000 {
			continue
		}
		from := i
		if i > 0 && toks[i-1].key == "a" {
			from = i - 1 // "a 3 day run"
		}
		if h, ok := periodHours[k[d:]]; ok && d < len(k) && runWordsAfter[toks[i+1].key] {
			return float64(n) * h, span(text, toks, from, i+2), from, i + 2 // "3day run", "2-week job"
		}
		if h, ok := periodHours[toks[i+1].key]; ok && d == len(k) && i+2 < len(toks) && runWordsAfter[toks[i+2].key] {
			return float64(n) * h, span(text, toks, from, i+3), from, i + 3 // "3 day run"
		}
	}
	return 0, "", 0, 0
}

// providerPerGPU pairs each of n GPUs with the one provider named between
// it and the next GPU ("8x a100 on gcp or 8x h100 on lambda"); nil when n
// is under 2 or any GPU has none or several of its own.
func providerPerGPU(text string, toks []token, n int) []string {
	if n < 2 {
		return nil
	}
	var starts []int // the first word of each card ("a100" of "a100 80gb")
	for i, t := range toks {
		if namesCard(t.raw) {
			starts = append(starts, i)
		}
	}
	if len(starts) != n {
		return nil
	}
	out := make([]string, n)
	for g, from := range starts {
		to := len(toks)
		if g+1 < n {
			to = starts[g+1]
		}
		own := providersNamed(toks[from:to])
		if len(own) != 1 {
			return nil
		}
		out[g] = own[0]
	}
	return out
}
