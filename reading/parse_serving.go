package reading

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// serveWords is what the serving pass found: the asks and the load and
// targets, which it writes into the Query once the main parse is done.
type serveWords struct {
	capacity, perMonth bool
	people             bool // a count of people was said ("for 500 users"): a load, not a batch
	countAsked         bool // "how many gpus", "gpus needed": how many cards, for a load or a run
	// tpsBare is the index in said of a tokens/s with no "each" or "per
	// user" after it, -1 for none: settle reads it as the output of all
	// replicas when no users were said and the question asks how many
	// cards or says "throughput", "aggregate" or "total" (totalSaid).
	tpsBare     int
	totalSaid   bool
	tokenCost   bool           // "cost per token", "per token cost": what a deployment's tokens cost
	dailyUsers  bool           // "2000 daily users": a load to plan for, read as requests/s
	dailyWords  string         // the words of the daily users
	perDay      perDay         // a count of requests a day ("20 messages a day"), read once the whole question is
	tokenRate   tokenRate      // tokens through the model a day or hour ("2 billion tokens/day"), read as requests by settle
	cadence     sizing.Cadence // "every week": how often a training run is repeated
	cadenceSaid string         // the words of the cadence
	settled     []string       // notes of settle's readings, for the parser to add
	load        sizing.ServeLoad
	said        []Field // the serving fields, as the asker wrote them
	notes       []string
	problem     string
}

// Words of the serving pass, by lower-case word: the sets of vocab.txt
// named, whose comments there say what each is.
var (
	peopleWords    = vocab.set("people_words")
	concurrentAdj  = vocab.set("concurrent_adj")
	countVerbs     = vocab.set("count_verbs")
	batchFitVerbs  = vocab.set("batch_fit_verbs")
	tpsUnits       = vocab.set("tps_units")
	eachUser       = vocab.set("each_user")
	promptWords    = vocab.set("prompt_words")
	outputWords    = vocab.set("output_words")
	ttftBounds     = vocab.set("ttft_bounds")
	ttftAsks       = vocab.set("ttft_asks")
	seqNouns       = vocab.set("seq_nouns")
	persons        = vocab.set("persons")
	batchUsers     = vocab.set("batch_users")
	totalSaid      = vocab.set("total_said")
	totalLeft      = vocab.set("total_left")
	engineSGLang   = vocab.set("engine_sglang")
	ttftWords      = vocab.set("ttft_words")
	latencyWords   = vocab.set("latency_words")
	secondsUnit    = vocab.set("seconds_unit")
	millisUnit     = vocab.set("millis_unit")
	atOnceAdj      = vocab.set("at_once_adj")
	fullTimeAfter  = vocab.set("full_time_after")
	headcountWords = vocab.set("headcount")
	companyWords   = vocab.set("company")
	tokenNouns     = vocab.set("token_nouns")
	inOutPairs     = vocab.set("in_out_pairs")
	inWords        = vocab.set("in_words")
	whatWords      = vocab.set("what_words")
	lengthOf       = vocab.set("length_of")
	presentWords   = vocab.set("present_words")
	messageNouns   = vocab.set("message_nouns")
	perLeads       = vocab.set("per_words")
	requestNouns   = vocab.set("request_nouns")
)

// allMonth is how many words from i say a deployment runs all the time
// ("24/7", "around the clock", "always on", "full time"; the all_month
// and full_time rows of vocab.txt), 0 when they do not. "full time" is
// never full fine-tuning ("rent it full time" is no full fine-tune with
// no model), nor before people ("300 full-time employees")
// or "to first token" (a full fine-tune's ttft).
func allMonth(w func(int) string, i int) int {
	if n := slotLen(allMonthSlot, w, i); n > 0 {
		return n
	}
	n := slotLen(fullTimeSlot, w, i)
	if next := w(i + n); n > 0 && (peopleWords.has(next) || fullTimeAfter.has(next)) {
		return 0
	}
	return n
}

// slotLen is how many words from i a slot row of kind matches (vocab.txt),
// 0 when none does.
func slotLen(kind *slotKind, w func(int) string, i int) int {
	m, _ := kind.at(w, i)
	return m.n
}

// batchAskAt is how many words at i ask the largest batch that the "max
// batch" reading does not: "max bs", "largest micro batch", "biggest
// batch size", "how big a batch", "what batch size can" (the verb is
// left for the main parse; the batch_lead and batch_noun rows of
// vocab.txt); 0 when they do not. A whole number after the batch ("max
// bs 8") says a batch, not the ask; a size ("largest batch 1b lora") is
// the model's.
func batchAskAt(w func(int) string, i int) int {
	lead := slotLen(batchLeadSlot, w, i)
	what := lead == 0 && whatWords.has(w(i))
	if what {
		lead = 1
	}
	if lead == 0 {
		return 0
	}
	j := i + lead + slotLen(batchNounSlot, w, i+lead)
	switch {
	case j == i+lead:
		return 0
	case what && !batchFitVerbs.has(w(j)):
		return 0 // "what batch size" asks the largest only before "can", "fits"
	case !what && wholeNumber(w(j)):
		return 0
	}
	return j - i
}

// wholeNumber reports whether word is a whole number in digits.
func wholeNumber(word string) bool {
	_, err := strconv.Atoi(word)
	return err == nil
}

// low is a token as a lower-case word without surrounding punctuation.
// The lexer stores it; a token made by a pass (a number word read as
// digits) is lowered here.
func low(t token) string {
	if t.low != "" {
		return t.low
	}
	return strings.ToLower(strings.TrimFunc(t.raw, edgePunct))
}

// without is toks less the tokens drop marks, filtered in place; toks
// itself when drop is nil.
func without(toks []token, drop []bool) []token {
	if drop == nil {
		return toks
	}
	rest := toks[:0]
	for i, t := range toks {
		if !drop[i] {
			rest = append(rest, t)
		}
	}
	return rest
}

