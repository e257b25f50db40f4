package sizing

import (
	"testing"
	"time"
)

// TestReadDeadline: the ways people say how soon a run must be done.
func TestReadDeadline(t *testing.T) {
	day := 24 * time.Hour
	for q, want := range map[string]Deadline{
		"llama 3.1 8b lora on 1b tokens in a week on a 4090": {7 * day, "in a week"},
		"13b lora within 3 days 4090":                        {3 * day, "within 3 days"},
		"13b lora on 2x h100, in under 10 hours":             {10 * time.Hour, "in under 10 hours"},
		"13b full by the weekend h100":                       {2 * day, "by the weekend"},
		"can we finetune 7b overnight on a 4090":             {12 * time.Hour, "overnight"},
		"13b lora in 2.5 days on 4090":                       {60 * time.Hour, "in 2.5 days"},
		"13b lora in fp8 on 4090":                            {},
		"llama 3.1 405b inference 2 nodes of 8 h100":         {},
		"13b lora in 9999 weeks":                             {},
	} {
		p, _ := Parse(q)
		if p.Deadline != want {
			t.Errorf("Parse(%q).Deadline = %+v, want %+v", q, p.Deadline, want)
		}
	}
}

// FuzzReadDeadline: never panics; a deadline read is positive, at most a
// year, and its words are in the question.
func FuzzReadDeadline(f *testing.F) {
	for _, s := range []string{"in a week", "within 3 days", "in under 10 hours", "by the weekend", "in", "in 1e300 days", "by"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		toks, err := lex(q)
		if err != nil {
			return
		}
		_, d := readDeadline(q, toks)
		if d.Within < 0 || d.Within > maxDeadline || (d.Within > 0) != (d.Words != "") {
			t.Fatalf("readDeadline(%q) = %+v", q, d)
		}
	})
}
