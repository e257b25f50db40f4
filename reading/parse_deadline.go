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

// weekdays are the days a deadline may name, by word.
var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "mon": time.Monday, "tuesday": time.Tuesday, "tue": time.Tuesday, "tues": time.Tuesday,
	"wednesday": time.Wednesday, "wed": time.Wednesday, "thursday": time.Thursday, "thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday,
	"friday": time.Friday, "fri": time.Friday, "saturday": time.Saturday, "sat": time.Saturday, "sunday": time.Sunday, "sun": time.Sunday,
}

// dayWords are the other days a deadline may name ("by tomorrow", "by
// eod"), by word, as Day names them.
var dayWords = map[string]string{"tomorrow": "tomorrow", "tmrw": "tomorrow", "tonight": "today", "eod": "today", "eow": "friday", "today": "today"}

// At is d with a named day (Day) counted from now: Within is the time
// to the end of that day in now's location ("by friday" on a Friday is
// the end of today), and Words say how long that is. A deadline that
// names no day is returned as it is.
func (d Deadline) At(now time.Time) Deadline {
	if d.Day == "" {
		return d
	}
	ahead := 0
	switch d.Day {
	case "today":
	case "tomorrow":
		ahead = 1
	default:
		wd, ok := weekdays[d.Day]
		if !ok {
			return d
		}
		ahead = (int(wd) - int(now.Weekday()) + 7) % 7
	}
	y, m, day := now.Date()
	end := time.Date(y, m, day+ahead+1, 0, 0, 0, 0, now.Location())
	d.Within = end.Sub(now)
	d.Words = fmt.Sprintf("%s (%s, %.0f h from now)", d.Words, end.Add(-time.Minute).Format("Mon 15:04 MST"), d.Within.Hours())
	return d
}

// deadlineUnits are the units of a deadline, by word.
var deadlineUnits = map[string]time.Duration{
	"hour": time.Hour, "hours": time.Hour, "hr": time.Hour, "hrs": time.Hour, "h": time.Hour,
	"day": 24 * time.Hour, "days": 24 * time.Hour, "d": 24 * time.Hour,
	"week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour, "wk": 7 * 24 * time.Hour, "wks": 7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour, "months": 30 * 24 * time.Hour,
	"weekend": 48 * time.Hour, "overnight": 12 * time.Hour,
}

// deadlineCounts are counts said as words.
var deadlineCounts = map[string]float64{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "a couple": 2, "few": 3}

// maxDeadline is the longest deadline read: longer ones are not a time
// target anybody sizes a run for.
const maxDeadline = 366 * 24 * time.Hour

// readDeadline finds a deadline ("in a week", "within 3 days", "in
// under 10 hours", "by the weekend", "overnight") or a run's length ("for
// ~10 hours", "for the weekend") and returns the tokens the main parse
// should read (the rest), filtered in place.
func readDeadline(input string, toks []token) ([]token, Deadline) {
	key := func(i int) string {
		switch {
		case i >= len(toks) || toks[i].ignorable:
			return ""
		case strings.Contains(toks[i].raw, "/"):
			return toks[i].low // "docs/day" is a rate, not a day
		}
		return toks[i].key
	}
	for i := range toks {
		if dl, n := runLengthAt(input, toks, key, i); n > 0 {
			return append(toks[:i], toks[i+n:]...), dl
		}
		k := low(toks[i])
		if k == "overnight" {
			dl := Deadline{Within: deadlineUnits[k], Words: toks[i].raw}
			return append(toks[:i], toks[i+1:]...), dl
		}
		if k != "in" && k != "within" && k != "by" && k != "for" {
			continue
		}
		if k == "by" {
			if day, n := namedDay(toks[i+1:]); n > 0 {
				dl := Deadline{Words: input[toks[i].start:toks[i+n].end], Day: day}
				return append(toks[:i], toks[i+n+1:]...), dl
			}
		}
		j := i + 1
		for j < len(toks) && (low(toks[j]) == "under" || low(toks[j]) == "less" || low(toks[j]) == "than" || low(toks[j]) == "the" || low(toks[j]) == "about") {
			j++
		}
		if j >= len(toks) {
			break
		}
		n, unit := 1.0, ""
		if u, ok := deadlineUnits[low(toks[j])]; ok && (u == 48*time.Hour || k == "by" || low(toks[j-1]) == "the") {
			unit = low(toks[j]) // "by the weekend", "within the week"
		} else {
			c, ok := deadlineCounts[low(toks[j])]
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
		if !ok || unit == "weekend" && k == "in" {
			continue
		}
		d := time.Duration(n * float64(u))
		if d <= 0 || d > maxDeadline {
			continue
		}
		dl := Deadline{Within: d, Words: input[toks[i].start:toks[j].end], Run: k == "for"}
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

// namedDay reads the day a deadline names after "by": a weekday ("friday",
// "fri"), "tomorrow", "tonight", "eod", "eow", "end of (the) day", "end of
// (the) week", "the end of the week". It returns the day as Deadline.Day
// names it and the tokens used.
func namedDay(toks []token) (string, int) {
	w := func(i int) string {
		if i >= len(toks) {
			return ""
		}
		return low(toks[i])
	}
	j := 0
	if w(j) == "this" {
		j++
	}
	if wd, ok := weekdays[w(j)]; ok {
		return strings.ToLower(wd.String()), j + 1
	}
	if d, ok := dayWords[w(j)]; ok {
		return d, j + 1
	}
	if w(j) == "the" {
		j++
	}
	if w(j) != "end" || w(j+1) != "of" {
		return "", 0
	}
	j += 2
	if w(j) == "the" || w(j) == "this" {
		j++
	}
	switch w(j) {
	case "day", "today":
		return "today", j + 1
	case "week":
		return "friday", j + 1
	}
	return "", 0
}