// lowsOf reads toks as lower-case words (low): "" past either end.
func lowsOf(toks []token) func(int) string {
	return func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return low(toks[i])
	}
}

// edgePunct is the punctuation low trims from a word's ends.
func edgePunct(r rune) bool {
	switch r {
	case ',', '.', ';', ':', '!', '?', '(', ')', '"', '\'':
		return true
	}
	return false
}

// serveSlots is the kinds of slot readServe tries at every word.
var serveSlots = newSlotGroup(tokensAskedSlot, howManySlot, maxBatchSlot, countForSlot, tokenCostSlot, requestCostSlot, allMonthSlot, fullTimeSlot, perMonthSlot, firstTokenSlot)

// readServe finds the serving words and returns the tokens the main
// parse should read (the rest), filtered in place.
func readServe(toks []token) ([]token, serveWords) {
	sw := serveWords{tpsBare: -1}
	var usedBuf [64]bool
	used := usedFor(toks, usedBuf[:])
	// The lowered words, once the at-once reading (which rewrites
	// tokens) is done: the passes below ask for each word many times.
	var lows []string
	w := func(i int) string {
		if i < 0 || i >= len(toks) || used[i] {
			return ""
		}
		if lows != nil {
			return lows[i]
		}
		return low(toks[i])
	}
	mark := func(from, to int) {
		for k := from; k < to && k < len(toks); k++ {
			used[k] = true
		}
	}
	sw.readAtOnce(toks, w, mark)
	var lowBuf [64]string
	if len(toks) <= len(lowBuf) {
		lows = lowBuf[:len(toks)]
	} else {
		lows = make([]string, len(toks))
	}
	for i := range toks {
		lows[i] = low(toks[i])
	}
	for i := 0; i < len(toks); i++ {
		if used[i] {
			continue
		}
		k := w(i)
		if _, ok := parseNumber(k); ok {
			j := i + 1
			for concurrentAdj.has(w(j)) {
				j++
			}
			if peopleWords.has(w(j)) && !seqNouns.has(w(j)) {
				sw.people = true // read by the main parse as the batch; marks it a load
			}
		}
		if prompt, output, n := inOutAt(w, i); n > 0 {
			sw.setLength(true, prompt, toks, i, i+n)
			sw.setLength(false, output, toks, i, i+n)
			mark(i, i+n)
			continue
		}
		var cadence sizing.Cadence
		cadenceN := 0
		if sw.cadence.Runs == 0 {
			cadence, cadenceN = sizing.CadenceAt(w, i)
		}
		// The slot rows the cases below read start with listed words: a
		// word none of them starts is passed over at one lookup.
		slots := serveSlots.may(k)
		var tokensAsked slotMatch
		tokensN := false
		if slots {
			tokensAsked, tokensN = tokensAskedSlot.at(w, i)
		}
		switch {
		case tokensN:
			// "how many tokens per hour can 8x h100 serve": the cards'
			// output in a period, at full load (a vocab.txt slot).
			sw.capacity, sw.load.TokensPer = true, tokensAsked.value("PERIOD", "PERIODLY")
			mark(i, i+tokensAsked.n)
		case slots && slotLen(howManySlot, w, i) > 0:
			sw.howMany(toks, i, w, mark)
		case slots && slotLen(maxBatchSlot, w, i) > 0:
			if n := slotLen(maxBatchSlot, w, i); !wholeNumber(w(i + n)) { // "max batch 7b" asks on a 7B model
				sw.capacity, sw.load.MaxBatch = true, !batchUsers.has(w(i+1))
				mark(i, i+n)
			}
		case batchAskAt(w, i) > 0:
			// "largest micro batch", "how big a batch", "what batch size
			// can we fit": the largest batch, as "max batch".
			sw.capacity, sw.load.MaxBatch = true, true
			mark(i, i+batchAskAt(w, i))
		case slots && slotLen(countForSlot, w, i) > 0:
			sw.load.Plan, sw.countAsked = true, true
			mark(i, i+2)
		case totalSaid.has(k):
			sw.totalSaid = true // a tokens/s is the output of all replicas; the word is read by settle
			if !totalLeft.has(k) {
				mark(i, i+1)
			}
		case slots && slotLen(tokenCostSlot, w, i) > 0: // "cost per token", "per 1m tokens"
			sw.tokenCost = true
			mark(i, i+slotLen(tokenCostSlot, w, i))
		case slots && slotLen(requestCostSlot, w, i) > 0:
			// "how much per 1k requests": what the cards serve at full
			// load, costed per request (the 1k is requests, not users).
			sw.tokenCost, sw.load.PerRequest = true, true
			mark(i, i+slotLen(requestCostSlot, w, i))
		case engineSGLang.has(k):
			sw.load.Engine = sizing.EngineSGLang
			sw.said = append(sw.said, Field{Name: "engine", Value: sizing.EngineSGLang, Words: toks[i].raw})
			mark(i, i+1)
		case cadenceN > 0:
			sw.cadence, sw.cadenceSaid = cadence, joinRaw(toks, i, i+cadenceN)
			mark(i, i+cadenceN)
		case slots && allMonth(w, i) > 0:
			n := allMonth(w, i)
			sw.perMonth = true
			sw.notes = append(sw.notes, fmt.Sprintf("%s taken as running all month (%d hours): the cost per month is for that", quote(joinRaw(toks, i, i+n)), int(sizing.HoursPerMonth)))
			mark(i, i+n)
		case slots && slotLen(perMonthSlot, w, i) > 0:
			sw.perMonth = true
			mark(i, i+slotLen(perMonthSlot, w, i))
		case perTokenTimeAt(toks, w, i) > 0:
			// "50ms per token": the time between tokens, a speed per user.
			v, n, _ := durationAt(w, i)
			sw.perTokenTarget(v, toks, i, i+n+slotLen(perTokenSlot, w, i+n), mark)
		case strings.HasPrefix(k, "p") && percentile.MatchString(k) && (latencyWords.has(w(i+1)) || ttftWords.has(w(i+1)) || ttftBounds.has(w(i+1)) || timedAt(w, i+1)):
			// "p95 latency": the planner's latencies are means at the load.
			sw.notes = append(sw.notes, fmt.Sprintf("%s read as the mean at the load: tail percentiles are not modelled", quote(toks[i].raw)))
			mark(i, i+1)
			sw.percentileTarget(toks, i, w, mark)
		case latencyWords.has(k) || slots && slotLen(firstTokenSlot, w, i) > 0:
			sw.firstToken(toks, i, w, mark)
		case promptWords.has(k) || outputWords.has(k):
			j := i + 1
			if lengthOf.has(w(j)) {
				j++
			}
			if v, ok := tokenCount(w(j)); ok {
				sw.setLength(promptWords.has(k), v, toks, i, j+1)
				mark(i, j+1+btoi(tokNoun(w(j+1))))
			}
		case len(k) > 0 && isDigit(k[0]):
			sw.readNumber(toks, used, i, w, mark)
		}
	}
	sw.settleDaily()
	return without(toks, used), sw
}

