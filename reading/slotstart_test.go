package reading

import "testing"

// TestSlotStarts: a kind of slot is tried only where one of its patterns
// can start: at a listed first word, at a number when every pattern
// starts with one, and anywhere when its patterns start with both.
func TestSlotStarts(t *testing.T) {
	v, err := parseVocab("set period_day day\nslot words at once\nslot words in PERIOD\nslot nums NUM x\nslot mixed NUM y\nslot mixed on it")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kind, word string
		want       bool
	}{
		{"words", "at", true}, {"words", "in", true}, {"words", "8", false}, {"words", "day", false},
		{"nums", "8", true}, {"nums", "-2", true}, {"nums", ".5", true}, {"nums", "at", false}, {"nums", "", false},
		{"mixed", "on", true}, {"mixed", "8", true}, {"mixed", "zz", true},
	} {
		if got := v.kinds[c.kind].start.may(c.word); got != c.want {
			t.Errorf("%s may start at %q = %v, want %v", c.kind, c.word, got, c.want)
		}
	}
}

// TestSlotGroup: a group of kinds may start where one of its kinds may,
// and only there.
func TestSlotGroup(t *testing.T) {
	v, err := parseVocab("set period_day day\nslot words at once\nslot words in PERIOD\nslot nums NUM x\nslot mixed NUM y\nslot mixed on it")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kinds []string
		word  string
		want  bool
	}{
		{[]string{"words", "nums"}, "at", true}, {[]string{"words", "nums"}, "8", true},
		{[]string{"words", "nums"}, "day", false}, {[]string{"words", "nums"}, "", false},
		{[]string{"words"}, "8", false}, {[]string{"words", "mixed"}, "zz", true},
	} {
		var kinds []*slotKind
		for _, k := range c.kinds {
			kinds = append(kinds, v.kind(k))
		}
		if got := newSlotGroup(kinds...).may(c.word); got != c.want {
			t.Errorf("%v may start at %q = %v, want %v", c.kinds, c.word, got, c.want)
		}
	}
}
