package reading

import (
	"fmt"
	"strconv"
	"strings"
)

// Number words beyond the counts the vocabulary holds ("one" to
// "sixteen", kindCount): "seventeen", "twenty four", "twenty-four",
// "a hundred", "two hundred and fifty". readNumberWords turns them into
// digits before any other pass reads the question, so that every pass
// (the serving load, the deadline, the counts) reads "twenty a100s" as
// it reads "20 a100s", and a number word that counts nothing is reported
// as a number without a meaning, never silently dropped.
var (
	unitWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
	teenWords = map[string]int{"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
	// tensWords is a list, not a map: every word of every question is
	// tried against each as a prefix ("twenty-four").
	tensWords = []struct {
		word string
		tens int
	}{{"twenty", 20}, {"thirty", 30}, {"forty", 40}, {"fourty", 40}, {"fifty", 50}, {"sixty", 60},
		{"seventy", 70}, {"eighty", 80}, {"ninety", 90}}
)

// maxVocabCount is the largest number word the vocabulary reads as a
// count of its own (kindCount); readNumberWords leaves those alone.
const maxVocabCount = 16

// belowHundred reads a number word under a hundred at toks[i]: "seven",
// "seventeen", "seventy", "seventy seven", "seventy-seven". It reports
// the value and the tokens used (0 when there is none).
func belowHundred(toks []token, i int) (int, int) {
	if i >= len(toks) || toks[i].ignorable {
		return 0, 0
	}
	k := toks[i].key
	if v, ok := unitWords[k]; ok {
		return v, 1
	}
	if v, ok := teenWords[k]; ok {
		return v, 1
	}
	for _, t := range tensWords {
		tens := t.tens
		rest, ok := strings.CutPrefix(k, t.word)
		if !ok {
			continue
		}
		if rest == "" {
			if i+1 < len(toks) && !toks[i+1].ignorable {
				if u, ok := unitWords[toks[i+1].key]; ok {
					return tens + u, 2 // "twenty four"
				}
			}
			return tens, 1
		}
		if u, ok := unitWords[rest]; ok {
			return tens + u, 1 // "twenty-four"
		}
	}
	return 0, 0
}

// hundredsAt reads a number written in words at toks[i], up to 9,999
// ("ninety nine hundred"): below a hundred, or hundreds with an optional
// "and" and a rest ("a hundred", "two hundred and fifty", "hundred
// twenty"). It reports the value and the tokens used.
func hundredsAt(toks []token, i int) (int, int) {
	v, n := belowHundred(toks, i)
	if i+n < len(toks) && toks[i+n].key == "hundred" {
		if n == 0 {
			v = 1 // "hundred", "a hundred"
		}
		v *= 100
		n++
		j := i + n
		if j < len(toks) && toks[j].key == "and" {
			j++
		}
		if r, m := belowHundred(toks, j); m > 0 {
			v += r
			n = j + m - i
		}
	}
	return v, n
}

// numberWordAt reads a number written in words at toks[i]: hundreds
// (hundredsAt), or thousands of them with an optional "and" and a rest
// ("a thousand", "two thousand", "twenty thousand five hundred"; "two
// thousand users" is 2000 users, not a batch). It reports the value
// and the tokens used.
func numberWordAt(toks []token, i int) (int, int) {
	if i+1 < len(toks) && toks[i].key == "a" && (toks[i+1].key == "hundred" || toks[i+1].key == "thousand") {
		v, n := numberWordAt(toks, i+1) // "a thousand": the "a" is quoted with it
		return v, n + 1
	}
	v, n := hundredsAt(toks, i)
	if i+n >= len(toks) || toks[i+n].key != "thousand" || v >= 1000 {
		return v, n
	}
	if n == 0 {
		v = 1 // "thousand", "a thousand"
	}
	v *= 1000
	n++
	j := i + n
	if j < len(toks) && toks[j].key == "and" {
		j++
	}
	if r, m := hundredsAt(toks, j); m > 0 && r < 1000 {
		v += r
		n = j + m - i
	}
	return v, n
}

// Vague counts of hundreds or thousands ("a few hundred users", "a
// couple of thousand", "several k") are read as a number so that the
// load is sized, and the reading is said: a few is 3, a couple 2 and
// several 5 ("a few hundred users" is 300, not 100).
var (
	vagueWords = map[string]int{"few": 3, "couple": 2, "several": 5}
	vagueScale = map[string]int{"hundred": 100, "hundreds": 100, "thousand": 1000, "thousands": 1000, "k": 1000}
)

// vagueCountAt reads a vague count of hundreds or thousands at toks[i]
// ("a few hundred", "few thousand", "a couple of hundred", "several
// k"). It reports the value and the tokens used (0 when there is none).
func vagueCountAt(toks []token, i int) (int, int) {
	j := i
	if j < len(toks) && toks[j].key == "a" {
		j++
	}
	if j >= len(toks) || toks[j].ignorable {
		return 0, 0
	}
	v, ok := vagueWords[toks[j].key]
	if !ok {
		return 0, 0
	}
	j++
	if j < len(toks) && toks[j].key == "of" {
		j++
	}
	if j >= len(toks) || toks[j].ignorable {
		return 0, 0
	}
	scale, ok := vagueScale[toks[j].key]
	if !ok {
		return 0, 0
	}
	return v * scale, j + 1 - i
}

// numberUnits are the words after a number that glue to it as its
// digits would be written: "twenty k" is 20k, "seventy b" and "13 bil"
// 70b and 13b (vocab.txt: the sets numunit_SUFFIX).
var numberUnits = vocab.values("numunit")

// numberWords are words that are a number on their own ("dozen": 12),
// read as its digits wherever they are (vocab.txt: the sets numword_N).
var numberWords = vocab.values("numword")

// sizeApart reports whether tokens i and i+1 are a model size typed
// with a space: digits, then "b" or "billion" ("13 b", "70 billion").
func sizeApart(toks []token, i int) bool {
	if i+1 >= len(toks) || numberUnits[toks[i+1].key] != "b" {
		return false
	}
	n, err := strconv.Atoi(toks[i].key)
	return err == nil && n > 0 && n <= 2000
}

// readNumberWords replaces each number written in words that the
// vocabulary does not read as a count by one token of its digits, then
// types the numbers by their nouns (classQuantities): its
// raw text and key are the digits, its offsets those of the words, so
// that the asker's words are still quoted as written. It returns a note
// for each vague count it read ("a few hundred" taken as 300).
func readNumberWords(toks []token) ([]token, []string) {
	out := toks[:0]
	var notes []string
	for i := 0; i < len(toks); {
		if sizeApart(toks, i) {
			// "13 b": a size typed with a space, as "13b".
			d := toks[i].key + "b"
			out = append(out, token{raw: d, key: d, start: toks[i].start, end: toks[i+1].end})
			i += 2
			continue
		}
		if d, ok := numberWords[toks[i].key]; ok && !toks[i].ignorable {
			// "a dozen users": the count, as "12 users" says it.
			out = append(out, token{raw: d, key: d, start: toks[i].start, end: toks[i].end})
			i++
			continue
		}
		v, n := vagueCountAt(toks, i)
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%s taken as %d", quote(joinRaw(toks, i, i+n)), v))
		} else {
			v, n = numberWordAt(toks, i)
		}
		// "twenty k": thousands, as "20k" writes them; "thirteen b": a
		// model size, as "13b" does.
		unit := ""
		if n > 0 && i+n < len(toks) {
			unit = numberUnits[toks[i+n].key]
		}
		if n == 0 || (n == 1 && v <= maxVocabCount && unit == "") {
			out = append(out, toks[i])
			i++
			continue
		}
		d := strconv.Itoa(v)
		if unit != "" {
			d += unit
			n++
		}
		out = append(out, token{raw: d, key: d, start: toks[i].start, end: toks[i+n-1].end})
		i += n
	}
	return classQuantities(out), notes
}
