package reading

import (
	"strings"
	"testing"
)

func TestZZMeta(t *testing.T) {
	for _, l := range strings.Split(strings.TrimSpace(`N cards->cards: N	4-bit vs 8-bit llama 3 70b on 2 a100s, which serves more users
N cards->cards: N	electicity bill for 4 a100s per month
N cards->cards: N	fp8 kv cache vs bf16 kv for llama 3.1 70b on 2 h100s, how many more users
N cards->cards: N	fp8 vs bf16 kv cache for llama 3.1 70b on 2 h100s
N cards->cards: N	how much per hour for 8 h100s
N cards->cards: N	llama 3 70b qlora on 2x a100 compared to 4 h100s
N cards->cards: N	monthly elec cost of 8 h100s
N cards->cards: N	power bill for 8 h100s a month
N cards->cards: N	whats the monthly electricty cost of 8 h100s
Nx card->card xN	how much does 8x h100 cost per month on lambda vs runpod
Nx card->card xN	llama 3 70b qlora on 2x a100 compared to 4 h100s
Nx card->card xN	mac studio m4 max 128gb vs 2x 3090 for running 70b locally
Nx card->card xN	manager here - what's it cost per month to rent one 8xh100 node
Nx card->card xN	pretraining 1.3b for 1 epoch over 100M tokens on 8xa100-40
Nx card->card xN	what does it cost per day to run 4x h100 for inference 24/7
Nx card->card xN	zero stage 2 vs 3 for full ft llama 3.1 8b on 4x a100 40gb, which one actually fits
a day->a week	per user monthly cost if 10k users each send ~20 msgs a day to an 8b model?
at->with	13b lora 4090 at $0.5 per gpu hour
at->with	how much does it cost to pretrain a 3b model on 300b tokens on h100s at 2.5$/hr
at->with	whats the per token cost of serving llama 3 70b on 2x h100 at $2.5/hr each, assume full batching
context->ctx	llama 3.1 8b large context on a 4090
finetune->fine-tune	whats the cost difference between lora and full finetune for llama 3.1 8b on an a100
serve->host	serve llama 3.1 8b on an l4 versus an a10g, cheaper monthly?
spaces	zero stage 2 vs 3 for full ft llama 3.1 8b on 4x a100 40gb, which one actually fits
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