// howMany reads "how many" at token i: people asked ("how many
// concurrent users": what the cards serve), or cards ("how many gpus",
// "how many l40s", "h100 how many": how many the load needs).
func (sw *serveWords) howMany(toks []token, i int, w func(int) string, mark func(int, int)) {
	j := i + 2
	for concurrentAdj.has(w(j)) {
		j++
	}
	switch {
	case peopleWords.has(w(j)):
		sw.capacity = true
		mark(i, j+1)
	case (strings.Contains(w(j), "-token") || strings.Contains(w(j), "-context") || strings.Contains(w(j), "-ctx")) && peopleWords.has(w(j+1)):
		// "how many concurrent 4k-token chats": the length is read
		// by the main parse.
		sw.capacity = true
		mark(i, j)
		mark(j+1, j+2)
	case gpuAsked.has(w(j)):
		sw.load.Plan, sw.countAsked = true, true
		mark(i, j+1)
	case j < len(toks) && namesCard(toks[j].raw),
		i > 0 && (j >= len(toks) || countVerbs.has(w(j))):
		// "how many l40s": the card is read by the main parse; "qwen2.5
		// 72b inference h100 how many": the card said before, the count
		// of it asked.
		sw.load.Plan, sw.countAsked = true, true
		mark(i, j)
	}
}

// firstToken reads "ttft", "time to first token" or "latency" at token
// i: a target time after it or before it ("ttft under 500ms", "500ms
// ttft"), a time per token after "latency" (a speed), or the time to the
// first token asked ("ttft for a 32k prompt").
func (sw *serveWords) firstToken(toks []token, i int, w func(int) string, mark func(int, int)) {
	spelled := slotLen(firstTokenSlot, w, i) // "ttft" is 1 word, "time to first token" 4, "latency" none
	latency := spelled == 0
	j := i + max(spelled, 1)
	for ttftBounds.has(w(j)) {
		j++
	}
	v, n, ok := durationAt(w, j)
	switch {
	case ok && latency && slotLen(perTokenSlot, w, j+n) > 0:
		// "latency under 50ms per token": the time between tokens.
		sw.perTokenTarget(v, toks, i, j+n+slotLen(perTokenSlot, w, j+n), mark)
	case ok:
		sw.ttftTarget(v, latency, toks, i, j+n, mark)
	case spelled <= 1 && timedAt(w, i-1):
		// "500ms ttft", "40ms latency": the time said before.
		v, _, _ := durationAt(w, i-1)
		sw.ttftTarget(v, latency, toks, i-1, i+1, mark)
	case spelled > 1 || spelled == 1 && (w(j) == "" || j > i+1 && !isDigit(w(j)[0]) || ttftAsks.has(w(j))):
		// "time to first token for a 32k prompt", "what's the ttft of
		// llama 3.1 8b", "ttft for a 32k prompt": no target, the figure
		// is asked ("ttft soon" still needs a time).
		sw.load.FirstToken = true
		mark(i, j)
	case latency:
		// "low latency": no target said; the word is left unused.
	default:
		sw.problem = fmt.Sprintf("%q needs a time, e.g. ttft 1s or ttft under 500ms", toks[i].raw)
		mark(i, j)
	}
}

// ttftTarget records a time to the first token said by toks[from:to];
// "latency" taken for it is said so.
func (sw *serveWords) ttftTarget(v float64, latency bool, toks []token, from, to int, mark func(int, int)) {
	if latency {
		sw.notes = append(sw.notes, "\"latency\" taken as the time to the first token")
	}
	sw.load.TTFTTargetSeconds = v
	sw.said = append(sw.said, Field{Name: "ttft_target_seconds", Value: formatFloat(v), Words: joinRaw(toks, from, to)})
	mark(from, to)
}

// perTokenTarget records a time per token said by toks[from:to] ("50ms
// per token") as the speed each user is served at.
func (sw *serveWords) perTokenTarget(v float64, toks []token, from, to int, mark func(int, int)) {
	said := joinRaw(toks, from, to)
	sw.load.TokensPerSecondPerUserTarget = 1 / v
	sw.said = append(sw.said, Field{Name: "tokens_per_second_per_user_target", Value: formatFloat(1 / v), Words: said})
	sw.notes = append(sw.notes, fmt.Sprintf("%s taken as %s tokens/s each", quote(said), formatFloat(sizing.RoundTo(1/v, 1))))
	mark(from, to)
}

// tokNoun reports whether a word after a length counts its tokens
// ("tokens", "tok").
func tokNoun(word string) bool { return strings.HasPrefix(word, "tok") }

