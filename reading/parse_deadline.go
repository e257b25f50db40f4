package reading

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// Deadline is a time the asker wants a run done in ("in a week", "within
// 3 days", "in under 10 hours"), or the time a run is given ("for 10
// hours", Run): the answer checks the run's time against it, or says
// what that time costs and trains, or says in its first words that it
// could not.
type Deadline struct {
	Within time.Duration `json:"within,omitempty"` // 0: none said, or a day named (Day)
	Words  string        `json:"words,omitempty"`  // the asker's words: "in a week"
	// Run is true when the words give the run its length ("for 10
	// hours", "for ~3 days") rather than a limit to beat: without a token
	// budget the answer says what that time costs and how many tokens it
	// trains; with one it is checked as a deadline.
	Run bool `json:"run,omitempty"`
	// Day is the day the run should be done by when the words name one
	// rather than a span: "by friday" is "friday", "by tomorrow"
	// "tomorrow", "by end of day" "today", "by end of week" "friday".
	// Within is zero until At counts it from a clock.
	Day string `json:"day,omitempty"`
}

// dayWords are the words of a day a deadline names ("by friday", "by eod
// tomorrow", "by end of next week"), each with its role: the day it names
// ("friday", "tomorrow"), "part" (a time within a day: "eod", "morning"),
// "next" (the week after this one) or "filler" (vocab.txt: the
// deadline_day sets).
var dayWords = vocab.values("deadline_day")

// The roles of dayWords that name no day: a time within a day, the week
// after this one, and the words between.
var (
	dayPart   = vocab.set("deadline_day_part")
	dayNext   = vocab.set("deadline_day_next")
	dayFiller = vocab.set("deadline_day_filler")
)

// dayAhead are the days a deadline names that are not weekdays, by how
// many days ahead of today they are.
var dayAhead = map[string]int{"today": 0, "tomorrow": 1}

// weekdayNamed is the weekday whose name in lower case is name.
func weekdayNamed(name string) (time.Weekday, bool) {
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		if strings.ToLower(wd.String()) == name {
			return wd, true
		}
	}
	return 0, false
}

// At is d with a named day (Day) counted from now: Within is the time
// to the end of that day in now's location ("by friday" on a Friday is
// the end of today), and Words say how long that is. A deadline that
// names no day is returned as it is.
func (d Deadline) At(now time.Time) Deadline {
	if d.Day == "" {
		return d
	}
	name, next := strings.CutPrefix(d.Day, "next ")
	ahead, ok := dayAhead[name]
	if !ok {
		wd, ok := weekdayNamed(name)
		if !ok {
			return d
		}
		ahead = (int(wd) - int(now.Weekday()) + 7) % 7
		if next { // the weekday of the week after this one, weeks starting on Monday
			iso := func(w time.Weekday) int { return (int(w) + 6) % 7 }
			ahead = 7 - iso(now.Weekday()) + iso(wd)
		}
	}
	y, m, day := now.Date()
	end := time.Date(y, m, day+ahead+1, 0, 0, 0, 0, now.Location())
	d.Within = end.Sub(now)
	d.Words = fmt.Sprintf("%s (%s, %.0f h from now)", d.Words, end.Add(-time.Minute).Format("Mon 15:04 MST"), d.Within.Hours())
	return d
}

// spanLengths are how long each span a deadline's unit names is.
var spanLengths = map[string]time.Duration{
	"hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour,
	"weekend": 48 * time.Hour, "overnight": 12 * time.Hour,
}

// deadlineUnits are the units of a deadline, by word: the span words a
// run's length is said with and those only a deadline says (vocab.txt:
// the sets span_SPAN and deadline_span_SPAN).
var deadlineUnits = func() map[string]time.Duration {
	units := map[string]time.Duration{}
	for _, base := range []string{"span", "deadline_span"} {
		for w, span := range vocab.values(base) {
			d, ok := spanLengths[span]
			if !ok {
				panic("reading: vocab.txt: the span " + span + " has no length in parse_deadline.go")
			}
			units[w] = d
		}
	}
	return units
}()

// deadlineCounts are counts said as words (vocab.txt: the sets
// deadline_count_N).
var deadlineCounts = numberValues("deadline_count")

// The words a deadline is said with (vocab.txt, its parse_deadline.go
// section): what leads it, what may come before its count, the spans
// said alone or whole.
var (
	deadlineLeads      = vocab.set("deadline_lead")
	deadlineBy         = vocab.set("deadline_by")
	deadlineFor        = vocab.set("deadline_for")
	deadlineHedge      = vocab.set("deadline_hedge")
	deadlineAlone      = vocab.set("deadline_alone")
	deadlineWhole      = vocab.set("deadline_whole")
	deadlineWholeNever = vocab.set("deadline_whole_never")
)

// maxDeadline is the longest deadline read: longer ones are not a time
// target anybody sizes a run for.
const maxDeadline = 366 * 24 * time.Hour

