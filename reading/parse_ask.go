package reading

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// The words of the questions that run the other way round. They are read
// in one pass over the tokens before the main parse, which never sees
// them: "what" and "largest" (largest model), "max context" and "max seq"
// without a number (longest context), "which gpu" (every card that fits),
// and "buy-vs-rent", "buy or rent", "should we buy" with the workload
// ("3 jobs/week 5h", "$0.15/kWh", "over 3 years").

// Bounds on a workload, beyond which the numbers are typos.
const (
	maxJobsPerWeek = 7 * 24
	maxHoursPerJob = 7 * 24
	maxKWhPrice    = 5 // USD per kWh
	maxYears       = 20
)

// askWords is what the intent pass found.
type askWords struct {
	// in is the question, whose words a refusal quotes as said.
	in string

	what, largest, maxContext, whichGPU, buy bool
	// own is a purchase asked as which cards and how many ("how many gpus
	// do we need to buy", "what do we buy", "which card should we order",
	// "on prem box for ..."), never weighed against renting: with a model
	// it is the plan or which-GPU question, the cards to own (Query.Own).
	own       bool
	vram      bool // "how much vram", "vram for": the total and the smallest configurations
	workload  sizing.Workload
	usePeriod string // "6 months": how long the hardware is used, as said
	notes     []string
	problem   string // a workload number that cannot be used
}

// intent decides the kind of question once the main parse has read the
// rest: buy-or-rent first, then longest context, which GPU, and the
// largest model ("what" or "largest" with no model named).
func (a *askWords) intent(q *sizing.Query) sizing.Intent {
	noModel := q.Model == "" && q.Params == 0 && q.Arch == nil
	switch {
	case a.buy && !a.whichGPU && !(a.own && !noModel): // "which gpu should i buy" asks which card, not whether to buy
		return sizing.IntentBuyRent
	case a.maxContext:
		return sizing.IntentMaxContext
	case a.whichGPU, a.vram && !noModel && q.GPU == "" && q.GPUs == 0:
		return sizing.IntentWhichGPU
	case (a.what || a.largest) && noModel:
		return sizing.IntentLargest
	}
	return sizing.IntentFit
}

// Words of the intent pass, by key.
var (
	buyWords     = vocab.set("buy_words")
	rentWords    = vocab.set("rent_words")
	maxWords     = vocab.set("max_words")
	contextWords = vocab.set("context_words")
	maxContextOf = vocab.set("max_context_of")
	largestWords = vocab.set("largest_words")
	vramWords    = vocab.set("vram_words")
	gpuAsked     = vocab.set("gpu_asked")
	jobWords     = vocab.set("job_words")
	jobKinds     = vocab.set("job_kinds") // the kind of job said between a count and its jobs: "4 lora jobs"
	hourWords    = vocab.set("span_hour") // the hours of a run's length: the same words
	yearWords    = vocab.set("year_words")
	monthWords   = vocab.set("month_words")
	runVerbs     = vocab.set("run_verbs")
	eachWords    = vocab.set("each_words")

	// askLeads is every key an intent phrase can start with, so that the
	// intent pass costs the main parse one lookup per ordinary word.
	askLeads = keySet(buyWords.words, maxContextOf.words, maxWords.words, largestWords.words, vramWords.words, vocab.set("ask_leads").words)
)

// perWeek is how many times a week each period word comes round ("day":
// 7, "month": 12/52): the sets jobs_per_week_N and jobs_per_week_N/D of
// vocab.txt.
var perWeek = func() map[string]float64 {
	m := map[string]float64{}
	for w, v := range vocab.values("jobs_per_week") {
		num, den, frac := strings.Cut(v, "/")
		n, err := strconv.ParseFloat(num, 64)
		d := 1.0
		if err == nil && frac {
			d, err = strconv.ParseFloat(den, 64)
		}
		if err != nil {
			panic("reading: vocab.txt: jobs_per_week_" + v + ": " + err.Error())
		}
		m[w] = n / d
	}
	return m
}()

// keySet is the union of the keys of sets.
func keySet(sets ...map[string]bool) map[string]bool {
	u := map[string]bool{}
	for _, set := range sets {
		for k := range set {
			u[k] = true
		}
	}
	return u
}