// readAtOnce reads the people said to be there at once: "50 chatting",
// "50 users at the same time", "50 at once", "50 concurrently" are 50
// concurrent users, which the main parse reads as "50 users" (the "50"
// of "50 chatting at the same time" is no RTX 5090).
// With them, another count of people ("about 2000 users") is all the
// users, of whom those are the ones at once: it is said and not sized.
func (sw *serveWords) readAtOnce(toks []token, w func(int) string, mark func(int, int)) {
	atOnce, said := -1, ""
	for i := range toks {
		if n, ok := parseNumber(w(i)); !ok || !n.isInteger() || i > 0 && takesNumber(toks[i-1].key) {
			continue // "tp 8 in parallel": the degree of the key before
		}
		j := i + 1
		end := j + 1
		switch {
		case presentWords.has(w(j)):
			end += slotLen(atOnceSlot, w, j+1)
			toks[j].key = "users"
		case peopleWords.has(w(j)) && !requestNouns.has(w(j)) && slotLen(atOnceSlot, w, j+1) > 0:
			end += slotLen(atOnceSlot, w, j+1)
		case slotLen(atOnceSlot, w, j) > 0:
			end = j + slotLen(atOnceSlot, w, j)
			toks[j].key = "users"
		case atOnceAdj.has(w(j)) && peopleWords.has(w(j+1)):
			if atOnce < 0 { // "50 concurrent users": the main parse reads them
				atOnce, said = i, joinRaw(toks, i, j+2)
			}
			continue
		default:
			continue
		}
		if atOnce < 0 {
			atOnce, said = i, joinRaw(toks, i, end)
		}
		mark(j+1, end) // "50 chatting at the same time" is read as "50 users"
		toks[j].end = toks[end-1].end
	}
	if atOnce < 0 {
		return
	}
	for i := range toks {
		if n, ok := parseNumber(w(i)); !ok || !n.isInteger() || i == atOnce || !peopleWords.has(w(i+1)) || requestNouns.has(w(i+1)) || dailyUsersAt(w, i+1) > 0 {
			continue
		}
		sw.notes = append(sw.notes, fmt.Sprintf("%s taken as all the users, of whom %s are at once: sized for those", quote(joinRaw(toks, i, i+2)), quote(said)))
		mark(i, i+2)
	}
	sw.people = true
}

// percentileTarget reads a time said right after a latency percentile
// at token i, with no "latency" or "ttft" between ("p95 under 2s", "p99
// < 800 ms"), as the first-token target: the only latency the planner
// targets.
func (sw *serveWords) percentileTarget(toks []token, i int, w func(int) string, mark func(int, int)) {
	j := i + 1
	for ttftBounds.has(w(j)) {
		j++
	}
	v, n, ok := durationAt(w, j)
	if !ok || v <= 0 || j == i+1 && !timedAt(w, j) || slotLen(perTokenSlot, w, j+n) > 0 {
		return // "p95 under 50ms per token" is a speed, read from the time on
	}
	sw.ttftTarget(v, false, toks, i, j+n, mark)
	sw.notes = append(sw.notes, fmt.Sprintf("%s taken as the time to the first token", quote(joinRaw(toks, i, j+n))))
}

// perDay is a count of requests said per day ("20 messages a day",
// "50k requests per day"), with its words and whether "each" or "per
// user" followed it.
type perDay struct {
	count float64
	words string
	each  bool
}

// settleDaily writes the load of the daily users and the requests a day
// once the whole question is read, since either may come first: a count
// of requests a day with daily users is each user's when "each" or "per
// user" follows it or it is fewer than the users ("1000 daily active
// users, each sends 20 messages a day": 20 requests a user); otherwise
// it is the service's, spread evenly over the day.
func (sw *serveWords) settleDaily() {
	d, users := sw.perDay, float64(sw.load.DailyUsers)
	perUser := sw.dailyUsers && d.count > 0 && d.count == math.Trunc(d.count) && d.count <= 1e4 && (d.each || d.count < users)
	if sw.dailyUsers && (perUser || d.count == 0) {
		rps := sizing.DailyUsersRPS(users, 0)
		note := fmt.Sprintf("%s taken as %s requests/s: each user sends about %d requests a day, over %d busy hours (a peak above that needs more)",
			quote(sw.dailyWords), formatFloat(rps), sizing.RequestsPerUserDay, sizing.BusyHoursPerDay)
		said := sw.dailyWords
		if perUser {
			sw.load.RequestsPerUserDay = int(d.count)
			rps = sizing.DailyUsersRPS(users, sw.load.RequestsPerUserDay)
			said += ", " + d.words
			note = fmt.Sprintf("%s and %s taken as %s requests/s: %d requests a user a day, over %d busy hours (a peak above that needs more)",
				quote(sw.dailyWords), quote(d.words), formatFloat(rps), sw.load.RequestsPerUserDay, sizing.BusyHoursPerDay)
		}
		sw.load.RequestsPerSecond = rps
		sw.said = append(sw.said, Field{Name: "requests_per_second", Value: formatFloat(rps), Words: said})
		sw.notes = append(sw.notes, note)
		return
	}
	if d.count > 0 {
		if sw.dailyUsers {
			sw.load.DailyUsers = 0
			sw.notes = append(sw.notes, fmt.Sprintf("not used: %s (%s is the load)", quote(sw.dailyWords), quote(d.words)))
		}
		rps, _ := strconv.ParseFloat(strconv.FormatFloat(d.count/(24*3600), 'g', 3, 64), 64)
		sw.load.RequestsPerSecond = rps
		sw.said = append(sw.said, Field{Name: "requests_per_second", Value: formatFloat(rps), Words: d.words})
		sw.notes = append(sw.notes, fmt.Sprintf("%s taken as %s requests/s, spread evenly over the day (a peak above the mean needs more)", quote(d.words), formatFloat(rps)))
	}
}

