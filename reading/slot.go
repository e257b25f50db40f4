package reading

import (
	"fmt"
	"maps"
	"strings"
)

// A slot pattern is a sequence of words over token classes that fills
// one kind of slot ("how many TOKENS per PERIOD": the tokens a period
// the cards serve), in the spirit of a rule list: the patterns are rows
// of vocab.txt, and Go code exists only for each kind of slot, which
// reads what the pattern captured.
//
// An element of a pattern is one of:
//   - a word, which the token must be ("how");
//   - words joined by "|", one of which the token must be ("per|a|each");
//   - a CLASS in upper case: NUM is a number ("8", "2.5k"); any other
//     class is the words of the sets named its lower case or its lower
//     case and "_" and a value ("PERIOD": the sets period_hour,
//     period_day, ...), and captures that value ("hour");
//   - NUM-CLASS: a number glued to a word of CLASS, with or without a
//     hyphen ("2-day", "3wk"), which captures the number as NUM and the
//     value as CLASS;
//   - !ELEMENT, last only: the word after the match is not ELEMENT, or
//     there is none ("full ctx !NUM": "full ctx" with no length after
//     it); it is not part of the match and captures nothing.
type slotElem struct {
	words  *wordSet          // the words the token may be; nil for a class
	class  string            // the class, upper case; "" for words
	glued  bool              // a number glued before a word of class
	not    bool              // the word after the match must not be this element
	values map[string]string // the class's words and values (classSets)
	set    *wordSet          // the class's words, which turn a word away before values is looked up
}

// slotPattern is one slot row: the kind of slot it fills and its
// elements, with the line it was read from for errors.
type slotPattern struct {
	kind  string
	elems []slotElem
	line  int
}

// slotMatch is what a slot pattern matched: how many tokens, and the
// value each class captured, in the pattern's order.
type slotMatch struct {
	n      int
	values []slotValue
}

// slotValue is one class's capture: the class, the value its set names
// ("day" for a word of period_day) and the token as said.
type slotValue struct {
	class, value, word string
}

// value is what the first of the named classes to capture captured,
// "" when none did.
func (m slotMatch) value(classes ...string) string {
	for _, v := range m.values {
		for _, c := range classes {
			if v.class == c {
				return v.value
			}
		}
	}
	return ""
}

// classNum is the class of numbers, read by parseNumber rather than a set.
const classNum = "NUM"

// parseSlot reads the fields of a slot row after "slot": the kind, then
// the pattern's elements.
func parseSlot(f []string, line int) (slotPattern, error) {
	p := slotPattern{kind: f[0], line: line}
	last, not := strings.CutPrefix(f[len(f)-1], "!")
	if not && (len(f) < 3 || last == "") {
		return p, fmt.Errorf("the element %q negates nothing, or follows no element", f[len(f)-1])
	}
	for k, e := range f[1:] {
		if k == len(f)-2 {
			e = last
		}
		if strings.HasPrefix(e, "!") {
			return p, fmt.Errorf("the element %q: only the last element may be negated", e)
		}
		if strings.ToUpper(e) == e && strings.ToLower(e) != e && !strings.Contains(e, "|") {
			class, glued := strings.CutPrefix(e, classNum+"-")
			if glued && (class == "" || class == classNum) {
				return p, fmt.Errorf("the element %q glues a number to no class", e)
			}
			p.elems = append(p.elems, slotElem{class: class, glued: glued})
			continue
		}
		words := map[string]bool{}
		for _, w := range strings.Split(e, "|") {
			if w == "" || words[w] {
				return p, fmt.Errorf("the element %q has an empty or repeated word", e)
			}
			words[w] = true
		}
		p.elems = append(p.elems, slotElem{words: newWordSet(words)})
	}
	p.elems[len(p.elems)-1].not = not
	return p, nil
}