// readAsk finds the intent words and, for buy-or-rent, the workload, and
// returns the tokens the main parse should read (the rest), filtered in
// place in toks' array: a plain question costs no allocation here.
func readAsk(in string, toks []token) ([]token, askWords) {
	a := askWords{in: in}
	var usedBuf [64]bool
	used := usedFor(toks, usedBuf[:])
	key := keysOf(toks)
	numberAt := func(i int) bool {
		if i >= len(toks) {
			return false
		}
		_, ok := parseNumber(toks[i].key)
		return ok && !sizing.CardNumber(toks[i].key) // "max context 4090" asks on the card
	}
	for i := range toks {
		k := key(i)
		if !askLeads[k] {
			continue
		}
		switch {
		case buyWords.has(k):
			a.buy, used[i] = true, true
		case maxContextOf.has(k) && !numberAt(i+1):
			a.maxContext, used[i] = true, true
		case maxWords.has(k) && contextWords.has(key(i+1)) && !numberAt(i+2):
			a.maxContext, used[i], used[i+1] = true, true, true
		case slotLen(askContextHowSlot, key, i) > 0 && !numberAt(i+3):
			a.maxContext, used[i+2] = true, true
		case slotLen(askVramSlot, key, i) > 0: // "how much vram", "what's the kv cache size for ..."
			a.vram = true
		case (whichWords.has(k)) && gpuAsked.has(key(i+1)):
			a.whichGPU, used[i] = true, true
		case (fastestWords.has(k)) && gpuAsked.has(key(i+1)):
			a.whichGPU = true // the word stays for the main parse: the list, fastest first
		case askWhat.has(k):
			a.what = true
		case slotLen(largestBatchSlot, key, i) > 0:
			// "largest batch" is the serving pass's: the largest batch, not model.
		case largestWords.has(k):
			a.largest, used[i] = true, true
		}
	}
	if !a.buy {
		a.buy = worthRenting(toks, used)
	}
	a.readOwn(toks, used)
	if a.buy {
		a.readWorkload(toks, used)
		if a.workload.JobsPerWeek > 0 || a.workload.HoursPerJob > 0 {
			a.own = false // a use said: owning is weighed against renting for it
		}
		if !a.own {
			for i := range toks {
				if !used[i] && rentWords.has(toks[i].key) {
					used[i] = true
				}
			}
		}
	}
	rest := toks[:0]
	for i, t := range toks {
		if !used[i] {
			rest = append(rest, t)
		}
	}
	return rest, a
}

// ownAskWindow is how far before its verb a "which" or "what" may stand
// and still ask what to buy: "which card should we order" (4 words),
// "which gpus do we need to buy" (5).
const ownAskWindow = 5

// readOwn reads a purchase asked as which cards and how many: a buying
// verb with "how many", "how much", or "which" or "what" a few words
// before it ("what do we buy", "which card should we order"), or "on
// prem" ("how many gpus do we actually need to buy" and "on prem box
// for 100 users, ... what do we buy" ask which cards, not buy-vs-rent
// with its jobs a week). A renting word or a compound
// such as "buy-vs-rent" weighs owning against renting instead. It marks
// the words it read used.
func (a *askWords) readOwn(toks []token, used []bool) {
	key := keysOf(toks)
	var verb, asked, onPrem bool
	for i := range toks {
		k := key(i)
		switch {
		case rentedWords.has(k) || buyWords.has(k) && !ownVerbs.has(k):
			return // "buy or rent", "buy-vs-rent", "worth it vs renting"
		case ownVerbAt(key, i):
			verb = true
			for j := max(i-ownAskWindow, 0); j < i; j++ {
				if w := key(j); whichAskWords.has(w) {
					asked = true
				}
			}
		case slotLen(ownAskedSlot, key, i) > 0:
			asked = true
		case slotLen(onPremSlot, key, i) > 0:
			onPrem = true
		}
	}
	if !onPrem && !(verb && asked) {
		return
	}
	a.own = true
	for i := range toks {
		if buyWords.has(key(i)) || ownVerbAt(key, i) {
			used[i] = true
		}
		markUsed(used, i, i+slotLen(onPremSlot, key, i))
	}
}