// dailyUsersAt is how many words from j, right after a number, say it
// counts users a day ("daily users", "daily active users", "users a
// day", "users per day", "users daily", "dau"); 0 when they do not.
func dailyUsersAt(w func(int) string, j int) int {
	switch n := slotLen(dailyUsersSlot, w, j); {
	case n > 0:
		return n
	case headcountWords.has(w(j)) && companyAround(w, j):
		return 1 // "a mid size company (~800 ppl)": its headcount, not 800 users at once
	case persons.has(w(j)) && sendsADay(w, j+1):
		return 1 // "10k users each send ~20 msgs a day": what each sends is read after
	}
	return 0
}

// sendsADay reports whether the words from j say what each user sends
// a day, within a few words: "each send ~20 msgs a day", "who ask 5
// questions per day" (so "10k users" before it is a load, not a batch).
func sendsADay(w func(int) string, j int) bool {
	noun := false
	for k := j; k < j+7; k++ {
		switch {
		case requestNouns.has(w(k)):
			noun = true
		case noun && slotLen(aDaySlot, w, k) > 0:
			return true
		}
	}
	return false
}

// companyAround reports whether a company word is within six words of j.
func companyAround(w func(int) string, j int) bool {
	for k := max(j-6, 0); k <= j+6; k++ {
		if companyWords.has(w(k)) {
			return true
		}
	}
	return false
}

// timedAt reports whether a time with its unit is said at token j
// ("800ms", "2 s"); a bare number is not one. A typed "<" is dropped by
// the lexer, so "p99 < 800ms" reaches the parser as "p99 800ms".
func timedAt(w func(int) string, j int) bool {
	_, n, ok := durationAt(w, j)
	return ok && (n == 2 || !isDigit(w(j)[len(w(j))-1]))
}

// readNumber reads what a number starting at token i means to the
// serving pass: requests per second ("10 qps", "10 requests/s", "10 req
// per second"), a per-user speed ("20 tok/s", "20 tokens/s per user"),
// a prompt or output length ("2k prompt", "500 output tokens") or the
// engine's memory share ("0.95 gpu util").
func (sw *serveWords) readNumber(toks []token, used []bool, i int, w func(int) string, mark func(int, int)) {
	k := w(i)
	num, ok := parseNumber(k)
	glued := ""
	if !ok {
		// "10qps", "20tok/s"
		j := numberLen(k)
		num, ok = parseNumber(k[:j])
		glued = k[j:]
		if !ok {
			return
		}
	}
	// The unit is what is glued to the number ("600rpm"), else the word
	// after it: from(c) reads it and the words after it, c words on.
	apart := glued == "" // the unit is the word after the number
	from := func(c int) func(int) string {
		return func(k int) string {
			if k == 0 && !apart {
				return glued
			}
			return w(i + c + k)
		}
	}
	if num.scale() >= scaleBillion && apart {
		if _, n := slowRateAt("token_rate", from(1)); n == 0 {
			return // "14b": a model's size, never a load or a speed ("14b? tok/s?" is no 14 tok/s)
		}
	}
	v := exactFloat(num)
	n := btoi(apart) // the words the number takes past its own
	u, unit := from(n), from(n)(0)
	words := func(to int) string { return joinRaw(toks, i, to) }
	count, cn := v*float64(decimalUnit(num.suffix)), n // "10k requests a day", "2 million requests per day"
	if s, ok := suffixes[w(i+1)]; ok && apart && num.scale() == scaleOne {
		count, cn = v*float64(decimalUnit(s)), 2
	}
	per, perWords := slowRateAt("request_rate", from(cn))
	tokPer, tokWords := slowRateAt("token_rate", from(cn))
	switch {
	case tokWords > 0 && count >= 1 && !(i > 0 && ofWords.has(low(toks[i-1]))):
		// "2 billion tokens/day through llama 3.1 8b": requests of the
		// asked length, read by settle, not one request.
		// After "of" it is a length: "docs of 300 tokens a month".
		end := i + cn + tokWords
		sw.tokenRate = tokenRate{count: count, per: tokPer.d, period: tokPer.name, words: words(end)}
		mark(i, end)
	case apart && rateAt("image_rate", from(cn)).n > 0:
		// "10k images a day": how fast a card makes images is not
		// modelled; refused, not read as a context.
		end := i + cn + rateAt("image_rate", from(cn)).n
		sw.problem = fmt.Sprintf("%s is an image load: fitbot sizes an image model's memory per request, not how many images a card makes a second, so it cannot size the cards for a rate", quote(words(end)))
		mark(i, end)
	case apart && dailyUsersAt(w, i+cn) > 0:
		// "2000 daily users": a load, never a card.
		end := i + cn + dailyUsersAt(w, i+cn)
		sw.load.DailyUsers, sw.dailyUsers, sw.dailyWords = int(math.Round(count)), true, words(end)
		mark(i, end) // the load is written by settleDaily
	case per.d == 24*time.Hour:
		end := i + cn + perWords
		each := slotLen(eachUserSlot, w, end)
		sw.perDay = perDay{count: count, words: words(end + each), each: each > 0}
		mark(i, end+each) // the load is written by settleDaily
	case perWords > 0:
		// The same load as requests per second, spread evenly.
		end := i + cn + perWords
		said := words(end)
		rps, _ := strconv.ParseFloat(strconv.FormatFloat(count/per.d.Seconds(), 'g', 3, 64), 64)
		sw.load.RequestsPerSecond = rps
		sw.said = append(sw.said, Field{Name: "requests_per_second", Value: formatFloat(rps), Words: said})
		sw.notes = append(sw.notes, fmt.Sprintf("%s taken as %s requests/s, spread evenly over the %s (a peak above the mean needs more)",
			quote(said), formatFloat(rps), per.name))
		mark(i, end)
	case apart && (messageNouns.has(unit)):
		// "each sends 20 messages": a count of requests with no period
		// is no load, and never a card (the "20" is no H20).
		sw.notes = append(sw.notes, fmt.Sprintf("not used: %s (a load of messages needs its period: \"20 messages a day\")", quote(words(i+2))))
		mark(i, i+2)
	case slotLen(rpsSlot, u, 0) > 0:
		end := i + n + slotLen(rpsSlot, u, 0)
		sw.load.RequestsPerSecond = v
		sw.said = append(sw.said, Field{Name: "requests_per_second", Value: formatFloat(v), Words: words(end)})
		mark(i, end)
	case slotLen(tpsSlot, u, 0) > 0:
		end := i + n + slotLen(tpsSlot, u, 0)
		each := btoi(eachUser.has(w(end)))
		if each == 0 {
			each = slotLen(tpsEachSlot, w, end) // "per user", "per stream"
		}
		if total := slotLen(tpsTotalSlot, w, end); each == 0 && total > 0 {
			sw.load.OutputTokensPerSecondTarget = v
			sw.said = append(sw.said, Field{Name: "output_tokens_per_second_target", Value: formatFloat(v), Words: words(end + total)})
			mark(i, end+total)
			break
		}
		if each == 0 {
			sw.tpsBare = len(sw.said)
		}
		end += each
		sw.load.TokensPerSecondPerUserTarget = v
		sw.said = append(sw.said, Field{Name: "tokens_per_second_per_user_target", Value: formatFloat(v), Words: words(end)})
		mark(i, end)
	case apart && lengthDescribers.has(unit) && !(i > 0 && takesNumber(toks[i-1].key)) &&
		(promptWords.has(w(i+2)) || lengthDescribers.has(w(i+2)) && promptWords.has(w(i+3))):
		// "4k system prompt", "8k rag input prompts": the prompt's length.
		if t, ok := tokenCount(k); ok {
			end := i + 3 + btoi(!promptWords.has(w(i+2)))
			end += btoi(tokNoun(w(end)))
			sw.setLength(true, t, toks, i, end)
			mark(i, end)
		}
	case apart && tokenNouns.has(unit) && (promptWords.has(w(i+2)) || outputWords.has(w(i+2))):
		// "500 token answers", "4k token prompts": the lengths of the
		// answers and prompts, not one token each.
		if t, ok := tokenCount(k); ok {
			sw.setLength(promptWords.has(w(i+2)), t, toks, i, i+3)
			mark(i, i+3)
		}
	case apart && (promptWords.has(unit) || outputWords.has(unit)) && !(i > 0 && takesNumber(toks[i-1].key)):
		// "tp 2 prompt 10": the 2 is the degree the key before it takes.
		if t, ok := tokenCount(k); ok {
			end := i + 2 + btoi(tokNoun(w(i+2)))
			sw.setLength(promptWords.has(unit), t, toks, i, end)
			mark(i, end)
		}
	case slotLen(busyPercentSlot, u, 0) > 0:
		// "at 80% utilization": the share of the time the cards serve,
		// which a cost per token is over.
		sw.setBusy(v, toks, i, i+n+2)
		mark(i, i+n+2)
	case apart && slotLen(gpuUtilSlot, w, i+1) > 0 && !isNumber(w(i+3)):
		// "0.95 gpu util"; in "cp 1 gpu util 0.9" the share follows.
		sw.setUtil(v, k, toks, i, i+3)
		mark(i, i+3)
	}
	// "gpu util 0.95" reads from the words before the number.
	if i >= 2 && !used[i] && !used[i-1] && slotLen(gpuUtilSlot, lowsOf(toks), i-2) > 0 {
		sw.setUtil(v, k, toks, i-2, i+1)
		mark(i-2, i+1)
	}
}