// classSets indexes the sets that make up each class named by a slot row:
// the word → value of each class. A class no set names is an error.
func (v *vocabulary) classSets(patterns []slotPattern) error {
	v.classes, v.classWords = map[string]map[string]string{}, map[string]*wordSet{}
	for _, p := range patterns {
		for k, e := range p.elems {
			if e.class == "" || e.class == classNum {
				continue
			}
			if v.classes[e.class] != nil {
				p.elems[k].values, p.elems[k].set = v.classes[e.class], v.classWords[e.class]
				continue
			}
			base := strings.ToLower(e.class)
			words, err := v.valued(base)
			if err != nil {
				return fmt.Errorf("line %d: %v", p.line, err)
			}
			if len(words) == 0 {
				return fmt.Errorf("line %d: no set makes up the class %s (a set %q or %q)", p.line, e.class, base, base+"_VALUE")
			}
			set := map[string]bool{}
			for w := range words {
				set[w] = true
			}
			v.classes[e.class], v.classWords[e.class] = words, newWordSet(set)
			p.elems[k].values, p.elems[k].set = words, v.classWords[e.class]
		}
	}
	return nil
}

// gluedAt splits a word into a number and a word of class glued after it
// ("2day": "2" and day's value), the longest number first.
func (v *vocabulary) gluedAt(class, word string) (num, value string, ok bool) {
	return gluedTo(v.classWords[class], v.classes[class], word)
}

// gluedTo is gluedAt for the words of a class, as a set and with their
// values.
func gluedTo(set *wordSet, values map[string]string, word string) (num, value string, ok bool) {
	if !numberStart(word) || set == nil {
		return "", "", false
	}
	for k := len(word) - 1; k > 0; k-- {
		if !set.has(word[k:]) {
			continue
		}
		value := values[word[k:]]
		if _, isNum := parseNumber(word[:k]); !isNum {
			continue
		}
		if value == "" {
			value = word[k:]
		}
		return word[:k], value, true
	}
	return "", "", false
}

// slotStart is what the patterns of a kind of slot start with: the
// words listed first, or a number when every pattern starts with one; a
// kind with words and numbers first may start anywhere.
type slotStart struct {
	words  *wordSet // nil when any word may start it
	number bool     // every pattern starts with a number
}

// may reports whether a pattern of the kind may start at word.
func (s *slotStart) may(word string) bool {
	switch {
	case s.number:
		return numberStart(word)
	case s.words != nil:
		return s.words.has(word)
	}
	return true
}

// slotKind is one kind of slot: its patterns, in the file's order, and
// what they start with. The code that fills a kind of slot holds its
// slotKind, so that trying a kind at every word costs no lookup of it.
type slotKind struct {
	patterns []slotPattern
	start    slotStart
	// then is the words the second token may be when every pattern's
	// second element is listed words or a class ("8 users", "per
	// token"); nil when one is a number, glued, a not or absent.
	then *wordSet
}

// slotKinds is the kinds of slot, with what the patterns of each start with.
func (v *vocabulary) slotKinds() map[string]*slotKind {
	kinds := map[string]*slotKind{}
	for kind, patterns := range v.slots {
		k := &slotKind{patterns: patterns, start: slotStart{number: true}}
		words := map[string]bool{}
		numbers := false
		for _, p := range patterns {
			first := p.elems[0]
			if first.class == classNum || first.glued {
				numbers = true
				continue
			}
			k.start.number = false
			if first.words != nil {
				maps.Copy(words, first.words.words)
			}
			for w := range v.classes[first.class] {
				words[w] = true
			}
		}
		if !numbers { // a number starts one: no list of words holds all starts
			k.start.words = newWordSet(words)
		}
		k.then = secondWords(patterns)
		kinds[kind] = k
	}
	return kinds
}

// secondWords is the words the second token of a match of patterns may
// be, nil when a pattern's second element is no listed words nor class.
func secondWords(patterns []slotPattern) *wordSet {
	words := map[string]bool{}
	for _, p := range patterns {
		if len(p.elems) < 2 {
			return nil
		}
		switch e := p.elems[1]; {
		case e.not || e.glued || e.class == classNum:
			return nil
		case e.words != nil:
			maps.Copy(words, e.words.words)
		default:
			maps.Copy(words, e.set.words)
		}
	}
	return newWordSet(words)
}