// ownVerbAt reports whether token i is a buying verb, not an idiom ("in
// order to", "order of magnitude"; the order_idiom rows of vocab.txt).
func ownVerbAt(key func(int) string, i int) bool {
	return ownVerbs.has(key(i)) && slotLen(orderIdiomSlot, key, i-1) == 0 && slotLen(orderIdiomSlot, key, i) == 0
}

// worthRenting reports whether the question weighs buying against
// renting with "worth it" ("is a 4090 worth it vs renting an a100"),
// marking "worth" (and "it") used. "is lora worth it" with
// no renting word is not one.
func worthRenting(toks []token, used []bool) bool {
	if !slices.ContainsFunc(toks, func(t token) bool { return rentedWords.has(t.key) }) {
		return false
	}
	key := keysOf(toks)
	for i := range toks {
		if n := slotLen(worthItSlot, key, i); n > 0 {
			markUsed(used, i, i+n)
			return true
		}
	}
	return false
}

// readWorkload reads jobs per week, hours per job, the electricity price
// and the years of amortisation, marking the tokens it used.
func (a *askWords) readWorkload(toks []token, used []bool) {
	lower := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return strings.ToLower(toks[i].raw)
	}
	keyAt := keysOf(toks)
	for i := 0; i < len(toks); i++ {
		if used[i] {
			continue
		}
		raw := lower(i)
		// Electricity: "$0.15/kWh", "0.15/kwh", "15c/kwh", "$0.15 per kWh", "$0.15 kWh".
		if v, ok := kwhPrice(raw); ok {
			a.setKWh(v, toks[i].raw)
			used[i] = true
			continue
		}
		if v, ok := money(raw); ok {
			n := 1
			if perLeads.has(keyAt(i + 1)) {
				n = 2
			}
			if kwhWords.has(keyAt(i + n)) {
				a.setKWh(v, toks[i].raw+" per kWh")
				markUsed(used, i, i+n+1)
				i += n
				continue
			}
		}
		if n := a.useSaid(toks, i, keyAt); n > 0 {
			markUsed(used, i, i+n)
			i += n - 1
			continue
		}
		num, glued, ok := leadingNumber(raw)
		if !ok {
			continue
		}
		words := toks[i].raw
		switch {
		case hourWords.has(glued) || hourGlued.has(glued):
			a.setHours(num, words) // "5h", "4-6h", "5hrs"
			markUsed(used, i, perJobEnd(keyAt, i+1))
		case glued == "":
			// A number, then what it counts.
			j := i + 1
			switch {
			case hourWords.has(keyAt(j)):
				a.setHours(num, span(a.in, toks, i, j+1))
				markUsed(used, i, perJobEnd(keyAt, j+1))
			case yearWords.has(keyAt(j)):
				a.setYears(num, span(a.in, toks, i, j+1))
				markUsed(used, i, j+1)
			case monthWords.has(keyAt(j)):
				a.setYears(num/12, span(a.in, toks, i, j+1))
				a.usePeriod = span(a.in, toks, i, j+1)
				markUsed(used, i, j+1)
			default:
				if f, n, ok := jobsPer(toks, j); ok {
					a.setJobs(num*f, span(a.in, toks, i, j+n))
					markUsed(used, i, j+n)
					if i > 0 && runVerbs.has(keyAt(i-1)) {
						used[i-1] = true // "we run 3 jobs a week" says nothing about the method
					}
				}
			}
		case yearWords.has(glued) || yearGlued.has(glued):
			a.setYears(num, words)
			used[i] = true
		default:
			// "3/week", "3x/week", "3jobs/week".
			if f, ok := perWeekSuffix(glued); ok {
				a.setJobs(num*f, words)
				used[i] = true
			}
		}
	}
	a.aroundTheClock()
}

// perJobEnd is the token after the words from k that make hours each
// job's ("5h each", "5h per job").
func perJobEnd(keyAt func(int) string, k int) int {
	for eachWords.has(keyAt(k)) || perJobWords.has(keyAt(k)) {
		k++
	}
	return k
}

