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
	// wordSets are the sets as the passes look words up in them.
	wordSets  map[string]*wordSet
	phrases   map[string][][]string
	rewrites  map[string]string
	rewritten *wordSet // the words rewrites rewrites, which lex asks of every word
	known     *wordSet // the words of every set: words fitbot reads, never a typo
	// slots are the slot patterns by the kind of slot they fill, in the
	// file's order; classes are the words of each class a pattern names,
	// with the value each captures (slot.go).
	slots      map[string][]slotPattern
	classes    map[string]map[string]string
	classWords map[string]*wordSet  // the words of each class, as a set
	kinds      map[string]*slotKind // the kinds of slot, with what their patterns start with
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
	kindEnd := map[string]int{} // the line of each slot kind's last row so far
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
			if last := len(patterns) - 1; last >= 0 && patterns[last].kind != p.kind && v.slots[p.kind] != nil {
				return nil, bad("the rows of slot kind %q are split (the kind ends on line %d): keep a kind's rows together; a second section reusing the name is a clash", p.kind, kindEnd[p.kind])
			}
			kindEnd[p.kind] = n + 1
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
	v.wordSets = map[string]*wordSet{}
	known := map[string]bool{}
	for name, words := range v.sets {
		v.wordSets[name] = newWordSet(words)
		for w := range words {
			known[w] = true
		}
	}
	v.known = newWordSet(known)
	v.kinds = v.slotKinds()
	rewritten := map[string]bool{}
	for from := range v.rewrites {
		rewritten[from] = true
	}
	v.rewritten = newWordSet(rewritten)
	for from, to := range v.rewrites {
		if _, ok := v.rewrites[to]; ok {
			return nil, fmt.Errorf("%q is rewritten as %q, which is itself rewritten", from, to)
		}
	}
	return v, nil
}

// set is the words of the named set; a name vocab.txt lacks is a mistake
// in this package, found when it starts.
func (v *vocabulary) set(name string) *wordSet {
	s, ok := v.wordSets[name]
	if !ok {
		panic("reading: vocab.txt has no set " + name)
	}
	return s
}

// wordSet is the words of one set, for lookups: the passes ask each word
// of a question whether it is in dozens of sets, nearly always of a word
// that is not, so the set first checks the word's length and its first
// and last bytes against those of its words, which turns most words away
// before the map is looked up.
type wordSet struct {
	words       map[string]bool
	lengths     uint64    // bit n: a word of n bytes (bit 63: 63 or more)
	first, last [4]uint64 // bit b: a word whose first (last) byte is b
}

// newWordSet is words as a wordSet.
func newWordSet(words map[string]bool) *wordSet {
	s := &wordSet{words: words}
	for w := range words {
		s.lengths |= 1 << min(len(w), 63)
		s.first[w[0]>>6] |= 1 << (w[0] & 63)
		s.last[w[len(w)-1]>>6] |= 1 << (w[len(w)-1] & 63)
	}
	return s
}

// has reports whether word is in the set.
func (s *wordSet) has(word string) bool {
	n := len(word)
	if n == 0 || s.lengths&(1<<min(n, 63)) == 0 {
		return false
	}
	f, l := word[0], word[n-1]
	return s.first[f>>6]&(1<<(f&63)) != 0 && s.last[l>>6]&(1<<(l&63)) != 0 && s.words[word]
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