// numberStart reports whether a number may start word: parseNumber reads
// a sign, digits or a point first.
func numberStart(word string) bool {
	return word != "" && (isDigit(word[0]) || word[0] == '-' || word[0] == '.')
}

// valued is the words of the set named base and of the sets named base,
// "_" and a value, each word with its set's value ("" for the set named
// base): period_hour's words have the value "hour". A word given two
// values is an error.
func (v *vocabulary) valued(base string) (map[string]string, error) {
	words := map[string]string{}
	for name, set := range v.sets {
		value, ok := strings.CutPrefix(name, base+"_")
		if name == base {
			value, ok = "", true
		}
		if !ok {
			continue
		}
		for w := range set {
			if other, dup := words[w]; dup && other != value {
				return nil, fmt.Errorf("%q is %s both as %q and as %q", w, strings.ToUpper(base), other, value)
			}
			words[w] = value
		}
	}
	return words, nil
}

// values is valued for the embedded vocabulary, whose sets TestVocab
// checks: the words of the sets base_VALUE with their values.
func (v *vocabulary) values(base string) map[string]string {
	words, err := v.valued(base)
	if err != nil {
		panic("reading: vocab.txt: " + err.Error())
	}
	return words
}

// The kinds of slot the passes try at every word, held once.
var (
	aDaySlot          = vocab.kind("a_day")
	allMonthSlot      = vocab.kind("all_month")
	askContextHowSlot = vocab.kind("ask_context_how")
	askVramSlot       = vocab.kind("ask_vram")
	atOnceSlot        = vocab.kind("at_once")
	batchLeadSlot     = vocab.kind("batch_lead")
	batchNounSlot     = vocab.kind("batch_noun")
	boundSlot         = vocab.kind("bound")
	bpwAfterSlot      = vocab.kind("bpw_after")
	busyPercentSlot   = vocab.kind("busy_percent")
	busyShareSlot     = vocab.kind("busy_share")
	connectorSlot     = vocab.kind("connector")
	contextNounSlot   = vocab.kind("context_noun")
	countApartSlot    = vocab.kind("count_apart")
	countForSlot      = vocab.kind("count_for")
	countedNounSlot   = vocab.kind("counted_noun")
	dailyUsersSlot    = vocab.kind("daily_users")
	docsMonthlySlot   = vocab.kind("docs_monthly")
	eachAfterSlot     = vocab.kind("each_after")
	eachUserSlot      = vocab.kind("each_user")
	figureMemorySlot  = vocab.kind("figure_memory")
	firstTokenSlot    = vocab.kind("first_token")
	fullAsSlot        = vocab.kind("full_as")
	fullTimeSlot      = vocab.kind("full_time")
	gpuCountSlot      = vocab.kind("gpu_count")
	gpuHoursSlot      = vocab.kind("gpu_hours")
	gpuUtilSlot       = vocab.kind("gpu_util")
	howManySlot       = vocab.kind("how_many")
	inOutSlot         = vocab.kind("in_out")
	largestBatchSlot  = vocab.kind("largest_batch")
	maxBatchSlot      = vocab.kind("max_batch")
	multiplierSlot    = vocab.kind("multiplier")
	nodeHoursSlot     = vocab.kind("node_hours")
	onPremSlot        = vocab.kind("on_prem")
	orderIdiomSlot    = vocab.kind("order_idiom")
	ownAskedSlot      = vocab.kind("own_asked")
	perGpuSlot        = vocab.kind("per_gpu")
	perMonthSlot      = vocab.kind("per_month")
	perTokenSlot      = vocab.kind("per_token")
	plansAskedSlot    = vocab.kind("plans_asked")
	readAsSlot        = vocab.kind("read_as")
	requestCostSlot   = vocab.kind("request_cost")
	rpsSlot           = vocab.kind("rps")
	runLengthSlot     = vocab.kind("run_length")
	timeApartSlot     = vocab.kind("time_apart")
	tokenCostSlot     = vocab.kind("token_cost")
	tokensAskedSlot   = vocab.kind("tokens_asked")
	tpDegreeSlot      = vocab.kind("tp_degree")
	tpsSlot           = vocab.kind("tps")
	tpsEachSlot       = vocab.kind("tps_each")
	tpsTotalSlot      = vocab.kind("tps_total")
	valueWordsSlot    = vocab.kind("value_words")
	worthItSlot       = vocab.kind("worth_it")
)

