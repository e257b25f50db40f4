package reading

import (
	"strings"
	"testing"
)

func TestZZMeta(t *testing.T) {
	for _, l := range strings.Split(strings.TrimSpace(`per hour->per day	a10g per hour
per hour->per day	how much does an H100 cost per hour?
per month->per week	how much does 8x h100 cost per month on lambda vs runpod
per month->per week	electicity bill for 4 a100s per month
per day->per hour	what does it cost per day to run 4x h100 for inference 24/7
a day->a week	2b tokens a day llama 3.1 8b on h100s
context->ctx	llama 3.1 8b large context on a 4090
finetune->fine-tune	whats the cost difference between lora and full finetune for llama 3.1 8b on an a100
serve->host	serve llama 3.1 8b on an l4 versus an a10g, cheaper monthly?
with->for	two h100s or four a100s for fine-tuning llama 3.1 70b with lora?`), "\n") {
		name, q, _ := strings.Cut(l, "\t")
		for _, p := range append(perturbations, rewritePerturbations()...) {
			if p.name == name {
				ch := p.re.ReplaceAllString(q, p.to)
				t.Logf("%s | %q -> %q: %s", name, q, ch, metamorphicVerdict(p, q, ch))
			}
		}
	}
}
