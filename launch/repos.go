package launch

import "github.com/fitbot/fitbot/sizing"

// instructRepos maps a catalog model's base checkpoint to the chat
// (instruction-tuned) checkpoint its maker publishes, which a serving
// config should load: a base model does not follow a chat template.
// Each is the maker's own repo on the Hugging Face Hub.
var instructRepos = map[string]string{
	"meta-llama/Llama-2-7b-hf":              "meta-llama/Llama-2-7b-chat-hf",
	"meta-llama/Llama-2-13b-hf":             "meta-llama/Llama-2-13b-chat-hf",
	"meta-llama/Llama-2-70b-hf":             "meta-llama/Llama-2-70b-chat-hf",
	"meta-llama/Meta-Llama-3-8B":            "meta-llama/Meta-Llama-3-8B-Instruct",
	"meta-llama/Meta-Llama-3-70B":           "meta-llama/Meta-Llama-3-70B-Instruct",
	"meta-llama/Llama-3.1-8B":               "meta-llama/Llama-3.1-8B-Instruct",
	"meta-llama/Llama-3.1-70B":              "meta-llama/Llama-3.1-70B-Instruct",
	"meta-llama/Llama-3.1-405B":             "meta-llama/Llama-3.1-405B-Instruct",
	"meta-llama/Llama-3.2-1B":               "meta-llama/Llama-3.2-1B-Instruct",
	"meta-llama/Llama-3.2-3B":               "meta-llama/Llama-3.2-3B-Instruct",
	"mistralai/Mistral-7B-v0.1":             "mistralai/Mistral-7B-Instruct-v0.1",
	"mistralai/Mistral-7B-v0.3":             "mistralai/Mistral-7B-Instruct-v0.3",
	"mistralai/Mixtral-8x7B-v0.1":           "mistralai/Mixtral-8x7B-Instruct-v0.1",
	"mistralai/Mixtral-8x22B-v0.1":          "mistralai/Mixtral-8x22B-Instruct-v0.1",
	"mistralai/Mistral-Small-24B-Base-2501": "mistralai/Mistral-Small-24B-Instruct-2501",
	"Qwen/Qwen2.5-0.5B":                     "Qwen/Qwen2.5-0.5B-Instruct",
	"Qwen/Qwen2.5-1.5B":                     "Qwen/Qwen2.5-1.5B-Instruct",
	"Qwen/Qwen2.5-3B":                       "Qwen/Qwen2.5-3B-Instruct",
	"google/gemma-2-2b":                     "google/gemma-2-2b-it",
	"google/gemma-2-9b":                     "google/gemma-2-9b-it",
	"google/gemma-2-27b":                    "google/gemma-2-27b-it",
	"tiiuae/falcon-7b":                      "tiiuae/falcon-7b-instruct",
	"tiiuae/falcon-40b":                     "tiiuae/falcon-40b-instruct",
}

// quantRepos are checkpoints the model's maker (or, where it publishes
// none, Hugging Face's own hugging-quants) ships already quantised, by
// the chat repo and weight format. vLLM reads the format from the
// checkpoint's quantization_config and picks its fast kernel (Marlin for
// AWQ/GPTQ, CUTLASS or DeepGEMM for fp8), so the command names no
// --quantization.
var quantRepos = map[string]map[sizing.Quant]string{
	"meta-llama/Llama-3.1-8B-Instruct": {sizing.QuantAWQ: "hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4"},
	"meta-llama/Llama-3.1-70B-Instruct": {sizing.QuantAWQ: "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4",
		sizing.QuantGPTQ: "hugging-quants/Meta-Llama-3.1-70B-Instruct-GPTQ-INT4"},
	"meta-llama/Llama-3.1-405B-Instruct": {sizing.QuantFP8: "meta-llama/Llama-3.1-405B-Instruct-FP8",
		sizing.QuantAWQ: "hugging-quants/Meta-Llama-3.1-405B-Instruct-AWQ-INT4"},
	"Qwen/Qwen2.5-7B-Instruct":            {sizing.QuantAWQ: "Qwen/Qwen2.5-7B-Instruct-AWQ", sizing.QuantGPTQ: "Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4"},
	"Qwen/Qwen2.5-14B-Instruct":           {sizing.QuantAWQ: "Qwen/Qwen2.5-14B-Instruct-AWQ", sizing.QuantGPTQ: "Qwen/Qwen2.5-14B-Instruct-GPTQ-Int4"},
	"Qwen/Qwen2.5-32B-Instruct":           {sizing.QuantAWQ: "Qwen/Qwen2.5-32B-Instruct-AWQ", sizing.QuantGPTQ: "Qwen/Qwen2.5-32B-Instruct-GPTQ-Int4"},
	"Qwen/Qwen2.5-72B-Instruct":           {sizing.QuantAWQ: "Qwen/Qwen2.5-72B-Instruct-AWQ", sizing.QuantGPTQ: "Qwen/Qwen2.5-72B-Instruct-GPTQ-Int4"},
	"Qwen/Qwen3-0.6B":                     {sizing.QuantFP8: "Qwen/Qwen3-0.6B-FP8"},
	"Qwen/Qwen3-4B":                       {sizing.QuantFP8: "Qwen/Qwen3-4B-FP8", sizing.QuantAWQ: "Qwen/Qwen3-4B-AWQ"},
	"Qwen/Qwen3-8B":                       {sizing.QuantFP8: "Qwen/Qwen3-8B-FP8", sizing.QuantAWQ: "Qwen/Qwen3-8B-AWQ"},
	"Qwen/Qwen3-14B":                      {sizing.QuantFP8: "Qwen/Qwen3-14B-FP8", sizing.QuantAWQ: "Qwen/Qwen3-14B-AWQ"},
	"Qwen/Qwen3-32B":                      {sizing.QuantFP8: "Qwen/Qwen3-32B-FP8", sizing.QuantAWQ: "Qwen/Qwen3-32B-AWQ"},
	"Qwen/Qwen3-30B-A3B":                  {sizing.QuantFP8: "Qwen/Qwen3-30B-A3B-FP8"},
	"Qwen/Qwen3-235B-A22B":                {sizing.QuantFP8: "Qwen/Qwen3-235B-A22B-FP8"},
	"Qwen/Qwen3-Coder-480B-A35B-Instruct": {sizing.QuantFP8: "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8"},
}

// servingRepo is the repo a serving config loads for a model's repo and
// weight format: its chat checkpoint, quantised by its maker when one
// is published (prequantised is then true).
func servingRepo(repo string, q sizing.Quant) (id string, prequantised bool) {
	if chat, ok := instructRepos[repo]; ok {
		repo = chat
	}
	if r, ok := quantRepos[repo][q]; ok {
		return r, true
	}
	return repo, false
}
