package sizing

import (
	"strconv"
	"time"
)

// Deadline is a time the asker wants a run done in ("in a week", "within
// 3 days", "in under 10 hours"): the answer checks the run's time
// against it, or says in its first words that it could not.
type Deadline struct {
	Within time.Duration // 0: none said
	Words  string        // the asker's words: "in a week"
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
// under 10 hours", "by the weekend", "overnight") and returns the
// tokens the main parse should read (the rest), filtered in place.
func readDeadline(input string, toks []token) ([]token, Deadline) {
	for i := range toks {
		k := low(toks[i])
		if k == "overnight" {
			dl := Deadline{Within: deadlineUnits[k], Words: toks[i].raw}
			return append(toks[:i], toks[i+1:]...), dl
		}
		if k != "in" && k != "within" && k != "by" {
			continue
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
				v, err := strconv.ParseFloat(low(toks[j]), 64)
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
		dl := Deadline{Within: d, Words: input[toks[i].start:toks[j].end]}
		return append(toks[:i], toks[j+1:]...), dl
	}
	return toks, Deadline{}
}