// tokenRate is a count of tokens said through the model per period.
type tokenRate struct {
	count  float64
	per    time.Duration
	period string // the period's name ("day")
	words  string
}

// period is a rate's period: its length and its name ("day").
type period struct {
	d    time.Duration
	name string
}

// rateAt matches the rate rows of kind in vocab.txt ("requests a day",
// "requests daily", "rpm", "images per second") at u(0), the unit after
// a number: the match, whose n is how many words said it; a unit with
// its period in one word ("req/day", read as "req / day") is one word.
func rateAt(kind string, u func(int) string) slotMatch {
	if noun, per, ok := strings.Cut(u(0), "/"); ok {
		split := [...]string{noun, "/", per, ""}
		m, _ := vocab.slot(kind, func(k int) string { return split[min(k, 3)] }, 0)
		m.n = btoi(m.n == 3)
		return m
	}
	m, _ := vocab.slot(kind, u, 0)
	return m
}

// slowRateAt reads a rate of kind slower than a second (rateAt): the
// period, of sizing.Periods's length (a month is 730 hours, as costs a
// month count it), and how many words said it; 0 when there is none
// ("tokens/s" is a speed, read as one).
func slowRateAt(kind string, u func(int) string) (period, int) {
	m := rateAt(kind, u)
	name := m.value("PERIOD", "PERIODLY", "RATE_UNIT")
	d := time.Duration(sizing.Periods[name] * float64(time.Second))
	if m.n == 0 || d <= time.Second {
		return period{}, 0
	}
	return period{d, name}, m.n
}

