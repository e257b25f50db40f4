package cluster

import "strings"

// askPhrases are the words that ask about the team's cluster as it is
// now: "can we run X on our cluster right now?", "13b lora on free gpus".
var askPhrases = []string{
	"our cluster", "the cluster", "my cluster", "team cluster", "team's cluster", "teams cluster",
	"right now", "free gpu", "free gpus", "free card", "free cards", "free nodes", "free node",
	"available gpu", "available gpus", "idle gpu", "idle gpus", "currently", " now",
}

// Asked reports whether a question asks about the team's cluster now:
// "on our cluster", "right now", "free", "can we run X now".
func Asked(question string) bool {
	text := " " + strings.Join(strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '?' || r == '!' || r == ',' || r == '.' || r == ';' || r == ':'
	}), " ") + " "
	for _, p := range askPhrases {
		if strings.Contains(text, p+" ") {
			return true
		}
	}
	return false
}
