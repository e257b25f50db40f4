package llm

import (
	"bytes"
	"fmt"

	"github.com/fitbot/fitbot/sizing"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// unspecified is the enum value for a field the question does not state.
// Strict structured outputs require every property, so "not said" is a
// value (0 for numbers) rather than a missing key or a null.
const unspecified = "unspecified"

// extraction is what the model must return: the request fields as words
// and enums, never an answer. Every field is required (strict mode); the
// enum lists are filled from the sizing constants by newSchema.
type extraction struct {
	Understood     bool    `json:"understood" description:"true when the question asks whether, how or at what cost a machine-learning model can be trained, fine-tuned or served on GPUs"`
	QuestionBack   string  `json:"question_back" description:"when understood is false: one short question asking the user for what is missing; otherwise empty"`
	Model          string  `json:"model" description:"the model name exactly as the user wrote it, e.g. 'Llama 3 70B' or 'mixtral 8x7b'; empty when only a bare size or no model is given"`
	ParamsBillions float64 `json:"params_billions" description:"bare model size in billions of parameters when no model name is given (per expert for a mixture of experts), e.g. 13 or 0.35; 0 when not said"`
	Experts        int     `json:"experts" description:"number of experts of a bare mixture-of-experts size such as 8x7B; 0 otherwise"`
	Method         string  `json:"method" description:"full = full fine-tuning or pretraining; lora; qlora = LoRA on 4-bit weights; inference = serving, running, chatting, generating"`
	Optimizer      string  `json:"optimizer" description:"training optimizer; adamw-8bit for 8-bit Adam or paged AdamW 8-bit"`
	Precision      string  `json:"precision" description:"training or serving number format"`
	Quant          string  `json:"quant" description:"weight quantisation scheme (GPTQ, AWQ, bitsandbytes NF4, GGUF types, MXFP4, NVFP4)"`
	GPU            string  `json:"gpu" description:"the GPU name exactly as the user wrote it, without the count, e.g. 'RTX 4090' or 'A100 80GB'; empty when not said"`
	GPUs           int     `json:"gpus" description:"total number of GPUs across all machines; 0 when not said"`
	Nodes          int     `json:"nodes" description:"number of machines the GPUs are spread over; 0 when not said"`
	ZeROStage      string  `json:"zero_stage" description:"DeepSpeed ZeRO stage; FSDP full sharding is 3, DDP is 0"`
	Offload        string  `json:"offload" description:"where ZeRO offloads state: cpu or nvme; none when the user says no offload"`
	SeqLen         int     `json:"seq_len" description:"training sequence length or inference context in tokens, e.g. 4096 for 4k; 0 when not said"`
	MicroBatch     int     `json:"micro_batch" description:"micro-batch size per GPU, or concurrent requests for inference; 0 when not said"`
	GradCkpt       string  `json:"grad_checkpointing" description:"gradient (activation) checkpointing on or off"`
	LoRARank       int     `json:"lora_rank" description:"LoRA rank r; 0 when not said"`
	Tokens         int64   `json:"tokens" description:"whole training budget in tokens (epochs times dataset tokens), e.g. 300000000 for 3 epochs of 100M; 0 when not said"`
}

// enums lists the allowed values of each enum field, first unspecified.
func enums() map[string][]string {
	return map[string][]string{
		"method": values(sizing.MethodFull, sizing.MethodLoRA, sizing.MethodQLoRA, sizing.MethodInference),
		"optimizer": values(sizing.OptimizerAdamW, sizing.OptimizerAdamW8bit, sizing.OptimizerSGD,
			sizing.OptimizerSGDMomentum, sizing.OptimizerAdafactor),
		"precision": values(sizing.PrecisionFP32, sizing.PrecisionBF16, sizing.PrecisionFP16,
			sizing.PrecisionFP8, sizing.PrecisionINT8, sizing.PrecisionINT4, sizing.PrecisionPureBF16),
		"quant": values(sizing.QuantINT8, sizing.QuantNF4, sizing.QuantNF4DQ, sizing.QuantGPTQ, sizing.QuantAWQ,
			sizing.QuantQ8_0, sizing.QuantQ6_K, sizing.QuantQ5_KM, sizing.QuantQ4_KM, sizing.QuantQ4_0,
			sizing.QuantQ3_KM, sizing.QuantQ2_K, sizing.QuantMXFP4, sizing.QuantNVFP4),
		"zero_stage":         {unspecified, "0", "1", "2", "3"},
		"offload":            values(sizing.OffloadNone, sizing.OffloadCPU, sizing.OffloadNVMe),
		"grad_checkpointing": {unspecified, "on", "off"},
	}
}

func values[T ~string](vs ...T) []string {
	out := []string{unspecified}
	for _, v := range vs {
		out = append(out, string(v))
	}
	return out
}

// newSchema builds the strict JSON schema of extraction.
func newSchema() (*jsonschema.Definition, error) {
	def, err := jsonschema.GenerateSchemaForType(extraction{})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	for name, vs := range enums() {
		p, ok := def.Properties[name]
		if !ok {
			return nil, fmt.Errorf("schema: no property %q", name)
		}
		p.Enum = vs
		def.Properties[name] = p
	}
	return def, nil
}

// decode checks content against the schema and unmarshals it. It accepts
// the JSON wrapped the way some local models wrap it (a leading <think>
// block, Markdown code fences); anything else that is not exactly the
// schema is an error.
func decode(schema *jsonschema.Definition, content string) (extraction, error) {
	var x extraction
	body := unwrap([]byte(content))
	if len(body) == 0 {
		return x, fmt.Errorf("empty reply")
	}
	if err := jsonschema.VerifySchemaAndUnmarshal(*schema, body, &x); err != nil {
		return x, fmt.Errorf("reply is not the requested JSON: %w", err)
	}
	return x, nil
}

// unwrap takes the JSON out of a reply: after a reasoning model's
// thinking, which ends at "</think>" whether or not the reply opened it
// (Qwen3 thinking models' chat templates put the opening tag in the
// prompt), and inside a Markdown code fence.
func unwrap(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if before, after, found := bytes.Cut(b, []byte("</think>")); found && !bytes.HasPrefix(before, []byte("{")) {
		b = bytes.TrimSpace(after)
	}
	if rest, ok := bytes.CutPrefix(b, []byte("```")); ok {
		rest = bytes.TrimPrefix(rest, []byte("json"))
		if inner, found := bytes.CutSuffix(bytes.TrimSpace(rest), []byte("```")); found {
			b = bytes.TrimSpace(inner)
		}
	}
	return b
}
