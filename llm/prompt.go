package llm

import (
	"strings"
	"unicode"
)

// sanitize makes a question safe to send: invalid UTF-8 replaced, control
// characters turned into spaces, runs of space folded.
func sanitize(question string) string {
	question = strings.ToValidUTF8(question, "\uFFFD")
	question = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, question)
	return strings.Join(strings.Fields(question), " ")
}

// defaultQuestionBack is asked when the model gives no question of its own.
const defaultQuestionBack = "Which model do you want to size, how (full fine-tune, LoRA, QLoRA or inference), and on which GPUs?"

// maxQuestionBack caps the question the model asks back.
const maxQuestionBack = 300
