package reading

import (
	"fmt"

	"github.com/fitbot/fitbot/sizing"
)

// cpuOnly is the device a CPU-only question names: refused, with the
// model's memory in all as its Try (refuseDevice).
const cpuOnly = "CPU-only inference (llama.cpp on a CPU is not modelled)"

// wordKind is what a known word or phrase means to the parser.
type wordKind uint8

// The kinds of known words. Phrases are stored by the concatenation of
// their words' keys, so "full fine-tune", "full finetune" and
// "full-fine-tune" are all "fullfinetune".
const (
	kindFiller    wordKind = iota + 1 // question phrasing: "can", "we", "vram"
	kindMethod                        // a method named outright: lora, qlora, inference, full
	kindTrainVerb                     // a training verb: train, fine-tune, sft (full unless a method is named)
	kindServeVerb                     // a serving verb: run, serve, deploy (inference unless a method is named)
	kindOptimizer
	kindPrecision
	kindQuant
	kindInt4 // int4 / 4-bit: GPTQ-style for inference, NF4 for training
	kindKV   // KV-cache precision: "kv fp8"
	kindZeRO // a ZeRO stage: zero3, z2, fsdp (3), ddp (0)
	kindDeepSpeed
	kindOffload
	kindCkpt      // gradient checkpointing on or off
	kindSeqKey    // "seq", "ctx": a context length follows
	kindSeqWord   // "context", "ctx": a context length precedes
	kindBatchKey  // "batch", "bs", "mbs": a batch follows
	kindBatchWord // "users", "requests", "concurrent": a batch precedes
	kindRankKey   // "rank", "r": a LoRA rank follows
	kindGPUWord   // "gpus", "cards": a GPU count precedes
	kindNodeWord  // "node", "nodes"
	kindEpochWord
	kindTokensWord
	kindParamsWord
	kindUnusedKey      // "alpha", "lr": a number follows that does not change memory
	kindAccumKey       // "grad accum", "gradient accumulation": accumulation steps follow
	kindGlobalBatchKey // "global batch": a global batch in tokens follows
	kindUnusedWord     // "steps", "hours": a number precedes that is not used
	kindCount          // a number word: two, dual, single
	kindTimes          // "x" between a count and a GPU
	kindOf             // "of", "over": joins a count to what it counts
	kindGGUF           // "gguf" alone: a GGUF file, q4_k_m unless a type is named
	kindModel          // a catalog model alias
	kindGPU            // a catalog GPU alias

	kindParallelKey // "tp", "pp", "cp", "ep": a parallel degree follows
	kindLayoutWord  // "3d parallel", "megatron": a Megatron-style layout, degrees chosen (val: the stack it names, if any)
	kindStack       // "transformer engine": the training framework's kernels
	kindFusedLoss   // "fused loss", "liger": fused/chunked cross-entropy
	kindBits        // "2bit", "3bit": a base width bitsandbytes does not train on
	kindModules     // "modules_to_save", "train embeddings": embeddings and LM head trained in full
	kindOffloadAct  // "unsloth", "offloaded checkpointing": checkpointed activations in host RAM
	kindSpot        // "spot", "preemptible": priced and launched at a spot rate
	kindProvider    // a cloud: "aws", "runpod"; priced there (val: the name its offers are filed under)
	kindCheapest    // "cheapest", "cheaper": the cheapest card that fits, not the team's machines
	kindFewest      // "fewest", "min gpus": the fewest of the named card that fit
	kindFastest     // "fastest", "quickest", "lowest latency": a training run's other ways, or a serving plan, fastest first
	kindLink        // "nvlink", "interconnect": the link between the cards is asked about
	kindQuantize    // "quantize", "if i quantize it": 4-bit weights, unless a scheme or precision is named
	kindNoDevice    // a device fitbot does not size ("raspberry pi", "phone"): refused by name; n 1: a GPU (Jetson) its typed memory describes
	kindImageWord   // "images", "photos": an image count precedes (vision-language models)
	kindVague       // "long context": meaning the grammar cannot read into a setting (parse_meaning.go)
	kindEXL2        // "exl2", "exllama": ExLlamaV2 weights, sized by their width in bits (parse_exl2.go)
)