// useSaid reads a use said without jobs at token i: "24/7", "around the
// clock" or "full time" (7 jobs a week of 24 h; allMonth), "at 60%" or "60% utilization" (that
// share of the week), "for a year" or "a month" (a period, read as use
// around the clock by aroundTheClock). It reports the tokens it covered
// (so a use already said is not asked for again as jobs a week).
func (a *askWords) useSaid(toks []token, i int, keyAt func(int) string) int {
	raw := strings.ToLower(toks[i].raw)
	said := func(k int) string { // the first word as typed ("24/7" keys as "7"), then keys
		if k == i {
			return raw
		}
		return keyAt(k)
	}
	switch {
	case allMonth(said, i) > 0:
		// "24/7", "around the clock", "full time", "always on".
		a.workload.JobsPerWeek, a.workload.HoursPerJob = 7, 24
		return allMonth(said, i)
	case strings.HasSuffix(raw, "%") && (i > 0 && atWords.has(keyAt(i-1)) || slotLen(busyShareSlot, keyAt, i+1) > 0):
		v, err := strconv.ParseFloat(strings.TrimSuffix(raw, "%"), 64)
		if err != nil || v <= 0 || v > 100 {
			return 0
		}
		a.workload.JobsPerWeek, a.workload.HoursPerJob = 7, 24*v/100
		a.notes = append(a.notes, fmt.Sprintf("%s taken as the cards busy %s%% of the week: 7 jobs a week of %s h", quote(toks[i].raw), strconv.FormatFloat(v, 'f', -1, 64), strconv.FormatFloat(sizing.RoundTo(24*v/100, 2), 'f', -1, 64)))
		return 1 + slotLen(busyShareSlot, keyAt, i+1) // "60% utilization", "60% of the time"
	case (oneWords.has(raw)) && (yearWords.has(keyAt(i+1)) || monthWords.has(keyAt(i+1))):
		if yearWords.has(keyAt(i + 1)) {
			a.setYears(1, joinRaw(toks, i, i+2))
		} else {
			a.setYears(1.0/12, joinRaw(toks, i, i+2))
		}
		a.usePeriod = joinRaw(toks, i, i+2)
		return 2
	}
	return 0
}

// aroundTheClock reads a use said as a period only ("we'd use 8 h100s
// about 6 months") as use around the clock for that
// period: 7 jobs a week of 24 h, the purchase weighed over the period.
func (a *askWords) aroundTheClock() {
	if a.usePeriod == "" || a.workload.JobsPerWeek > 0 || a.workload.HoursPerJob > 0 {
		return
	}
	a.workload.JobsPerWeek, a.workload.HoursPerJob = 7, 24
	a.notes = append(a.notes, fmt.Sprintf("%s with no jobs said taken as use around the clock (7 jobs a week × 24 h), the purchase weighed over those %s", quote(a.usePeriod), a.usePeriod))
}

// joinRaw is tokens [from, to) as written, joined by spaces.
func joinRaw(toks []token, from, to int) string {
	parts := make([]string, 0, to-from)
	for k := from; k < to && k < len(toks); k++ {
		parts = append(parts, toks[k].raw)
	}
	return strings.Join(parts, " ")
}

// jobsPer reads what follows a count of jobs at token j: "jobs/week",
// "jobs per week", "jobs a week", "runs a month", "times a day". It
// returns the factor to jobs per week and the tokens used.
func jobsPer(toks []token, j int) (float64, int, bool) {
	if j >= len(toks) {
		return 0, 0, false
	}
	if j+1 < len(toks) && jobKinds.has(toks[j].key) && jobWords.has(toks[j+1].key) {
		f, n, ok := jobsPer(toks, j+1) // "4 lora jobs a week": the kind of job before it
		return f, n + 1, ok
	}
	raw := strings.ToLower(toks[j].raw)
	if before, after, ok := strings.Cut(raw, "/"); ok && jobWords.has(before) {
		if f, ok := perWeek[strings.TrimSuffix(after, "s")]; ok {
			return f, 1, true
		}
	}
	if !jobWords.has(toks[j].key) && phrases[toks[j].key].kind != kindTimes {
		if f, ok := perWeek[toks[j].key]; ok { // "3 weekly"
			return f, 1, true
		}
		return 0, 0, false
	}
	k := j + 1
	if k < len(toks) && perLeads.has(toks[k].key) {
		k++
	}
	if k < len(toks) {
		w := strings.TrimPrefix(strings.ToLower(toks[k].raw), "/")
		if f, ok := perWeek[strings.TrimSuffix(w, "s")]; ok {
			return f, k + 1 - j, true
		}
	}
	return 0, 0, false
}