// readDeadline finds a deadline ("in a week", "within 3 days", "in
// under 10 hours", "by the weekend", "overnight") or a run's length ("for
// ~10 hours", "for the weekend") and returns the tokens the main parse
// should read (the rest), filtered in place.
func readDeadline(input string, toks []token) ([]token, Deadline) {
	key := unitKeysOf(toks)
	for i := range toks {
		if dl, n := runLengthAt(input, toks, key, i); n > 0 {
			return append(toks[:i], toks[i+n:]...), dl
		}
		k := low(toks[i])
		if deadlineAlone.has(k) {
			dl := Deadline{Within: deadlineUnits[k], Words: toks[i].raw}
			return append(toks[:i], toks[i+1:]...), dl
		}
		if !deadlineLeads.has(k) {
			continue
		}
		if deadlineBy.has(k) {
			if day, n := namedDay(toks[i+1:]); n > 0 {
				dl := Deadline{Words: input[toks[i].start:toks[i+n].end], Day: day}
				return append(toks[:i], toks[i+n+1:]...), dl
			}
		}
		j := i + 1
		for j < len(toks) && deadlineHedge.has(low(toks[j])) {
			j++
		}
		if j >= len(toks) {
			break
		}
		n, unit := 1.0, ""
		if _, ok := deadlineUnits[low(toks[j])]; ok && (deadlineWhole.has(low(toks[j])) || deadlineBy.has(k) || theWords.has(low(toks[j-1]))) {
			unit = low(toks[j]) // "by the weekend", "within the week"
		} else {
			count, ok := deadlineCounts[low(toks[j])]
			c := float64(count)
			if !ok {
				v, err := strconv.ParseFloat(strings.TrimPrefix(low(toks[j]), "~"), 64) // "~10"
				if err != nil || v <= 0 {
					continue
				}
				c = v
			}
			if j+1 >= len(toks) {
				break
			}
			j++
			n, unit = c, low(toks[j])
		}
		u, ok := deadlineUnits[unit]
		if !ok || deadlineWhole.has(unit) && deadlineWholeNever.has(k) {
			continue
		}
		d := time.Duration(n * float64(u))
		if d <= 0 || d > maxDeadline {
			continue
		}
		dl := Deadline{Within: d, Words: input[toks[i].start:toks[j].end], Run: deadlineFor.has(k)}
		return append(toks[:i], toks[j+1:]...), dl
	}
	return toks, Deadline{}
}

// runLengthAt reads the length a run is given said before it, a slot of
// vocab.txt ("a 2-day run", "3-week job"): a Deadline with Run set, and
// the tokens used (0 when there is none).
func runLengthAt(input string, toks []token, key func(int) string, i int) (Deadline, int) {
	m, ok := runLengthSlot.at(key, i)
	if !ok {
		return Deadline{}, 0
	}
	num, _ := parseNumber(m.value(classNum))
	n, ok := num.scaled(1)
	d := time.Duration(float64(n) * sizing.Periods[m.value("SPAN")] * float64(time.Second))
	if !ok || d <= 0 || d > maxDeadline {
		return Deadline{}, 0
	}
	from := i
	for from < i+m.n-1 && !numberStart(key(from)) { // "and 1 week": quoted from its number
		from++
	}
	return Deadline{Within: d, Words: input[toks[from].start:toks[i+m.n-1].end], Run: true}, m.n
}

// namedDay reads the day a deadline names after "by": a run of the
// words of dayWords and times of day ("friday", "eod tomorrow", "monday
// morning", "5pm", "the end of next week"), the first day named winning;
// a time of day alone is today. It returns the day as Deadline.Day names
// it ("next " before a weekday of the week after this one) and the
// tokens used.
func namedDay(toks []token) (string, int) {
	day, next, part, n := "", false, false, 0
	for j, t := range toks {
		w := low(t)
		named, ok := dayWords[w]
		switch {
		case dayPart.has(w), !ok && clockTime(t.key):
			part = true
		case !ok:
			return dayNamed(day, next, part, n)
		case dayFiller.has(w):
			continue
		case dayNext.has(w):
			next = true
		case day != "":
			// The deadline is the first day named: "by thursday eod
			// (today's monday)" says what today is after it.
			return dayNamed(day, next, part, n)
		default:
			day = named
		}
		n = j + 1
	}
	return dayNamed(day, next, part, n)
}

// dayNamed is the day namedDay read: today for a time of day alone, a
// weekday of next week after "next", with the n tokens used; "" and 0
// when no day was named.
func dayNamed(day string, next, part bool, n int) (string, int) {
	if _, weekday := weekdayNamed(day); next && weekday {
		return "next " + day, n
	}
	if day == "" && part {
		return "today", n
	}
	if day == "" {
		return "", 0
	}
	return day, n
}