// word is the meaning of one known word or phrase.
type word struct {
	kind wordKind
	val  string // the method, optimizer, precision, quant or catalog id
	n    int    // the count, ZeRO stage, 1/0 for checkpointing on/off, or 1 for an activation offload that fuses the loss too
	note string // an assumption to report when this word is used
}

// maxPhrase is the longest phrase, in words, the vocabulary holds.
const maxPhrase = 5

// phrases is the fixed vocabulary: every word and phrase the parser knows
// apart from the catalogs' model and GPU aliases.
var phrases = buildPhrases()

// phrasePrefixes holds every proper prefix of a phrase's key, so that a
// window of words stops growing as soon as no phrase can start with it.
var phrasePrefixes = func() map[string]bool {
	m := map[string]bool{}
	for k := range phrases {
		for n := 1; n < len(k); n++ {
			m[k[:n]] = true
		}
	}
	return m
}()

// buildPhrases is the phrase table: the words of vocab.txt's word_ sets,
// each set given its meaning here, in order (a later meaning wins a
// word), with the words other tables make (alignments, providers, chat).
func buildPhrases() map[string]word {
	m := map[string]word{}
	add := func(w word, keys ...string) {
		for _, k := range keys {
			m[k] = w
		}
	}
	addSet := func(w word, set string) {
		for k := range vocab.set(set).words {
			m[k] = w
		}
	}
	// addValued gives each word of the sets base_N the n N.
	addValued := func(w word, base string) {
		for k, n := range numberValues(base) {
			w.n = n
			m[k] = w
		}
	}
	addSet(word{kind: kindFiller}, "word_filler")
	// Words that ask about the team's cluster now ("on our cluster right
	// now", "free gpus"): package cluster reads them from the question.
	addSet(word{kind: kindFiller}, "word_cluster_now")
	for k := range vocab.set("word_chatter").words { // chat ("lol", "quick q"): phrasing too
		if _, ok := m[k]; !ok {
			m[k] = word{kind: kindFiller}
		}
	}
	addSet(word{kind: kindVague}, "word_vague")
	// Words that also start phrases or count things are set after the fillers.
	addSet(word{kind: kindGPUWord}, "word_gpu_word")
	addSet(word{kind: kindOf}, "word_of")
	addSet(word{kind: kindTimes}, "word_times")

	addSet(word{kind: kindMethod, val: string(sizing.MethodFull)}, "word_method_full")
	addSet(word{kind: kindMethod, val: string(sizing.MethodLoRA)}, "word_method_lora")
	addSet(word{kind: kindMethod, val: string(sizing.MethodQLoRA)}, "word_method_qlora")
	addSet(word{kind: kindMethod, val: string(sizing.MethodInference)}, "word_method_inference")
	addSet(word{kind: kindTrainVerb}, "word_train_scratch")    // "from scratch": pretraining, full unless lora is said
	addSet(word{kind: kindTrainVerb}, "word_train_dreambooth") // DreamBooth: full fine-tuning of the denoiser unless lora is said
	addSet(word{kind: kindTrainVerb}, "word_train")
	for _, a := range sizing.Alignments {
		add(word{kind: kindTrainVerb, val: a.Name}, a.Words...)
	}
	addSet(word{kind: kindServeVerb}, "word_serve_engine")
	addSet(word{kind: kindServeVerb}, "word_serve")

	addSet(word{kind: kindOptimizer, val: string(sizing.OptimizerAdamW)}, "word_optimizer_adamw")
	addSet(word{kind: kindOptimizer, val: string(sizing.OptimizerAdamW8bit)}, "word_optimizer_adamw8bit")
	addSet(word{kind: kindOptimizer, val: string(sizing.OptimizerSGD)}, "word_optimizer_sgd")
	addSet(word{kind: kindOptimizer, val: string(sizing.OptimizerSGDMomentum)}, "word_optimizer_sgd_momentum")
	addSet(word{kind: kindOptimizer, val: string(sizing.OptimizerAdafactor)}, "word_optimizer_adafactor")

	addSet(word{kind: kindPrecision, val: string(sizing.PrecisionFP32)}, "word_precision_fp32")
	// fp32 optimizer states are what mixed precision keeps: not a pure
	// fp32 run ("full ft with adam fp32 states").
	addSet(word{kind: kindFiller, note: "fp32 optimizer states read as mixed precision, which keeps them (fp32 master weights, m and v); \"fp32\" alone sizes a pure fp32 run"}, "word_fp32_states")
	// The cost per user is said on every serving plan with users.
	addSet(word{kind: kindFiller}, "word_per_user")
	// No budget: every answer's price is said anyway, and "fastest" or
	// "cheapest" orders the ways.
	addSet(word{kind: kindFiller, note: "no budget said: the ways are priced all the same"}, "word_no_budget")
	addSet(word{kind: kindPrecision, val: string(sizing.PrecisionBF16)}, "word_precision_bf16")
	addSet(word{kind: kindPrecision, val: string(sizing.PrecisionBF16), note: "mixed precision taken as bf16"}, "word_precision_mixed")
	addSet(word{kind: kindPrecision, val: string(sizing.PrecisionFP16)}, "word_precision_fp16")
	addSet(word{kind: kindPrecision, val: string(sizing.PrecisionFP8)}, "word_precision_fp8")
	addSet(word{kind: kindPrecision, val: string(sizing.PrecisionPureBF16)}, "word_precision_pure_bf16")
	addSet(word{kind: kindQuant, val: string(sizing.QuantMXFP4)}, "word_quant_mxfp4")
	addSet(word{kind: kindQuant, val: string(sizing.QuantNVFP4)}, "word_quant_nvfp4")
	addSet(word{kind: kindQuant, val: string(sizing.QuantINT8)}, "word_quant_int8")
	addSet(word{kind: kindInt4}, "word_int4")
	addSet(word{kind: kindQuant, val: string(sizing.QuantNF4)}, "word_quant_nf4")
	addSet(word{kind: kindQuant, val: string(sizing.QuantNF4DQ)}, "word_quant_nf4dq")
	addSet(word{kind: kindQuant, val: string(sizing.QuantGPTQ)}, "word_quant_gptq")
	addSet(word{kind: kindQuant, val: string(sizing.QuantAWQ)}, "word_quant_awq")
	for k, q := range vocab.values("word_gguf_type") { // "q4km", "gguf q4km", "q4km gguf"
		add(word{kind: kindQuant, val: q}, k, "gguf"+k, k+"gguf")
	}
	addSet(word{kind: kindGGUF, val: string(sizing.QuantQ4_KM)}, "word_gguf")
	addSet(word{kind: kindEXL2}, "word_exl2")

	for k, p := range vocab.values("word_kv_precision") { // "kv fp8", "fp8 kv cache", "kv cache in fp8"
		add(word{kind: kindKV, val: p}, "kv"+k, "kvcache"+k, k+"kv", k+"kvcache", "kv"+k+"cache", "kvcachein"+k, "kvin"+k)
	}

	addValued(word{kind: kindZeRO}, "word_zero_stage")
	addSet(word{kind: kindZeRO, n: 3, note: "fsdp taken as ZeRO-3 (full sharding of weights, gradients and optimizer state)"}, "word_fsdp")
	addSet(word{kind: kindZeRO, n: 2, note: "fsdp shard_grad_op taken as ZeRO-2"}, "word_fsdp_shard_grad_op")
	addSet(word{kind: kindDeepSpeed}, "word_deepspeed")
	addSet(word{kind: kindCheapest}, "word_cheapest")
	addSet(word{kind: kindLink}, "word_link")
	addSet(word{kind: kindFastest}, "word_fastest")
	// A serving question's wish for speed: its plan fastest first
	// ("fastest way to serve mixtral 8x22b, latency matters").
	addSet(word{kind: kindFastest}, "word_fastest_latency")
	addSet(word{kind: kindFewest}, "word_fewest")
	addSet(word{kind: kindQuantize}, "word_quantize")
	addSet(word{kind: kindMethod, val: string(sizing.MethodLoRA)}, "word_adapter")
	addSet(word{kind: kindMethod, val: string(sizing.MethodQLoRA)}, "word_adapter_4bit")
	for k, q := range vocab.values("word_gguf_short") { // "q4": a width alone
		add(word{kind: kindQuant, val: q, note: fmt.Sprintf("%s taken as GGUF %s, llama.cpp's usual %s-bit type", k, q, k[1:])}, k)
	}
	addSet(word{kind: kindNoDevice, val: "a Raspberry Pi"}, "word_no_device_pi")
	addSet(word{kind: kindNoDevice, val: "a phone"}, "word_no_device_phone")
	addSet(word{kind: kindNoDevice, val: "a microcontroller"}, "word_no_device_mcu")
	addSet(word{kind: kindNoDevice, val: "a Jetson", n: 1}, "word_no_device_jetson")
	addSet(word{kind: kindNoDevice, val: cpuOnly}, "word_no_device_cpu")
	addSet(word{kind: kindNoDevice, val: "a TPU"}, "word_no_device_tpu")
	addSet(word{kind: kindGPU, val: "t4", note: "Colab taken as its free tier's T4 16 GB (Colab Pro gives an L4 or an A100: name it)"}, "word_colab")
	for k, name := range providerNames {
		if _, ok := m[k]; !ok { // "together" stays a filler
			add(word{kind: kindProvider, val: name}, k)
		}
	}
	addSet(word{kind: kindSpot}, "word_spot")

	addSet(word{kind: kindOffload, val: string(sizing.OffloadCPU)}, "word_offload_cpu")
	addSet(word{kind: kindOffload, val: string(sizing.OffloadNVMe)}, "word_offload_nvme")
	addSet(word{kind: kindOffload, val: string(sizing.OffloadNone)}, "word_offload_none")

	addSet(word{kind: kindCkpt, n: 1}, "word_ckpt_on")
	addSet(word{kind: kindCkpt, n: 0}, "word_ckpt_off")

	addSet(word{kind: kindSeqKey}, "word_seq_key")
	addSet(word{kind: kindSeqWord}, "word_seq_word")
	addSet(word{kind: kindBatchKey}, "word_batch_key")
	addSet(word{kind: kindBatchWord}, "word_batch_word")
	addSet(word{kind: kindRankKey}, "word_rank_key")
	addSet(word{kind: kindRankKey, val: string(sizing.MethodLoRA)}, "word_rank_key_lora")
	addSet(word{kind: kindNodeWord, n: 1}, "word_node_word_one")
	addSet(word{kind: kindNodeWord}, "word_node_word")
	addSet(word{kind: kindUnusedKey}, "word_unused_key")
	addSet(word{kind: kindAccumKey}, "word_accum_key")
	addSet(word{kind: kindGlobalBatchKey}, "word_global_batch_key")
	addSet(word{kind: kindUnusedWord}, "word_unused_word")
	addSet(word{kind: kindEpochWord}, "word_epoch_word")
	addSet(word{kind: kindImageWord}, "word_image_word")
	addSet(word{kind: kindTokensWord}, "tokens") // the TOKENS class of the slot rows
	addSet(word{kind: kindParamsWord}, "word_params_word")

	// Parallel layouts (issue #24).
	addSet(word{kind: kindParallelKey, val: "tp"}, "word_parallel_tp")
	addSet(word{kind: kindParallelKey, val: "pp"}, "word_parallel_pp")
	addSet(word{kind: kindParallelKey, val: "cp"}, "word_parallel_cp")
	addSet(word{kind: kindParallelKey, val: "ep"}, "word_parallel_ep")
	// Mistral NeMo's name holds "nemo", which alone is NVIDIA's framework.
	addSet(word{kind: kindModel, val: "mistral-nemo-12b"}, "word_mistral_nemo")
	addSet(word{kind: kindLayoutWord}, "word_layout")
	// Megatron-LM and NeMo run FP8 through Transformer Engine.
	addSet(word{kind: kindLayoutWord, val: string(sizing.StackTransformerEngine)}, "word_layout_megatron")
	addSet(word{kind: kindStack, val: string(sizing.StackTransformerEngine)}, "word_stack_te")
	addSet(word{kind: kindFusedLoss}, "word_fused_loss")
	addValued(word{kind: kindBits}, "word_bits")
	addSet(word{kind: kindModules}, "word_modules")
	addSet(word{kind: kindOffloadAct, n: 1}, "word_offload_act_unsloth") // n 1: its loss fused too
	addSet(word{kind: kindOffloadAct}, "word_offload_act")

	addValued(word{kind: kindCount}, "word_count")
	return m
}