// perWeekSuffix reads the unit glued after a count: "/week", "x/week",
// "jobs/week", "/month", "/day".
func perWeekSuffix(s string) (float64, bool) {
	s = strings.TrimPrefix(s, "x")
	job := "" // the longest job word first: "runs/week" is not "run" and "s/week"
	for w := range jobWords.words {
		if len(w) > len(job) && strings.HasPrefix(s, w) {
			job = w
		}
	}
	s = s[len(job):]
	after, ok := strings.CutPrefix(s, "/")
	if !ok {
		after, ok = strings.CutPrefix(s, "per")
	}
	if !ok {
		return 0, false
	}
	f, ok := perWeek[strings.TrimSuffix(after, "s")]
	return f, ok
}

// leadingNumber reads a number or a range ("2-3", taken at its midpoint)
// at the start of s and returns what is glued after it.
func leadingNumber(s string) (float64, string, bool) {
	end := 0
	for end < len(s) && (isDigit(s[end]) || s[end] == '.') {
		end++
	}
	if end == 0 {
		return 0, "", false
	}
	v, err := strconv.ParseFloat(s[:end], 64)
	if err != nil {
		return 0, "", false
	}
	rest := s[end:]
	if len(rest) > 1 && (rest[0] == '-' || rest[0] == '~') && isDigit(rest[1]) {
		hi, glued, ok := leadingNumber(rest[1:])
		if !ok || hi < v {
			return 0, "", false
		}
		return (v + hi) / 2, strings.TrimPrefix(glued, "-"), true
	}
	return v, strings.TrimPrefix(rest, "-"), true
}

// kwhPrice reads an electricity price written as one word: "$0.15/kwh",
// "0.15/kwh", "15c/kwh", "15¢/kwh", "$0.15kwh".
func kwhPrice(s string) (float64, bool) {
	s = strings.TrimSuffix(s, ".")
	before, ok := strings.CutSuffix(s, "kwh")
	if !ok {
		return 0, false
	}
	before = strings.TrimSuffix(strings.TrimSuffix(before, "/"), "per")
	if c, ok := cents(before); ok {
		return c, true
	}
	return money(before)
}

