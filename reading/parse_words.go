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
	n    int    // the count, ZeRO stage, or 1/0 for checkpointing on/off
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

func buildPhrases() map[string]word {
	m := map[string]word{}
	add := func(w word, keys ...string) {
		for _, k := range keys {
			m[k] = w
		}
	}
	for _, k := range []string{
		"fit", "/fit", "can", "could", "we", "i", "you", "my", "our", "me", "us", "will", "would", "does", "do", "did",
		"is", "it", "its", "are", "be", "how", "much", "many", "what", "which", "need", "needed", "needs",
		"to", "on", "with", "in", "a", "an", "the", "using", "use", "via", "for", "at", "and", "or", "if", "into",
		"please", "pls", "plz", "hi", "hey", "hello", "thanks", "fitbot", "vram", "memory", "mem", "gpu", "gpus",
		"fits", "enough", "possible", "model", "models", "llm", "just", "only", "some", "any", "about",
		"nvidia", "amd", "geforce", "budget", "cost", "costs", "price", "much", "long", "time", "take", "takes",
		"that", "this", "these", "those", "there", "here", "get", "got", "want", "like", "should", "able",
		"across", "per", "each", "from", "by", "as", "so", "also", "then", "up", "setup", "config",
		"mixed", "precision", "weights", "quant",
		"enabled", "yes", "ok", "okay", "cluster", "machine", "box", "server", "instance",
		"both", "together", "same", "still", "even", "requires", "require", "required",
		"mode", "style", "ish", "roughly", "approx", "approximately", "around", "estimate", "estimated",
		"sizing", "size", "tell", "know", "check", "help", "whether",
	} {
		m[k] = word{kind: kindFiller}
	}
	// Words that ask about the team's cluster now ("on our cluster right
	// now", "free gpus"): package cluster reads them from the question.
	for _, k := range []string{"right", "now", "free", "currently", "available", "idle"} {
		m[k] = word{kind: kindFiller}
	}
	for _, k := range chatter { // chat ("lol", "quick q"): phrasing too
		if _, ok := m[k]; !ok {
			m[k] = word{kind: kindFiller}
		}
	}
	add(word{kind: kindVague}, vague...)
	// Words that also start phrases or count things are set after the fillers.
	add(word{kind: kindGPUWord}, "gpus", "gpu", "cards", "card", "devices", "accelerators")
	add(word{kind: kindOf}, "of", "over")
	add(word{kind: kindTimes}, "x")

	add(word{kind: kindMethod, val: string(sizing.MethodFull)}, "full", "fullfinetune", "fullfinetuning", "fullfinetuned",
		"fullft", "fullfine", "fulltrain", "fulltraining", "fullparameter", "fullparam", "fullparams",
		"fullweight", "fullweights")
	add(word{kind: kindMethod, val: string(sizing.MethodLoRA)}, "lora", "loras", "lorafinetune", "lorafinetuning", "peft")
	add(word{kind: kindMethod, val: string(sizing.MethodQLoRA)}, "qlora", "qloras", "4bitlora", "lora4bit", "loraint4",
		"int4lora", "nf4lora", "lorainnf4", "lorain4bit", "qlorafinetune")
	add(word{kind: kindMethod, val: string(sizing.MethodInference)}, "inference", "infer", "inferencing", "serving",
		"inferenceonly", "forwardpass")
	add(word{kind: kindTrainVerb}, "scratch", "fromscratch") // "from scratch": pretraining, full unless lora is said
	add(word{kind: kindTrainVerb}, "dreambooth")             // DreamBooth: full fine-tuning of the denoiser unless lora is said
	add(word{kind: kindTrainVerb}, "train", "training", "trained", "finetune", "finetuning", "finetuned",
		"finetunes", "tune", "tuning", "ft", "sft", "pretrain", "pretraining", "pretrained",
		"continuedpretraining", "instructiontune", "instructiontuning")
	for _, a := range sizing.Alignments {
		add(word{kind: kindTrainVerb, val: a.Name}, a.Words...)
	}
	add(word{kind: kindServeVerb}, "vllm", "tgi", "sglang", "tensorrtllm", "trtllm", "exllama", "exllamav2", "mlx")
	add(word{kind: kindServeVerb}, "run", "runs", "running", "serve", "serves", "served", "deploy", "deploying",
		"deployed", "chat", "chatting", "generate", "generation", "host", "hosting", "hosted", "load", "loading",
		"embed", "encode", "encoding", "index", "indexing", "vectorize", "vectorise", "rerank", "reranking")

	add(word{kind: kindOptimizer, val: string(sizing.OptimizerAdamW)}, "adamw", "adam", "torchadamw", "fusedadam",
		"adamwtorch", "adamwtorchfused")
	add(word{kind: kindOptimizer, val: string(sizing.OptimizerAdamW8bit)}, "8bitadam", "8bitadamw", "adam8bit",
		"adamw8bit", "pagedadamw8bit", "pagedadamw", "pagedadam", "pagedadam8bit",
		"bnbadam", "bnbadamw", "bnbadam8bit", "bnbadamw8bit", "adamwbnb8bit", "8bitoptimizer", "8bitoptim",
		"adamin8bit", "adamwin8bit", "8bitadamoptimizer")
	add(word{kind: kindOptimizer, val: string(sizing.OptimizerSGD)}, "sgd", "plainsgd", "vanillasgd")
	add(word{kind: kindOptimizer, val: string(sizing.OptimizerSGDMomentum)}, "sgdmomentum", "sgdwithmomentum",
		"momentumsgd", "sgdm", "sgdnesterov")
	add(word{kind: kindOptimizer, val: string(sizing.OptimizerAdafactor)}, "adafactor")

	add(word{kind: kindPrecision, val: string(sizing.PrecisionFP32)}, "fp32", "float32", "f32", "tf32", "fullprecision", "32bit")
	// fp32 optimizer states are what mixed precision keeps: not a pure
	// fp32 run ("full ft with adam fp32 states").
	add(word{kind: kindFiller, note: "fp32 optimizer states read as mixed precision, which keeps them (fp32 master weights, m and v); \"fp32\" alone sizes a pure fp32 run"},
		"fp32states", "fp32optimizerstates", "fp32optimizerstate", "fp32optimizer", "fp32adamstates", "fp32masterweights", "fp32master",
		"fp32moments", "statesinfp32", "optimizerstatesinfp32", "fp32optimstates")
	// The cost per user is said on every serving plan with users.
	add(word{kind: kindFiller}, "peruser", "peruserpermonth", "costperuser", "peruserscost", "usercost")
	// No budget: every answer's price is said anyway, and "fastest" or
	// "cheapest" orders the ways.
	add(word{kind: kindFiller, note: "no budget said: the ways are priced all the same"},
		"budgetdoesntmatter", "budgetdoesnotmatter", "budgetisnoissue", "nobudgetlimit", "moneynoobject", "moneyisnoobject",
		"costdoesntmatter", "costdoesnotmatter", "pricedoesntmatter", "regardlessofcost", "doesntmatter", "doesnotmatter", "dontmatter")
	add(word{kind: kindPrecision, val: string(sizing.PrecisionBF16)}, "bf16", "bfloat16")
	add(word{kind: kindPrecision, val: string(sizing.PrecisionBF16), note: "mixed precision taken as bf16"}, "mixedprecision")
	add(word{kind: kindPrecision, val: string(sizing.PrecisionFP16)}, "fp16", "float16", "f16", "half", "halfprecision")
	add(word{kind: kindPrecision, val: string(sizing.PrecisionFP8)}, "fp8", "float8", "f8", "e4m3", "fp8e4m3")
	add(word{kind: kindPrecision, val: string(sizing.PrecisionPureBF16)}, "purebf16", "bf16true", "truebf16",
		"purebfloat16")
	add(word{kind: kindQuant, val: string(sizing.QuantMXFP4)}, "mxfp4", "mxfp4gguf")
	add(word{kind: kindQuant, val: string(sizing.QuantNVFP4)}, "nvfp4")
	add(word{kind: kindQuant, val: string(sizing.QuantINT8)}, "int8", "8bit", "bnb8bit", "llmint8", "bitsandbytes8bit", "w8a16")
	add(word{kind: kindInt4}, "int4", "4bit", "w4a16", "bnb4bit")
	add(word{kind: kindQuant, val: string(sizing.QuantNF4)}, "nf4")
	add(word{kind: kindQuant, val: string(sizing.QuantNF4DQ)}, "nf4dq", "nf4doublequant", "doublequant", "nf4withdoublequant")
	add(word{kind: kindQuant, val: string(sizing.QuantGPTQ)}, "gptq", "gptqint4", "gptq4bit")
	add(word{kind: kindQuant, val: string(sizing.QuantAWQ)}, "awq", "awqint4", "awq4bit")
	for q, keys := range map[sizing.Quant][]string{
		sizing.QuantQ8_0:  {"q80", "q8"},
		sizing.QuantQ6_K:  {"q6k"},
		sizing.QuantQ5_KM: {"q5km"},
		sizing.QuantQ4_KM: {"q4km"},
		sizing.QuantQ4_0:  {"q40"},
		sizing.QuantQ3_KM: {"q3km"},
		sizing.QuantQ2_K:  {"q2k"},
	} {
		for _, k := range keys {
			add(word{kind: kindQuant, val: string(q)}, k, "gguf"+k, k+"gguf")
		}
	}
	add(word{kind: kindGGUF, val: string(sizing.QuantQ4_KM)}, "gguf", "llama.cpp", "llamacpp", "ollama")
	add(word{kind: kindEXL2}, "exl2", "exllama", "exllamav2", "exllama2", "exllamav2quant", "exl2quant", "exl2quants", "tabbyapi")

	for p, keys := range map[sizing.Precision][]string{
		sizing.PrecisionFP32: {"fp32", "f32"},
		sizing.PrecisionBF16: {"bf16"},
		sizing.PrecisionFP16: {"fp16", "f16"},
		sizing.PrecisionFP8:  {"fp8", "f8"},
		sizing.PrecisionINT8: {"int8", "q8", "q80", "8bit"},
		sizing.PrecisionINT4: {"int4", "q4", "q40", "4bit"},
	} {
		for _, k := range keys {
			add(word{kind: kindKV, val: string(p)}, "kv"+k, "kvcache"+k, k+"kv", k+"kvcache", "kv"+k+"cache",
				"kvcachein"+k, "kvin"+k)
		}
	}

	for stage, keys := range [][]string{
		{"zero0", "z0", "zerostage0", "ddp", "stage0"},
		{"zero1", "z1", "zerostage1", "stage1"},
		{"zero2", "z2", "zerostage2", "stage2"},
		{"zero3", "z3", "zerostage3", "stage3"},
	} {
		add(word{kind: kindZeRO, n: stage}, keys...)
	}
	add(word{kind: kindZeRO, n: 3, note: "fsdp taken as ZeRO-3 (full sharding of weights, gradients and optimizer state)"},
		"fsdp", "fsdp2", "fullyshardeddataparallel", "fullshard")
	add(word{kind: kindZeRO, n: 2, note: "fsdp shard_grad_op taken as ZeRO-2"}, "shardgradop", "fsdpshardgradop")
	add(word{kind: kindDeepSpeed}, "deepspeed", "ds")
	add(word{kind: kindCheapest}, "cheapest", "cheaper", "cheapestway", "cheapestthatfits", "lowestcost", "leastexpensive", "cheapestoption")
	add(word{kind: kindLink}, "nvlink", "nvlinks", "nvswitch", "nvlinkbridge", "interconnect", "p2p", "peertopeer",
		"infiniband", "roce", "efa", "rdma", "gpudirect")
	add(word{kind: kindFastest}, "fastest", "quickest", "fastestway", "quickestway", "fastestsetup", "asfastaspossible", "fastestoption")
	// A serving question's wish for speed: its plan fastest first
	// ("fastest way to serve mixtral 8x22b, latency matters").
	add(word{kind: kindFastest}, "lowestlatency", "leastlatency", "minimumlatency", "minimallatency", "minlatency",
		"latencymatters", "latencymattersmost", "latencyiscritical", "fastaspossible")
	add(word{kind: kindFewest}, "fewest", "fewestgpus", "fewestcards", "mingpus", "minimumgpus", "minnumberofgpus",
		"minimumnumberofgpus", "leastgpus", "fewestnumberofgpus", "gpusmin", "gpusminimum", "gpusatminimum", "cardsmin", "minimumcards", "mincards", "min", "minimum", "atminimum")
	add(word{kind: kindQuantize}, "quantize", "quantise", "quantized", "quantised", "quantizing", "quantising",
		"quantization", "quantisation", "quantizeit", "quantiseit")
	add(word{kind: kindMethod, val: string(sizing.MethodLoRA)}, "adapter", "adapters")
	add(word{kind: kindMethod, val: string(sizing.MethodQLoRA)}, "4bitadapters", "4bitadapter", "int4adapters", "nf4adapters", "quantizedadapters", "quantisedadapters")
	for _, q := range []struct {
		key   string
		quant sizing.Quant
	}{{"q6", sizing.QuantQ6_K}, {"q5", sizing.QuantQ5_KM}, {"q4", sizing.QuantQ4_KM}, {"q3", sizing.QuantQ3_KM}, {"q2", sizing.QuantQ2_K}} {
		add(word{kind: kindQuant, val: string(q.quant), note: fmt.Sprintf("%s taken as GGUF %s, llama.cpp's usual %s-bit type", q.key, q.quant, q.key[1:])}, q.key)
	}
	add(word{kind: kindNoDevice, val: "a Raspberry Pi"}, "raspberrypi", "raspberry", "rpi", "raspberrypi4", "raspberrypi5", "pi4", "pi5")
	add(word{kind: kindNoDevice, val: "a phone"}, "phone", "phones", "iphone", "android", "smartphone", "cellphone")
	add(word{kind: kindNoDevice, val: "a microcontroller"}, "arduino", "esp32", "microcontroller")
	add(word{kind: kindNoDevice, val: "a Jetson", n: 1}, "jetson", "jetsonorin", "jetsonnano", "orin", "agxorin", "jetsonagxorin")
	add(word{kind: kindNoDevice, val: cpuOnly}, "cpuonly", "oncpu", "onlycpu", "onlyoncpu",
		"justcpu", "justoncpu", "oncpuonly", "onthecpu", "onmycpu", "onacpu", "onacpuonly", "onjustacpu", "onjustcpu", "nogpu", "withoutgpu", "withoutagpu", "withnogpu", "laptopcpu",
		"onmylaptopcpu", "onlaptopcpu", "cpuinference", "inferenceoncpu")
	add(word{kind: kindNoDevice, val: "a TPU"}, "tpu", "tpus", "tpuv4", "tpuv5e", "tpuv5p", "tpuv6e", "cloudtpu")
	add(word{kind: kindGPU, val: "t4", note: "Colab taken as its free tier's T4 16 GB (Colab Pro gives an L4 or an A100: name it)"}, "colab", "googlecolab", "colabfree", "freecolab")
	for k, name := range providerNames {
		if _, ok := m[k]; !ok { // "together" stays a filler
			add(word{kind: kindProvider, val: name}, k)
		}
	}
	add(word{kind: kindSpot}, "spot", "onspot", "spotinstance", "spotinstances", "spotprice", "preemptible", "interruptible")

	add(word{kind: kindOffload, val: string(sizing.OffloadCPU)}, "offload", "offloading", "offloaded", "cpuoffload",
		"offloadtocpu", "offloadcpu", "oncpuoffload", "withcpuoffload", "cpuoffloading", "offloadtoram", "ramoffload", "offloadoptimizer",
		"optimizeroffload", "zerooffload")
	add(word{kind: kindOffload, val: string(sizing.OffloadNVMe)}, "nvmeoffload", "offloadtonvme", "offloadnvme",
		"nvme", "zeroinfinity", "ssdoffload", "offloadtossd", "diskoffload", "offloadtodisk")
	add(word{kind: kindOffload, val: string(sizing.OffloadNone)}, "nooffload", "withoutoffload", "withoutoffloading",
		"nooffloading", "offloadnone", "offloadoff")

	add(word{kind: kindCkpt, n: 1}, "gc", "ckpt", "gradckpt", "gradientckpt", "gradientcheckpointing",
		"gradcheckpointing", "activationcheckpointing", "activationckpt", "checkpointing", "recompute",
		"activationrecompute", "activationrecomputation", "fullrecompute", "withcheckpointing",
		"withgradientcheckpointing", "gradientcheckpoint", "ckpton", "gcon", "checkpointingon")
	add(word{kind: kindCkpt, n: 0}, "nockpt", "nogc", "nocheckpointing", "nogradientcheckpointing",
		"nogradckpt", "withoutcheckpointing", "withoutgradientcheckpointing", "withoutckpt", "withoutgc",
		"ckptoff", "gcoff", "checkpointingoff", "norecompute", "noactivationcheckpointing")

	add(word{kind: kindSeqKey}, "seq", "seqlen", "sequence", "sequencelength", "seqlength", "ctx", "ctxlen",
		"context", "contextlength", "contextlen", "contextwindow", "maxlen", "maxseqlen", "maxlength",
		"maxcontext", "cutofflen", "maxseqlength", "ctxsize")
	add(word{kind: kindSeqWord}, "tokenscontext", "tokensofcontext", "ofcontext", "window", "tokenwindow",
		"tokencontext", "contexttokens", "tokenscontextwindow")
	add(word{kind: kindBatchKey}, "batch", "bs", "mbs", "batchsize", "microbatch", "microbatchsize",
		"perdevicebatch", "perdevicebatchsize", "perdevicetrainbatchsize", "microbs", "batchof", "concurrency")
	add(word{kind: kindBatchWord}, "users", "user", "requests", "request", "concurrent", "concurrentusers",
		"concurrentrequests", "parallelrequests", "simultaneoususers", "simultaneousrequests", "streams",
		"sessions", "concurrentsessions", "concurrentstreams", "sequences", "seqs",
		"ppl", "people", "folks", "clients", "customers", "devs", "developers", "engineers", "employees", "teammates", "coworkers",
		"students", "learners", "members", "agents", "testers", "analysts", "researchers")
	add(word{kind: kindRankKey}, "rank", "r", "ofrank", "withrank")
	add(word{kind: kindRankKey, val: string(sizing.MethodLoRA)}, "lorarank", "lorar", "loraranks")
	add(word{kind: kindNodeWord, n: 1}, "node", "fullnode", "wholenode")
	add(word{kind: kindNodeWord}, "nodes", "machines", "servers", "hosts", "boxes")
	add(word{kind: kindUnusedKey}, "alpha", "dropout", "lr", "learningrate",
		"warmup", "warmupsteps", "wd", "weightdecay", "seed", "temperature", "temp", "topp", "topk")
	add(word{kind: kindAccumKey}, "gradaccum", "gradientaccumulation", "gradaccumulation", "gradaccumsteps",
		"gradientaccumulationsteps", "ga", "accum", "accumulation", "accumulationsteps")
	add(word{kind: kindGlobalBatchKey}, "globalbatch", "globalbatchsize", "gbs", "globalbs")
	add(word{kind: kindUnusedWord}, "steps", "step", "iterations", "iters", "hours", "hour", "hrs", "days", "day",
		"weeks", "minutes", "mins", "dollars", "usd", "bucks", "gb", "gib", "gig", "gigs", "gigabyte", "gigabytes", "tb", "percent", "%",
		"kvheads", "kvhead", "heads", "attentionheads", "queryheads", "layers")
	add(word{kind: kindEpochWord}, "epoch", "epochs", "passes", "pass")
	add(word{kind: kindImageWord}, "image", "images", "photo", "photos", "picture", "pictures", "screenshot", "screenshots")
	add(word{kind: kindTokensWord}, "tokens", "token", "tok", "toks")
	add(word{kind: kindParamsWord}, "params", "param", "parameters", "parameter")

	// Parallel layouts (issue #24).
	add(word{kind: kindParallelKey, val: "tp"}, "tp", "tensorparallel", "tensorparallelism", "tensorparallelsize",
		"tpsize", "tpdegree", "tensormodelparallelsize")
	add(word{kind: kindParallelKey, val: "pp"}, "pp", "pipelineparallel", "pipelineparallelism", "pipelineparallelsize",
		"ppsize", "ppdegree", "pipelinemodelparallelsize", "pipelinestages")
	add(word{kind: kindParallelKey, val: "cp"}, "cp", "contextparallel", "contextparallelism", "contextparallelsize",
		"cpsize", "cpdegree")
	add(word{kind: kindParallelKey, val: "ep"}, "ep", "expertparallel", "expertparallelism", "expertparallelsize",
		"epsize", "epdegree", "expertmodelparallelsize")
	// Mistral NeMo's name holds "nemo", which alone is NVIDIA's framework.
	add(word{kind: kindModel, val: "mistral-nemo-12b"}, "mistralnemo", "mistralnemo12b", "mistralnemo2407")
	add(word{kind: kindLayoutWord}, "3dparallel", "3dparallelism", "4dparallel", "4dparallelism", "modelparallel", "modelparallelism")
	// Megatron-LM and NeMo run FP8 through Transformer Engine.
	add(word{kind: kindLayoutWord, val: string(sizing.StackTransformerEngine)}, "megatron", "megatronlm", "megatroncore", "nemo")
	add(word{kind: kindStack, val: string(sizing.StackTransformerEngine)}, "transformerengine")
	add(word{kind: kindFusedLoss}, "fusedloss", "chunkedloss", "fusedce", "chunkedce", "fusedcrossentropy",
		"chunkedcrossentropy", "liger", "ligerkernel", "ligerkernels", "cutcrossentropy", "cce",
		"fusedlinearcrossentropy", "flce")
	for n, keys := range map[int][]string{1: {"1bit"}, 2: {"2bit", "int2"}, 3: {"3bit", "int3"}, 5: {"5bit"}, 6: {"6bit"}} {
		add(word{kind: kindBits, n: n}, keys...)
	}
	add(word{kind: kindModules}, "modulestosave", "trainembeddings", "trainembedding", "trainedembeddings",
		"trainlmhead", "withembeddings", "embeddingsandlmhead", "trainembedtokens")
	add(word{kind: kindOffloadAct, val: "unsloth"}, "unsloth", "unslothcheckpointing", "unslothgradientcheckpointing")
	add(word{kind: kindOffloadAct}, "offloadedcheckpointing", "offloadcheckpointing", "offloadactivations",
		"activationoffload", "activationoffloading", "cpucheckpointing", "offloadedactivations")

	for n, keys := range [][]string{
		1: {"one", "single", "solo", "lone"}, 2: {"two", "dual", "twin", "pair", "couple"}, 3: {"three", "triple"},
		4: {"four", "quad"}, 5: {"five"}, 6: {"six"}, 7: {"seven"}, 8: {"eight", "octo"}, 9: {"nine"}, 10: {"ten"},
		11: {"eleven"}, 12: {"twelve"}, 13: {"thirteen"}, 14: {"fourteen"}, 15: {"fifteen"}, 16: {"sixteen"},
	} {
		add(word{kind: kindCount, n: n}, keys...)
	}
	return m
}
