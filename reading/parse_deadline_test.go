package reading

import (
	"testing"
	"time"
)

// TestReadDeadline: the ways people say how soon a run must be done.
func TestReadDeadline(t *testing.T) {
	day := 24 * time.Hour
	for q, want := range map[string]Deadline{
		"llama 3.1 8b lora on 1b tokens in a week on a 4090": {Within: 7 * day, Words: "in a week"},
		"13b lora within 3 days 4090":                        {Within: 3 * day, Words: "within 3 days"},
		"13b lora on 2x h100, in under 10 hours":             {Within: 10 * time.Hour, Words: "in under 10 hours"},
		"13b full by the weekend h100":                       {Within: 2 * day, Words: "by the weekend"},
		"can we finetune 7b overnight on a 4090":             {Within: 12 * time.Hour, Words: "overnight"},
		"13b lora in 2.5 days on 4090":                       {Within: 60 * time.Hour, Words: "in 2.5 days"},
		"13b lora in fp8 on 4090":                            {},
		"llama 3.1 405b inference 2 nodes of 8 h100":         {},
		"13b lora in 9999 weeks":                             {},
		// A day named: counted from the answer's clock.
		"need to finetune llama 3 8b full by friday on 1B tokens, how many a100s": {Words: "by friday", Day: "friday"},
		"13b lora by tomorrow on a 4090":                                          {Words: "by tomorrow", Day: "tomorrow"},
		"13b lora by end of week on a 4090":                                       {Words: "by end of week", Day: "friday"},
		"13b lora by the end of the day":                                          {Words: "by the end of the day", Day: "today"},
		"13b lora on a 4090 by Mon":                                               {Words: "by Mon", Day: "monday"},
		"13b lora on a 4090, need it by eod tomorrow":                             {Words: "by eod tomorrow", Day: "tomorrow"},
		// The first day named is the deadline; a day said after it is what today is.
		"full-tune mistral 7b by thursday EOD (today's monday). doable?": {Words: "by thursday EOD", Day: "thursday"},
		"lora llama 3 8b by friday eod today is tuesday":                 {Words: "by friday eod", Day: "friday"},
		"13b lora on a 4090 by tomorrow 9am":                             {Words: "by tomorrow 9am", Day: "tomorrow"},
		"13b lora on a 4090 by monday morning":                           {Words: "by monday morning", Day: "monday"},
		"13b lora on a 4090 by end of next week":                         {Words: "by end of next week", Day: "next friday"},
		"13b lora on a 4090 by next tuesday":                             {Words: "by next tuesday", Day: "next tuesday"},
		"13b lora on a 4090 by 5pm":                                      {Words: "by 5pm", Day: "today"},
		"13b lora on a 4090 by the end of the day tomorrow":              {Words: "by the end of the day tomorrow", Day: "tomorrow"},
		"13b lora on a 4090 by next":                                     {},
		// A run's length, not a limit.
		"what would it cost to train a lora on llama 3.1 70b on runpod for ~10 hours on a100 80gb": {Within: 10 * time.Hour, Words: "for ~10 hours", Run: true},
		"how much would it cost to dpo llama 3.1 8b on runpod for 10 hours on an a100":             {Within: 10 * time.Hour, Words: "for 10 hours", Run: true},
		"qlora 70b on an a100 for the weekend":                                                     {Within: 2 * day, Words: "for the weekend", Run: true},
		"gpus for 200 users of llama 3 8b":                                                         {},
		"llama 3 8b lora for 3 epochs of 100m tokens":                                              {},
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
	for _, s := range []string{"in a week", "within 3 days", "in under 10 hours", "by the weekend", "in", "in 1e300 days", "by", "by eod tomorrow", "by next", "by the end of next week 5pm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		toks, err := lex(q)
		if err != nil {
			return
		}
		_, d := readDeadline(q, toks)
		if d.Within < 0 || d.Within > maxDeadline || (d.Within > 0 || d.Day != "") != (d.Words != "") {
			t.Fatalf("readDeadline(%q) = %+v", q, d)
		}
	})
}

// TestDeadlineAt: a day named is counted to its end from the clock; "by
// friday" on a Friday is the end of that day.
func TestDeadlineAt(t *testing.T) {
	wed := time.Date(2026, 3, 11, 9, 0, 0, 0, time.UTC) // a Wednesday
	for _, c := range []struct {
		day  string
		now  time.Time
		want time.Duration
	}{
		{"friday", wed, 63 * time.Hour},
		{"tomorrow", wed, 39 * time.Hour},
		{"today", wed, 15 * time.Hour},
		{"wednesday", wed, 15 * time.Hour},
		{"tuesday", wed, 6*24*time.Hour + 15*time.Hour},
		{"next friday", wed, 7*24*time.Hour + 63*time.Hour},
		{"next monday", wed, 5*24*time.Hour + 15*time.Hour},
		{"next wednesday", wed, 7*24*time.Hour + 15*time.Hour},
	} {
		d := Deadline{Words: "by " + c.day, Day: c.day}.At(c.now)
		if d.Within != c.want {
			t.Errorf("by %s at %v: within %v, want %v", c.day, c.now, d.Within, c.want)
		}
	}
	if d := (Deadline{Words: "by friday", Day: "friday"}).At(wed); d.Words != "by friday (Fri 23:59 UTC, 63 h from now)" {
		t.Errorf("words %q", d.Words)
	}
	if d := (Deadline{Within: time.Hour, Words: "in an hour"}).At(wed); d != (Deadline{Within: time.Hour, Words: "in an hour"}) {
		t.Errorf("a span changed: %+v", d)
	}
}
