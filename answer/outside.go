package answer

import "github.com/fitbot/fitbot/reading"

// outsideSentences say, for each thing fitbot cannot do that a message
// may ask (reading.Outside's names), that it cannot and what it does
// instead.
var outsideSentences = map[string]string{
	"book":    "I can't book or reserve GPUs: I size jobs and show prices; book with the provider itself.",
	"code":    "I don't write code (training loops, scripts): I size what the job needs, and give its vLLM, DeepSpeed or Accelerate launch config when asked.",
	"debug":   "I can't debug a failing job (its logs and code are not mine to read): I size what the setup needs, to check it against.",
	"quality": "I can't judge which model answers better (quality is for your own evals): I size memory, speed and cost.",
	"secrets": "I don't hold or share credentials (cloud keys, passwords, tokens): ask whoever runs the account.",
}

// OutsideLines are the sentences a face puts first in its answer to
// text for what it asks that fitbot cannot do, beside whatever fitbot
// answers of it; none when it asks only what fitbot answers.
func OutsideLines(text string) []string {
	var out []string
	for _, name := range reading.Outside(text) {
		if s, ok := outsideSentences[name]; ok {
			out = append(out, s)
		}
	}
	return out
}
