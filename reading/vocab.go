package reading

import (
	_ "embed"
	"fmt"
	"strings"
)

// vocabText is the reader's vocabulary as data: word kinds, phrases that
// cue a kind and rewrites, one row a line (see the file's header).
//
//go:embed vocab.txt
var vocabText string

// vocabulary is vocab.txt as read: the words of each set, the phrases
// that cue each name, and the rewrites of single words.
type vocabulary struct {
	sets map[string]map[string]bool
	// ids numbers every word of the sets and of the slot patterns from 1
	// (0 is a word the vocabulary lacks), and bits is each set as the
	// bits of its words' ids: a set lookup is one id lookup and a bit
	// test, and a word's id is looked up once for all its sets.
	ids      map[string]int32
	bits     map[string]wordSet
	phrases  map[string][][]string
	rewrites map[string]string
	// slots are the slot patterns by the kind of slot they fill, in the
	// file's order; classes are the words of each class a pattern names,
	// with the value each captures (slot.go).
	slots   map[string][]slotPattern
	classes map[string]map[string]string
	kinds   map[string]*slotKind // the kinds of slot, with what their patterns start with
	// unsure are the cues of questions that ask one of several things,
	// by name, and readings the things each may ask (unsure.go).
	unsure   map[string][][]string
	readings map[string][]unsureReading
}

// vocab is the embedded vocabulary, read and checked when the program
// starts; TestVocab keeps the file loadable.
var vocab = func() *vocabulary {
	v, err := parseVocab(vocabText)
	if err != nil {
		panic("reading: vocab.txt: " + err.Error())
	}
	return v
}()

// parseVocab reads vocabulary rows and checks them: a set defined twice,
// a word twice in one set, a phrase given to two names, a word rewritten
// two ways, a word in two exclusive sets, a slot pattern given twice or
// a slot class no set makes up is an error naming the line.
func parseVocab(text string) (*vocabulary, error) {
	v := &vocabulary{sets: map[string]map[string]bool{}, phrases: map[string][][]string{}, rewrites: map[string]string{}, slots: map[string][]slotPattern{},
		unsure: map[string][][]string{}, readings: map[string][]unsureReading{}}
	unsureOf := map[string]string{}
	phraseOf := map[string]string{}
	slotOf := map[string]int{}
	var patterns []slotPattern
	var exclusive [][2]string
	for n, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("line %d: %s", n+1, fmt.Sprintf(format, a...))
		}
		if len(f) < 3 {
			return nil, bad("%q needs a name and at least one word", line)
		}
		switch f[0] {
		case "set":
			if v.sets[f[1]] != nil {
				return nil, bad("set %q is defined twice", f[1])
			}
			words := map[string]bool{}
			for _, w := range f[2:] {
				if words[w] {
					return nil, bad("%q is twice in set %q", w, f[1])
				}
				words[w] = true
			}
			v.sets[f[1]] = words
		case "phrase":
			key := strings.Join(f[2:], " ")
			if other, ok := phraseOf[key]; ok {
				return nil, bad("the phrase %q cues both %q and %q", key, other, f[1])
			}
			phraseOf[key] = f[1]
			v.phrases[f[1]] = append(v.phrases[f[1]], f[2:])
		case "rewrite":
			if len(f) != 3 {
				return nil, bad("a rewrite is one word to one word: %q", line)
			}
			if to, ok := v.rewrites[f[1]]; ok {
				return nil, bad("%q is rewritten both as %q and as %q", f[1], to, f[2])
			}
			v.rewrites[f[1]] = f[2]
		case "slot":
			p, err := parseSlot(f[1:], n+1)
			if err != nil {
				return nil, bad("%v", err)
			}
			key := strings.Join(f[2:], " ")
			if at, ok := slotOf[key]; ok {
				return nil, bad("the slot pattern %q is also on line %d", key, at)
			}
			slotOf[key] = n + 1
			patterns = append(patterns, p)
			v.slots[p.kind] = append(v.slots[p.kind], p)
		case "unsure":
			key := strings.Join(f[2:], " ")
			if other, ok := unsureOf[key]; ok {
				return nil, bad("the unsure cue %q is given to both %q and %q", key, other, f[1])
			}
			unsureOf[key] = f[1]
			v.unsure[f[1]] = append(v.unsure[f[1]], f[2:])
		case "reading":
			words, label, ok := strings.Cut(strings.Join(f[2:], " "), " = ")
			if !ok || strings.TrimSpace(label) == "" {
				return nil, bad("a reading is WORDS = LABEL: %q", line)
			}
			v.readings[f[1]] = append(v.readings[f[1]], unsureReading{words: words, label: strings.TrimSpace(label)})
		case "exclusive":
			if len(f) != 3 {
				return nil, bad("exclusive names two sets: %q", line)
			}
			exclusive = append(exclusive, [2]string{f[1], f[2]})
		default:
			return nil, bad("unknown row %q", f[0])
		}
	}
	for _, e := range exclusive {
		a, b := v.sets[e[0]], v.sets[e[1]]
		if a == nil || b == nil {
			return nil, fmt.Errorf("exclusive %s %s: no such set", e[0], e[1])
		}
		for w := range a {
			if b[w] {
				return nil, fmt.Errorf("%q is in both %q and %q, which are exclusive", w, e[0], e[1])
			}
		}
	}
	for name := range v.unsure {
		if len(v.readings[name]) < 2 {
			return nil, fmt.Errorf("unsure %s: %d readings, want at least two", name, len(v.readings[name]))
		}
	}
	for name := range v.readings {
		if v.unsure[name] == nil {
			return nil, fmt.Errorf("reading %s: no unsure row cues it", name)
		}
	}
	if err := v.classSets(patterns); err != nil {
		return nil, err
	}
	v.number(patterns)
	v.kinds = v.slotKinds()
	for from, to := range v.rewrites {
		if _, ok := v.rewrites[to]; ok {
			return nil, fmt.Errorf("%q is rewritten as %q, which is itself rewritten", from, to)
		}
	}
	return v, nil
}