// settleTokenRate reads tokens through the model per period as requests
// per second of the asked length, prompt and answer (ServeContextDefault
// when none is said): each request's tokens are that length.
func (sw *serveWords) settleTokenRate(seq int) {
	t := sw.tokenRate
	if t.per == 0 || sw.load.RequestsPerSecond > 0 || sw.load.DailyUsers > 0 {
		return
	}
	if l := sw.load.PromptTokens + sw.load.OutputTokens; l > 0 {
		seq = l
	}
	if seq <= 0 {
		seq = sizing.ServeContextDefault
	}
	rps, _ := strconv.ParseFloat(strconv.FormatFloat(t.count/t.per.Seconds()/float64(seq), 'g', 3, 64), 64)
	if rps <= 0 {
		return
	}
	sw.load.RequestsPerSecond = rps
	sw.said = append(sw.said, Field{Name: "requests_per_second", Value: formatFloat(rps), Words: t.words})
	sw.settled = append(sw.settled, fmt.Sprintf("%s taken as requests of %d tokens each (prompt and answer): %s requests/s, spread evenly over the %s (say the prompt and output lengths for another split; a peak above the mean needs more)",
		quote(t.words), seq, formatFloat(rps), t.period))
}

// inOutAt reads a prompt and an output length said as a pair at token i
// ("2k in / 500 out", "2k in, 500 out", "in/out 2k/500", "2k/500
// in/out"): the lengths and how many words said them; n is 0 when they do
// not. "in" alone is a preposition: only the pair with "out" reads it as
// the prompt.
func inOutAt(w func(int) string, i int) (prompt, output, n int) {
	if inOutPairs.has(w(i)) {
		if p, o, ok := lengthPair(w(i + 1)); ok {
			return p, o, 2
		}
	}
	if inOutPairs.has(w(i + 1)) {
		if p, o, ok := lengthPair(w(i)); ok {
			return p, o, 2
		}
	}
	if !inWords.has(w(i + 1)) {
		return 0, 0, 0 // spares the slot's captures: this runs for every word
	}
	m, _ := inOutSlot.at(w, i)
	p, ok := tokenCount(m.value(classNum))
	o, ok2 := tokenCount(w(i + m.n - 2))
	if m.n == 0 || !ok || !ok2 {
		return 0, 0, 0
	}
	return p, o, m.n + btoi(tokNoun(w(i+m.n)))
}

// lengthPair reads "2k/500": a prompt and an output length in one word.
func lengthPair(s string) (prompt, output int, ok bool) {
	a, b, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	p, ok1 := tokenCount(a)
	o, ok2 := tokenCount(b)
	return p, o, ok1 && ok2
}

// setLength records a prompt or output length.
func (sw *serveWords) setLength(prompt bool, v int, toks []token, from, to int) {
	name := "output_tokens"
	if prompt {
		name = "prompt_tokens"
		sw.load.PromptTokens = v
	} else {
		sw.load.OutputTokens = v
	}
	sw.said = append(sw.said, Field{Name: name, Value: strconv.Itoa(v), Words: joinRaw(toks, from, to)})
}

// setUtil records the engine's memory share: "0.95" or "95" (percent).
func (sw *serveWords) setUtil(v float64, k string, toks []token, from, to int) {
	if v > 1 && v <= 100 {
		v /= 100
	}
	if v < sizing.MinGPUUtil || v > 1 {
		sw.problem = fmt.Sprintf("gpu util %s is not a share of the card (0.05 to 1, or 5%% to 100%%)", k)
		return
	}
	sw.load.GPUMemoryUtilization = v
	sw.said = append(sw.said, Field{Name: "gpu_memory_utilization", Value: formatFloat(v), Words: joinRaw(toks, from, to)})
}

// takesNumber reports whether a key word reads the number after it ("tp
// 2", "seq 4096", "batch 8", "rank 16").
func takesNumber(key string) bool {
	switch phrases[key].kind {
	case kindParallelKey, kindSeqKey, kindBatchKey, kindRankKey, kindAccumKey, kindGlobalBatchKey, kindUnusedKey:
		return true
	}
	return false
}

// setBusy records the share of the time the cards serve, said as a
// percentage.
func (sw *serveWords) setBusy(percent float64, toks []token, from, to int) {
	if percent <= 0 || percent > 100 {
		sw.problem = fmt.Sprintf("%s is not a share of the time (1%% to 100%%)", quote(joinRaw(toks, from, to)))
		return
	}
	sw.load.BusyShare = percent / 100
	sw.said = append(sw.said, Field{Name: "busy_share", Value: formatFloat(sw.load.BusyShare), Words: joinRaw(toks, from, to)})
}

// exactFloat is n as the nearest float64 to its decimal digits ("0.95"
// is 0.95, not 95 × 0.01).
func exactFloat(n number) float64 {
	v, err := strconv.ParseFloat(n.digits+"e"+strconv.Itoa(n.exp), 64)
	if err != nil {
		return n.approx(1)
	}
	if n.neg {
		v = -v
	}
	return v
}

// tokenCount reads a prompt or output length: "500", "2k" (2048, as a
// context is read).
func tokenCount(s string) (int, bool) {
	n, ok := parseNumber(s)
	if !ok || n.neg || n.scale() > scaleThousand {
		return 0, false
	}
	v, ok := n.scaled(contextUnit(n.suffix))
	if !ok || v <= 0 || v > sizing.MaxSeqLen {
		return 0, false
	}
	return int(v), true
}

// durationAt reads a time at token j: "1s", "500ms", "0.5 sec", "2
// seconds", or a bare number of seconds. It reports the seconds and the
// tokens used.
func durationAt(w func(int) string, j int) (float64, int, bool) {
	k := strings.TrimLeft(w(j), "<≤~") // "<50ms"
	d := numberLen(k)
	num, ok := parseNumber(k[:d])
	if !ok || d == 0 {
		return 0, 0, false
	}
	v := exactFloat(num)
	if f, ok := secondsOf(k[d:]); ok {
		return v * f, 1, true
	}
	if k[d:] != "" {
		return 0, 0, false
	}
	if f, ok := secondsOf(w(j + 1)); ok {
		return v * f, 2, true
	}
	return v, 1, true
}

// secondsOf is the seconds in one of a time's unit ("ms": 0.001).
func secondsOf(unit string) (float64, bool) {
	switch {
	case secondsUnit.has(unit):
		return 1, true
	case millisUnit.has(unit):
		return 1e-3, true
	}
	return 0, false
}