// slotGroup is kinds of slot a pass tries one after another at each
// word: a word none of them may start is passed over at the cost of one
// test, not of one try of each kind.
type slotGroup struct {
	words  *wordSet // the words the kinds' patterns start with
	number bool     // a kind starts with a number
	any    bool     // a kind may start at any word
}

// newSlotGroup is kinds as a slotGroup.
func newSlotGroup(kinds ...*slotKind) slotGroup {
	var g slotGroup
	words := map[string]bool{}
	for _, k := range kinds {
		switch {
		case k.start.number:
			g.number = true
		case k.start.words != nil:
			maps.Copy(words, k.start.words.words)
		default:
			g.any = true
		}
	}
	g.words = newWordSet(words)
	return g
}

// may reports whether a pattern of one of the kinds may start at word.
func (g slotGroup) may(word string) bool {
	return g.any || g.number && numberStart(word) || g.words.has(word)
}

// kind is the named kind of slot; a name vocab.txt lacks is a mistake in
// this package, found when it starts.
func (v *vocabulary) kind(name string) *slotKind {
	k, ok := v.kinds[name]
	if !ok {
		panic("reading: vocab.txt has no slot " + name)
	}
	return k
}

// slot matches the patterns of the named kind of slot at token i, as
// slotKind.at; code that tries a kind at every word holds the kind
// (vocabulary.kind) and calls at.
func (v *vocabulary) slot(name string, w func(int) string, i int) (m slotMatch, ok bool) {
	return v.kind(name).at(w, i)
}

// at matches the patterns of the kind at token i of words read by w (the
// lower-case word at an index, "" past the end or for a word already
// read): the first pattern that matches, in the file's order; ok is
// false when none does.
func (k *slotKind) at(w func(int) string, i int) (m slotMatch, ok bool) {
	if !k.start.may(w(i)) || k.then != nil && !k.then.has(w(i+1)) {
		return slotMatch{}, false // spares trying each pattern: slots are tried at every word
	}
	for _, p := range k.patterns {
		if m, ok := p.match(w, i); ok {
			return m, true
		}
	}
	return slotMatch{}, false
}

// match matches the pattern at token i.
func (p slotPattern) match(w func(int) string, i int) (slotMatch, bool) {
	// The listed words and the classes' words first: they turn most
	// places away before a number is read.
	for k, e := range p.elems {
		switch {
		case e.not: // read last, below
		case e.words != nil:
			if !e.words.has(w(i + k)) {
				return slotMatch{}, false
			}
		case e.class != classNum && !e.glued:
			if !e.set.has(w(i + k)) {
				return slotMatch{}, false
			}
		}
	}
	var m slotMatch
	for k, e := range p.elems {
		word := w(i + k)
		switch {
		case e.not:
			pos := e
			pos.not = false
			if _, ok := (slotPattern{elems: []slotElem{pos}}).match(w, i+k); ok {
				return slotMatch{}, false
			}
			m.n = k
			return m, true
		case e.words != nil: // matched above
		case word == "":
			return slotMatch{}, false
		case e.class == classNum:
			if _, ok := parseNumber(word); !ok {
				return slotMatch{}, false
			}
			m.values = append(m.values, slotValue{class: e.class, value: word, word: word})
		case e.glued:
			num, value, ok := gluedTo(e.set, e.values, word)
			if !ok {
				return slotMatch{}, false
			}
			m.values = append(m.values, slotValue{class: classNum, value: num, word: word}, slotValue{class: e.class, value: value, word: word})
		default: // in the class: matched above
			value := e.values[word]
			if value == "" {
				value = word // a class of one set captures the word
			}
			m.values = append(m.values, slotValue{class: e.class, value: value, word: word})
		}
	}
	m.n = len(p.elems)
	return m, true
}
