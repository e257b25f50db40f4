package answer

import (
	"strings"
	"testing"
)

// TestOutsideLines: what fitbot cannot do is said beside what it answers;
// a question it can answer whole says nothing of the kind.
func TestOutsideLines(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"can you book me 4 h100s on lambda for tomorrow?", []string{"can't book or reserve GPUs"}},
		{"is 70b worth it vs 8b for our support chatbot?", []string{"can't judge which model answers better"}},
		{"book 8 h100s and tell me if 70b is worth it", []string{"can't book", "can't judge"}},
		{"is the h200 really worth it over h100 for serving 70b? like per token cost", nil},
		{"our training job keeps OOMing at step 300, any idea why? deepspeed zero2, 8xa100", []string{"can't debug a failing job"}},
		{"why is my loss going nan after 2k steps on a llama lora run", []string{"can't debug a failing job"}},
		{"is buying a 4090 worth it vs renting one for 7b lora, 3 jobs a week 5h each", nil},
		{"will 70b oom on a 4090?", nil},
		{"how much is an h100 on lambda", nil},
		{"llama 3.1 8b lora on a 4090", nil},
		{"send me the aws creds for the gpu account", []string{"don't hold or share credentials"}},
		{"can you write me a pytorch training loop for lora", []string{"don't write code"}},
	} {
		got := OutsideLines(c.text)
		if len(got) != len(c.want) {
			t.Errorf("OutsideLines(%q) = %q, want %d lines", c.text, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("OutsideLines(%q)[%d] = %q, want %q", c.text, i, got[i], w)
			}
		}
	}
	for _, name := range []string{"book", "code", "debug", "quality", "secrets"} {
		if _, ok := outsideSentences[name]; !ok {
			t.Errorf("no sentence for %q", name)
		}
	}
}
