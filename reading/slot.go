package reading

import (
	"fmt"
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
	words map[string]bool // the words the token may be; nil for a class
	class string          // the class, upper case; "" for words
	glued bool            // a number glued before a word of class
	not   bool            // the word after the match must not be this element
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
		p.elems = append(p.elems, slotElem{words: words})
	}
	p.elems[len(p.elems)-1].not = not
	return p, nil
}

// classSets indexes the sets that make up each class named by a slot row:
// the word → value of each class. A class no set names is an error.
func (v *vocabulary) classSets(patterns []slotPattern) error {
	v.classes = map[string]map[string]string{}
	for _, p := range patterns {
		for _, e := range p.elems {
			if e.class == "" || e.class == classNum || v.classes[e.class] != nil {
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
			v.classes[e.class] = words
		}
	}
	return nil
}

// gluedAt splits a word into a number and a word of class glued after it
// ("2day": "2" and day's value), the longest number first.
func (v *vocabulary) gluedAt(class, word string) (num, value string, ok bool) {
	if !numberStart(word) {
		return "", "", false
	}
	words := v.classes[class]
	for k := len(word) - 1; k > 0; k-- {
		value, ok := words[word[k:]]
		if !ok {
			continue
		}
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
	words  map[string]bool // nil when any word may start it
	number bool            // every pattern starts with a number
}

// may reports whether a pattern of the kind may start at word.
func (s slotStart) may(word string) bool {
	switch {
	case s.number:
		return numberStart(word)
	case s.words != nil:
		return s.words[word]
	}
	return true
}

// slotStarts is what the patterns of each kind of slot start with.
func (v *vocabulary) slotStarts() map[string]slotStart {
	starts := map[string]slotStart{}
	for kind, patterns := range v.slots {
		s := slotStart{words: map[string]bool{}, number: true}
		numbers := false
		for _, p := range patterns {
			first := p.elems[0]
			if first.class == classNum || first.glued {
				numbers = true
				continue
			}
			s.number = false
			for w := range first.words {
				s.words[w] = true
			}
			for w := range v.classes[first.class] {
				s.words[w] = true
			}
		}
		if numbers {
			s.words = nil // a number starts one: no list of words holds all starts
		}
		starts[kind] = s
	}
	return starts
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

// slot matches the patterns of a kind of slot at token i of words read
// by w (the lower-case word at an index, "" past the end or for a word
// already read): the first pattern that matches, in the file's order;
// ok is false when none does.
func (v *vocabulary) slot(kind string, w func(int) string, i int) (m slotMatch, ok bool) {
	if !v.starts[kind].may(w(i)) {
		return slotMatch{}, false // spares trying each pattern: slots are tried at every word
	}
	for _, p := range v.slots[kind] {
		if m, ok := v.matchSlot(p, w, i); ok {
			return m, true
		}
	}
	return slotMatch{}, false
}

// matchSlot matches one pattern at token i.
func (v *vocabulary) matchSlot(p slotPattern, w func(int) string, i int) (slotMatch, bool) {
	var m slotMatch
	for k, e := range p.elems {
		word := w(i + k)
		switch {
		case e.not:
			if _, ok := v.matchSlot(slotPattern{elems: []slotElem{{words: e.words, class: e.class, glued: e.glued}}}, w, i+k); ok {
				return slotMatch{}, false
			}
			m.n = k
			return m, true
		case word == "":
			return slotMatch{}, false
		case e.words != nil:
			if !e.words[word] {
				return slotMatch{}, false
			}
		case e.class == classNum:
			if _, ok := parseNumber(word); !ok {
				return slotMatch{}, false
			}
			m.values = append(m.values, slotValue{class: e.class, value: word, word: word})
		case e.glued:
			num, value, ok := v.gluedAt(e.class, word)
			if !ok {
				return slotMatch{}, false
			}
			m.values = append(m.values, slotValue{class: classNum, value: num, word: word}, slotValue{class: e.class, value: value, word: word})
		default:
			value, ok := v.classes[e.class][word]
			if !ok {
				return slotMatch{}, false
			}
			if value == "" {
				value = word // a class of one set captures the word
			}
			m.values = append(m.values, slotValue{class: e.class, value: value, word: word})
		}
	}
	m.n = len(p.elems)
	return m, true
}