// money reads "$0.15" or "0.15" (dollars).
func money(s string) (float64, bool) {
	s = strings.TrimPrefix(s, "$")
	s = strings.TrimPrefix(s, "usd")
	if s == "" || !isDigit(s[0]) && s[0] != '.' {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// cents reads "15c" or "15¢" as dollars.
func cents(s string) (float64, bool) {
	n, ok := strings.CutSuffix(s, "c")
	if !ok {
		n, ok = strings.CutSuffix(s, "¢")
	}
	if !ok || n == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(n, 64)
	return v / 100, err == nil
}

func markUsed(used []bool, from, to int) {
	for k := from; k < to && k < len(used); k++ {
		used[k] = true
	}
}

func (a *askWords) bad(format string, args ...any) {
	if a.problem == "" {
		a.problem = fmt.Sprintf(format, args...)
	}
}

// set puts v in *dst when it is more than 0 and at most most, else
// records format's problem (the words quoted, then most); it reports
// whether it did.
func (a *askWords) set(dst *float64, v float64, most int, format, words string) bool {
	if v <= 0 || v > float64(most) {
		a.bad(format, quote(words), most)
		return false
	}
	*dst = v
	return true
}

func (a *askWords) setJobs(v float64, words string) {
	if a.set(&a.workload.JobsPerWeek, v, maxJobsPerWeek, "%s is not a number of jobs a week I can use (up to %d)", words) &&
		(strings.ContainsAny(words, "-~") || !strings.Contains(words, "week") && !strings.Contains(words, "wk")) {
		a.notes = append(a.notes, fmt.Sprintf("%s taken as %s jobs a week", quote(words), strconv.FormatFloat(sizing.RoundTo(v, 2), 'f', -1, 64)))
	}
}

func (a *askWords) setHours(v float64, words string) {
	if a.set(&a.workload.HoursPerJob, v, maxHoursPerJob, "%s is not a job length I can use (up to %d hours)", words) &&
		(strings.ContainsAny(words, "~") || strings.Count(words, "-") > 0 && hasDigitAfterDash(words)) {
		a.notes = append(a.notes, fmt.Sprintf("%s taken as %s hours a job", quote(words), strconv.FormatFloat(v, 'f', -1, 64)))
	}
}

func (a *askWords) setKWh(v float64, words string) {
	a.set(&a.workload.USDPerKWh, v, maxKWhPrice, "%s is not an electricity price I can use (up to $%d per kWh)", words)
}

func (a *askWords) setYears(v float64, words string) {
	a.set(&a.workload.Years, v, maxYears, "%s is not an amortisation period I can use (up to %d years)", words)
}

func hasDigitAfterDash(s string) bool {
	i := strings.IndexByte(s, '-')
	return i >= 0 && i+1 < len(s) && isDigit(s[i+1])
}

// hintSuffix is what the corrected example of a failed parse needs to
// stay the same kind of question.
func (a *askWords) hintSuffix() string {
	switch {
	case a.buy && !a.own: // the cards to own are asked: no use to invent
		return " buy-vs-rent 3 jobs/week 5h"
	case a.maxContext:
		return " max context"
	}
	return ""
}

// FormatAsk writes a parsed question back as a command that Parse reads
// to the same Query, Intent and Workload: Format's text with the intent's
// words ("what ...", "... max context", "which gpu ...", "... buy-vs-rent
// 3 jobs/week 5h").
func FormatAsk(p Request) string {
	q := sizing.Format(p.Query)
	join := func(parts ...string) string {
		return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), " ")
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	switch p.Intent {
	case sizing.IntentLargest:
		return join("what", q)
	case sizing.IntentMaxContext:
		if p.Query.Method != "" && p.Query.Method != sizing.MethodInference {
			return join(q, "max seq")
		}
		return join(q, "max context")
	case sizing.IntentWhichGPU:
		return join("which gpu", q)
	case sizing.IntentServe:
		if p.Query.Serve.Plan {
			return q
		}
		return join("how many users", q)
	case sizing.IntentBuyRent:
		w := p.Workload
		parts := []string{q, "buy-vs-rent"}
		if w.JobsPerWeek > 0 {
			parts = append(parts, num(w.JobsPerWeek)+" jobs/week")
		}
		if w.HoursPerJob > 0 {
			parts = append(parts, num(w.HoursPerJob)+"h")
		}
		if w.USDPerKWh > 0 {
			parts = append(parts, "$"+num(w.USDPerKWh)+"/kWh")
		}
		if w.Years > 0 {
			parts = append(parts, "over "+num(w.Years)+" years")
		}
		return join(parts...)
	}
	return q
}

// More words of the intent pass, by key (vocab.txt, its parse_ask.go
// section).
var (
	askWhat   = vocab.set("ask_what")
	kwhWords  = vocab.set("kwh_words")
	hourGlued = vocab.set("hour_glued")
	yearGlued = vocab.set("year_glued")
	atWords   = vocab.set("at_words")

	ownVerbs      = vocab.set("own_verbs")     // cards to be bought: with "which" or "how many", the cards to own
	rentedWords   = vocab.set("rented_words")  // a card rented, the other side of "is buying worth it"
	whichWords    = vocab.set("which_words")   // which card: "which gpu", "cheapest gpu"
	fastestWords  = vocab.set("fastest_words") // the fastest card asked
	whichAskWords = vocab.set("which_ask")     // a verb made a question: "which ... did we buy"
	perJobWords   = vocab.set("per_job")       // after hours, each job's: "5h per job", "5h a run"
)

// usedFor is a mark per token of toks, in buf when it is long enough
// (the caller's array on its stack: a plain question costs no
// allocation), else newly made.
func usedFor(toks []token, buf []bool) []bool {
	if len(toks) <= len(buf) {
		return buf[:len(toks)]
	}
	return make([]bool, len(toks))
}