// apply adds the serving words to the parsed question (finish has put
// the load and targets in its Query): their fields, and the serving
// intent for a capacity or planning ask or a question with targets.
func (sw *serveWords) apply(r *Request) {
	if c := r.Query.Cadence; c.Runs > 0 {
		r.Fields = append(r.Fields, Field{Name: "cadence", Value: c.String(), Words: sw.cadenceSaid})
	}
	if sw.said == nil && !sw.capacity && !sw.load.Plan {
		return
	}
	inference := r.Query.Method == "" || r.Query.Method == sizing.MethodInference
	for _, f := range sw.said {
		if f.Name != "busy_share" || inference { // finish left a training run's busy share unused
			r.Fields = append(r.Fields, f)
		}
	}
	l := sw.load
	asks := sw.capacity || l.Plan || l.Targets()
	if asks && inference && (r.Intent == sizing.IntentFit || r.Intent == sizing.IntentWhichGPU) {
		r.Intent = sizing.IntentServe
	}
}

// totalRate reads a tokens/s said without "each" or "per user" as the
// output of all replicas together when no users were said and the
// question asks how many cards or says "throughput", "aggregate" or
// "total": "need to hit 1000 tok/s for llama 8b, how many l4s" is a
// service's throughput, not one stream's speed.
func (sw *serveWords) totalRate(users int) {
	if sw.tpsBare < 0 || users > 0 || !sw.countAsked && !sw.totalSaid {
		return
	}
	f := &sw.said[sw.tpsBare]
	v := sw.load.TokensPerSecondPerUserTarget
	sw.load.TokensPerSecondPerUserTarget, sw.load.OutputTokensPerSecondTarget = 0, v
	f.Name = "output_tokens_per_second_target"
	sw.settled = append(sw.settled, fmt.Sprintf("%s taken as the output of all replicas together, no users or \"each\" said: the replicas that make %s tokens/s in all", quote(f.Words), formatFloat(v)))
	sw.tpsBare = -1
}

// cardsSaid is what a question said of its cards, for settle.
type cardsSaid uint8

const (
	cardsNone    cardsSaid = iota // no card named
	cardsOne                      // a card named, no count ("on an h100")
	cardsSome                     // a card in the plural or asked how many of ("on h100s", "how many l40s")
	cardsCounted                  // a card and its count ("on 2 h100s")
)

// settle is the load once the main parse has read the users: "gpus for"
// plans only with a load or a target to plan for ("which gpu for llama
// 70b" is the which-GPU question). Cards named in the plural or asked
// how many of, with no count ("for 100 users on h100s", "how many l40s"),
// plan too: how many of them the load needs, never one assumed. So does
// a count of people with no count of cards ("serve llama 3.3 70b to 500
// users": which cards and how many; "on an h100 for 40 users": whether
// one serves them, in which weight format, or how many do), while a
// count of people on counted cards ("on 2 h100s for 40 users") asks what
// those cards serve. "batch 500" stays the memory of one batch. People
// route only a fit or which-GPU question (fit is true): "how much
// context with 4 users" keeps asking the context. Speed asked ("fastest",
// "lowest latency": fastest is true) with no card, cards in the plural
// or a card whose count is asked ("gpus needed", as Format writes the
// plan) plans too, fastest first, for the users said or one request at a
// time ("fastest way to serve mixtral 8x22b, what cards").
func (sw *serveWords) settle(users int, cards cardsSaid, fit, fastest bool) sizing.ServeLoad {
	sw.totalRate(users)
	speed := fit && fastest && (cards == cardsNone || cards == cardsSome || cards == cardsOne && sw.countAsked)
	people := fit && sw.people && users > 0
	if sw.dailyUsers && cards != cardsCounted {
		sw.load.Plan = true // the cards and how many the users a day need
	}
	switch {
	case cards == cardsSome && (users > 0 || sw.load.Targets()),
		(cards == cardsNone || cards == cardsOne) && people:
		sw.load.Plan = true
	case cards == cardsCounted && people,
		cards != cardsNone && fit && sw.tokenCost && users == 0 && !sw.load.Targets():
		// "per token cost of llama 3.1 70b on 4x h100": what the cards
		// serve at full load, whose cost per 1M tokens the answer gives.
		sw.capacity = true
	}
	if sw.load.Plan && !sw.load.Targets() && users == 0 {
		sw.load.Plan = false
	}
	if speed {
		sw.load.Plan = true
	}
	return sw.load
}

// isNumber reports whether key is a number word ("0.9", "8").
func isNumber(key string) bool {
	_, ok := parseNumber(key)
	return ok
}

// perTokenTimeAt is the time per token said at token i ("50ms per
// token", "40 ms/token", "30ms a token"), in seconds; 0 when none is.
func perTokenTimeAt(toks []token, w func(int) string, i int) float64 {
	if r := strings.TrimLeft(toks[i].raw, "<≤~"); r == "" || !isDigit(r[0]) {
		return 0 // not a number: this runs for every word of every question
	}
	v, n, ok := durationAt(w, i)
	if !ok || v <= 0 || v > 10 || n == 1 && !strings.ContainsAny(w(i), "smh") || slotLen(perTokenSlot, w, i+n) == 0 {
		return 0
	}
	return v
}

// percentile is a latency percentile's word: "p95", "p99".
var percentile = regexp.MustCompile(`^p\d{2}(\.\d+)?$`)

// namesCard reports whether word names a catalog card, in the plural
// too ("h100s", "l40s").
func namesCard(word string) bool {
	if _, ok := sizing.MatchGPU(word); ok {
		return true
	}
	_, ok := sizing.MatchGPU(strings.TrimSuffix(strings.TrimSuffix(word, "s"), "S"))
	return ok
}