// set is the words of the named set; a name vocab.txt lacks is a mistake
// in this package, found when it starts.
func (v *vocabulary) set(name string) wordSet {
	s, ok := v.bits[name]
	if !ok {
		panic("reading: vocab.txt has no set " + name)
	}
	return s
}

// wordSet is one set of words as bits over the vocabulary's word ids,
// and as the words themselves for the code that lists them.
type wordSet struct {
	ids   map[string]int32
	bits  []uint64
	words map[string]bool
}

// has reports whether word is in the set.
func (s wordSet) has(word string) bool { return s.words[word] }

// hasID reports whether the word numbered id is in the set.
func (s wordSet) hasID(id int32) bool { return s.bits[id>>6]&(1<<(id&63)) != 0 }

// number gives every word of the sets and of the slot patterns' word
// lists an id, and makes each set and each word list its bits.
func (v *vocabulary) number(patterns []slotPattern) {
	v.ids = map[string]int32{}
	add := func(words map[string]bool) {
		for w := range words {
			if v.ids[w] == 0 {
				v.ids[w] = int32(len(v.ids) + 1)
			}
		}
	}
	for _, words := range v.sets {
		add(words)
	}
	for _, p := range patterns {
		for _, e := range p.elems {
			add(e.words)
		}
	}
	v.bits = map[string]wordSet{}
	for name, words := range v.sets {
		v.bits[name] = v.wordSet(words)
	}
}

// wordSet is words, every one of them numbered, as bits.
func (v *vocabulary) wordSet(words map[string]bool) wordSet {
	s := wordSet{ids: v.ids, bits: make([]uint64, (len(v.ids)+1+63)/64), words: words}
	for w := range words {
		if id := v.ids[w]; id != 0 {
			s.bits[id>>6] |= 1 << (id & 63)
		}
	}
	return s
}

// phraseAt reports whether one of the phrases that cue name starts at
// token i.
func (v *vocabulary) phraseAt(name string, toks []token, i int) bool {
	for _, ph := range v.phrases[name] {
		if i+len(ph) > len(toks) {
			continue
		}
		match := true
		for k, w := range ph {
			if toks[i+k].key != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
