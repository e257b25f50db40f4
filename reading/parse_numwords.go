package reading

import (
	"fmt"
	"maps"
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
// The words are vocab.txt's, by value: the sets number_unit_N,
// number_teen_N and number_tens_N.
var (
	unitWords = numberValues("number_unit")
	teenWords = numberValues("number_teen")
	// tensWords is a list, not a map: every word of every question is
	// tried against each as a prefix ("twenty-four").
	tensWords = func() []tensWord {
		var list []tensWord
		for w, v := range numberValues("number_tens") {
			list = append(list, tensWord{w, v})
		}
		return list
	}()
)

// tensWord is a word of tens and its value: "twenty", 20.
type tensWord struct {
	word string
	tens int
}

// numberValues is the words of vocab.txt's sets base_N, each with its
// number N.
func numberValues(base string) map[string]int {
	words := map[string]int{}
	for w, n := range vocab.values(base) {
		v, err := strconv.Atoi(n)
		if err != nil {
			panic("reading: vocab.txt: the sets " + base + "_N need a number N: " + err.Error())
		}
		words[w] = v
	}
	return words
}

// The words that join number words (vocab.txt, its parse_numwords.go
// section): "a hundred", "two hundred and fifty", "a couple of thousand".
var (
	numberArticle  = vocab.set("number_article")
	numberHundred  = vocab.set("number_hundred")
	numberThousand = vocab.set("number_thousand")
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
	if i+n < len(toks) && numberHundred.has(toks[i+n].key) {
		if n == 0 {
			v = 1 // "hundred", "a hundred"
		}
		v *= 100
		n++
		j := i + n
		if j < len(toks) && andWords.has(toks[j].key) {
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
	if i+1 < len(toks) && numberArticle.has(toks[i].key) && (numberHundred.has(toks[i+1].key) || numberThousand.has(toks[i+1].key)) {
		v, n := numberWordAt(toks, i+1) // "a thousand": the "a" is quoted with it
		return v, n + 1
	}
	v, n := hundredsAt(toks, i)
	if i+n >= len(toks) || !numberThousand.has(toks[i+n].key) || v >= 1000 {
		return v, n
	}
	if n == 0 {
		v = 1 // "thousand", "a thousand"
	}
	v *= 1000
	n++
	j := i + n
	if j < len(toks) && andWords.has(toks[j].key) {
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
// The words are vocab.txt's sets vague_count_N and vague_scale_N.
var (
	vagueWords = numberValues("vague_count")
	vagueScale = numberValues("vague_scale")
)

// vagueCountAt reads a vague count of hundreds or thousands at toks[i]
// ("a few hundred", "few thousand", "a couple of hundred", "several
// k"). It reports the value and the tokens used (0 when there is none).
func vagueCountAt(toks []token, i int) (int, int) {
	key := func(j int) string { // an ignorable token has no key
		if j < len(toks) {
			return toks[j].key
		}
		return ""
	}
	j := i + btoi(numberArticle.has(key(i)))
	v, ok := vagueWords[key(j)]
	j += 1 + btoi(ofWords.has(key(j+1)))
	scale, ok2 := vagueScale[key(j)]
	if !ok || !ok2 {
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

// sizeUnits are the numberUnits of billions: "b", "billion".
var sizeUnits = vocab.set("numunit_b")

// sizeApart reports whether tokens i and i+1 are a model size typed
// with a space: digits, then "b" or "billion" ("13 b", "70 billion").
func sizeApart(toks []token, i int) bool {
	if i+1 >= len(toks) || !sizeUnits.has(toks[i+1].key) {
		return false
	}
	n, err := strconv.Atoi(toks[i].key)
	return err == nil && n > 0 && n <= 2000
}

// numberStarts is every word a number word may start with: the words of
// numberWords, the vague counts, the articles, hundreds and thousands,
// the units and teens, and the tens alone or with a unit glued (the
// words belowHundred reads). readNumberWords passes any other word on at
// once: it reads every word of every question.
var numberStarts = func() *wordSet {
	words := map[string]bool{}
	for w := range numberWords {
		words[w] = true
	}
	for _, m := range []map[string]int{unitWords, teenWords, vagueWords} {
		for w := range m {
			words[w] = true
		}
	}
	for _, s := range []*wordSet{numberArticle, numberHundred, numberThousand} {
		maps.Copy(words, s.words)
	}
	for _, t := range tensWords {
		words[t.word] = true
		for u := range unitWords {
			words[t.word+u] = true
		}
	}
	return newWordSet(words)
}()

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
		if !numberStarts.has(toks[i].key) {
			out = append(out, toks[i])
			i++
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
