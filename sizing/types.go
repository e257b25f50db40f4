package sizing

import "time"

// Method is how a model is used: trained in full, adapted with LoRA or
// QLoRA, or served for inference.
type Method string

// The methods the estimator knows.
const (
	MethodFull      Method = "full"
	MethodLoRA      Method = "lora"
	MethodQLoRA     Method = "qlora"
	MethodInference Method = "inference"
)

// Optimizer names the training optimizer, which decides the bytes of
// optimizer state kept per trainable parameter.
type Optimizer string

// The optimizers the estimator knows.
const (
	OptimizerAdamW       Optimizer = "adamw"
	OptimizerAdamW8bit   Optimizer = "adamw-8bit"
	OptimizerSGD         Optimizer = "sgd"
	OptimizerSGDMomentum Optimizer = "sgd-momentum"
	OptimizerAdafactor   Optimizer = "adafactor"
)

// Precision is a number format for weights, activations or the KV cache.
type Precision string

// The precisions the estimator knows.
const (
	PrecisionFP32 Precision = "fp32"
	PrecisionBF16 Precision = "bf16"
	PrecisionFP16 Precision = "fp16"
	PrecisionFP8  Precision = "fp8"
	PrecisionINT8 Precision = "int8"
	PrecisionINT4 Precision = "int4"

	// PrecisionPureBF16 is bf16 training without an fp32 master copy of the
	// weights (torchtune's and LitGPT's default): weights, gradients and
	// optimizer state all in bf16.
	PrecisionPureBF16 Precision = "pure-bf16"
)

// Quant is a weight quantisation scheme: bitsandbytes int8 and NF4,
// GPTQ/AWQ-style int4 with group scales, or a GGUF type such as q4_k_m.
// The empty Quant means the weights are kept at the request's Precision.
type Quant string

// The quantisation schemes the estimator knows.
const (
	QuantNone  Quant = ""
	QuantINT8  Quant = "int8"
	QuantNF4   Quant = "nf4"    // bitsandbytes NF4 without double quantisation
	QuantNF4DQ Quant = "nf4-dq" // bitsandbytes NF4 with double quantisation (QLoRA default)
	QuantGPTQ  Quant = "gptq"   // int4, group size 128, fp16 scales and zeros
	QuantAWQ   Quant = "awq"    // int4, group size 128, fp16 scales and zeros
	QuantQ8_0  Quant = "q8_0"
	QuantQ6_K  Quant = "q6_k"
	QuantQ5_KM Quant = "q5_k_m"
	QuantQ4_KM Quant = "q4_k_m"
	QuantQ4_0  Quant = "q4_0"
	QuantQ3_KM Quant = "q3_k_m"
	QuantQ2_K  Quant = "q2_k"

	// Released low-precision formats: the weights as their makers ship them.
	QuantFP8   Quant = "fp8"   // e4m3 with block or per-tensor scales (DeepSeek-V3, Kimi K2)
	QuantMXFP4 Quant = "mxfp4" // OCP microscaling fp4, one e8m0 scale per 32 values (gpt-oss experts)
	QuantNVFP4 Quant = "nvfp4" // NVIDIA fp4, one fp8 scale per 16 values plus a tensor scale
)

// Offload says where ZeRO moves state that does not stay on the GPU.
type Offload string

// The offload targets.
const (
	OffloadNone Offload = "none"
	OffloadCPU  Offload = "cpu"
	OffloadNVMe Offload = "nvme"
)

// Query is a sizing question as it was asked. A zero field (or a nil
// pointer) means the asker did not say; Resolve fills it with a stated
// default. The parser produces a Query and Format turns one back into a
// canonical slash command.
type Query struct {
	Model             string    `json:"model,omitempty"`               // catalog model id; empty for a bare size
	Params            int64     `json:"params,omitempty"`              // bare size in parameters (per expert when Experts > 0)
	Experts           int       `json:"experts,omitempty"`             // bare mixture of experts, e.g. 8 for "8x7B"; 0 for dense
	Method            Method    `json:"method,omitempty"`              // "" when not said
	Optimizer         Optimizer `json:"optimizer,omitempty"`           // "" when not said
	Precision         Precision `json:"precision,omitempty"`           // training or serving precision; "" when not said
	Quant             Quant     `json:"quant,omitempty"`               // weight quantisation; "" when not said
	KVPrecision       Precision `json:"kv_cache_precision,omitempty"`  // KV-cache precision for inference; "" when not said
	GPU               string    `json:"gpu,omitempty"`                 // catalog GPU id; "" when not said
	GPUMemoryBytes    int64     `json:"gpu_memory_bytes,omitempty"`    // the card's memory as typed ("16GB" is 16 GiB) when no catalog variant of GPU has it; 0 otherwise
	UnknownGPU        string    `json:"unknown_gpu,omitempty"`         // the name of a card the catalog lacks, sized on GPU by its typed memory ("GTX 1080 Ti"); "" otherwise
	GPUs              int       `json:"gpus,omitempty"`                // total GPUs; 0 when not said
	Nodes             int       `json:"nodes,omitempty"`               // machines the GPUs are spread over; 0 when not said
	ZeROStage         *int      `json:"zero_stage,omitempty"`          // 0-3; nil when not said
	Offload           Offload   `json:"offload,omitempty"`             // "" when not said
	SeqLen            int       `json:"seq_len,omitempty"`             // training sequence or inference context; 0 when not said
	MicroBatch        int       `json:"micro_batch,omitempty"`         // micro-batch per GPU (training) or concurrent requests (inference)
	GradAccumSteps    int       `json:"grad_accum_steps,omitempty"`    // micro-batches per optimizer step; 0 when not said
	GlobalBatchTokens int64     `json:"global_batch_tokens,omitempty"` // tokens per optimizer step over all GPUs; 0 when not said
	GradCheckpointing *bool     `json:"grad_checkpointing,omitempty"`  // nil when not said
	LoRARank          int       `json:"lora_rank,omitempty"`           // 0 when not said
	Tokens            int64     `json:"tokens,omitempty"`              // whole training budget in tokens; 0 when not said
	TensorParallel    int       `json:"tensor_parallel,omitempty"`     // Megatron-style tensor parallel degree; 0 when not said
	PipelineParallel  int       `json:"pipeline_parallel,omitempty"`   // pipeline stages; 0 when not said
	ContextParallel   int       `json:"context_parallel,omitempty"`    // ranks one sequence is split over; 0 when not said
	ExpertParallel    int       `json:"expert_parallel,omitempty"`     // ranks the routed experts are split over; 0 when not said
	FusedLoss         *bool     `json:"fused_loss,omitempty"`          // fused/chunked cross-entropy (Liger, Unsloth, Cut Cross-Entropy); nil when not said
	ModelParallel     bool      `json:"model_parallel,omitempty"`      // "3d parallel", "megatron": a tensor/pipeline layout is wanted, degrees not said
	Stack             Stack     `json:"stack,omitempty"`               // the training framework's kernels when said ("nemo", "megatron", "transformer engine"); "" otherwise
	ModulesToSave     *bool     `json:"modules_to_save,omitempty"`     // LoRA: embeddings and LM head trained in full (PEFT modules_to_save); nil when not said
	// OffloadActivations keeps the checkpointed layer inputs in host RAM
	// (Unsloth's offloaded gradient checkpointing); nil when not said.
	OffloadActivations *bool  `json:"offload_activations,omitempty"`
	Arch               *Model `json:"arch,omitempty"`        // an architecture given directly (fitbot fit --config); overrides Model and Params
	Resolution         int    `json:"resolution,omitempty"`  // image side in pixels for a diffusion model ("1024px"); 0 when not said
	VAESlicing         bool   `json:"vae_slicing,omitempty"` // diffusion: the VAE decodes one image of the batch at a time (diffusers' enable_vae_slicing)
	Images             int    `json:"images,omitempty"`      // images per request for a vision-language model ("2 images"); 0 when not said
	Spot               bool   `json:"spot,omitempty"`        // priced and launched at a spot (interruptible) rate: "spot", "preemptible"
	// Provider is the cloud the question names ("on aws"), by the name
	// its offers are filed under: the answer is priced there, and a
	// question naming no card is answered among the cards it prices.
	Provider string `json:"provider,omitempty"`
	// Cheapest asks for the cheapest card that fits ("cheapest", "cheaper"):
	// with no GPU named it is answered on the cheapest priced configuration,
	// never placed on the team's machines.
	Cheapest bool `json:"cheapest,omitempty"`
	// Fewest asks how many of the named card a question needs ("how many
	// a100s", "on h100s" with no count, "fewest h100"): it is answered on
	// the fewest that fit (Estimator.Answer). Serving loads on such cards
	// are planned instead (Serve.Plan). With no card named ("how many gpus
	// min") the card chosen is the one that fits on the fewest GPUs, the
	// cheapest of those. A capacity question on cards in the plural ("cost
	// per million tokens on h100s") is answered on the fewest that serve one
	// request (Estimator.Serve).
	Fewest bool `json:"fewest,omitempty"`
	// MaxBatch asks the largest micro-batch per GPU a training run fits
	// ("what batch size can we fit", "max batch size", "largest micro
	// batch"): it is answered at the largest that fits as asked, with the
	// levers that raise it (Answer's LargestBatch). A serving question's
	// "max batch" is Serve.MaxBatch.
	MaxBatch bool `json:"max_batch,omitempty"`
	// PerMonth asks the cost per month ("monthly", "per month", "24/7"):
	// the answer's hourly price run all month (730 hours).
	PerMonth bool `json:"per_month,omitempty"`
	// Projection asks a run's time as a projection: at the step rate with
	// no downtime, as vendors' projections count it.
	Projection bool `json:"projection,omitempty"`
	// Cadence is how often a training run is repeated ("every week",
	// "nightly", "3 times a week"); the answer prices a month of them.
	Cadence Cadence `json:"cadence,omitempty"`
	// DeepSpeed is true when the question named DeepSpeed without a
	// stage: ZeRO data parallelism, never a Megatron layout.
	DeepSpeed bool `json:"deepspeed,omitempty"`
	// Fastest asks for the quickest run ("fastest", "quickest"): a
	// training answer lists its other ways fastest first (faster ways,
	// when the asked one fits), each timed on the token budget (1B tokens
	// when none is said).
	Fastest bool `json:"fastest,omitempty"`
	// LinkAsked asks about the link between the cards ("do we need
	// nvlink"): the answer says the card's link and what its speed counts
	// over it.
	LinkAsked bool `json:"link_asked,omitempty"`
	// Alignment is a preference or RL objective named in the question
	// ("dpo", "ppo", "grpo", "orpo"): it decides whether a frozen
	// reference copy of the weights is held; "" when none was said.
	Alignment string `json:"alignment,omitempty"`
	// Own says the cards will be bought and kept ("how many gpus do we
	// need to buy", "what do we buy", "which card should we order", "on
	// prem"): the question is the plan or fit as usual, since a load
	// needs the same cards bought or rented, and a serving plan adds the
	// purchase price of its first option's cards (ServeResult.Purchase).
	// Format writes it "on-prem".
	Own bool `json:"own,omitempty"`
	// FromScratch is a run that trains every weight from random ("from
	// scratch", "pretrain"): adapters (LoRA, QLoRA) need a trained base,
	// so they are never offered as a way to fit it.
	FromScratch bool `json:"from_scratch,omitempty"`

	Serve ServeLoad `json:"serve,omitempty"` // the load and targets of a serving question; zero fields were not said

	// MFU is the model-FLOPs utilisation the question says the run
	// reaches ("at 40% mfu"), a share of the card's dense peak: the speed
	// is estimated at it instead of the fitted rates; 0 when not said.
	MFU float64 `json:"mfu,omitempty"`
	// MeasuredTokensPerSecond is a speed the asker measured, per GPU ("I
	// get 3500 tok/s per gpu"), whose MFU the question asks (Answer's
	// Measured); 0 when none was said.
	MeasuredTokensPerSecond float64 `json:"measured_tokens_per_second,omitempty"`
	// GPUHours is a budget of GPU-hours the question gave ("2000 a100
	// gpu-hours", "500 gpu hours", "300 node-hours" × the GPUs of a
	// node), never a count of GPUs: a training answer says whether the
	// run fits in it and, with no token count, how many tokens it trains;
	// 0 when none was said.
	GPUHours float64 `json:"gpu_hours,omitempty"`
	// GPUHoursAsked asks the run's GPU-hours ("how many gpu hours", "how
	// many a100 gpu-hours is that"): the answer says them first, the
	// run's hours × its GPUs.
	GPUHoursAsked bool `json:"gpu_hours_asked,omitempty"`
	// Job is an offline inference job over a corpus ("embed 5M documents
	// with bge-large"): that many documents through the model's forward
	// pass, timed and priced as one batch job; zero when the question is
	// not one.
	Job DocJob `json:"job,omitempty"`
}

// DocJob is a batch of documents put through an encoder once each
// (embeddings, indexing): forward passes only, no training, no serving
// load. Documents is zero when no job was said.
type DocJob struct {
	Documents int64 // "5M documents"
	// DocTokens is the length of a document as said ("docs of 300
	// tokens"); 0 when not said (JobDocTokens, or the model's longest
	// sequence when that is shorter).
	DocTokens int
	// Monthly is true when the documents come every month ("10M docs a
	// month"): the answer says the cost a month and the share of a card's
	// month the job keeps busy.
	Monthly bool
}

// ServeLoad is what a serving question says about its load and targets
// (DESIGN.md, "Serving capacity"); concurrent users are Query.MicroBatch.
type ServeLoad struct {
	RequestsPerSecond float64 `json:"requests_per_second,omitempty"` // "10 requests/s", "10 qps"
	// DailyUsers is a count of users a day the requests per second were
	// read from ("2000 daily users", "2000 employees"); Format writes it
	// back in those words, so that a Try keeps the asker's load.
	DailyUsers int `json:"daily_users,omitempty"`
	// RequestsPerUserDay is how many requests each of the daily users
	// sends a day, when the question says it ("1000 DAU, 20 messages a
	// day each"); 0 is the usual 20 (requestsPerUserDay).
	RequestsPerUserDay           int     `json:"requests_per_user_day,omitempty"`
	PromptTokens                 int     `json:"prompt_tokens,omitempty"`                     // "prompt 2k"
	OutputTokens                 int     `json:"output_tokens,omitempty"`                     // "output 500"
	TTFTTargetSeconds            float64 `json:"ttft_target_seconds,omitempty"`               // "ttft under 500ms"
	TokensPerSecondPerUserTarget float64 `json:"tokens_per_second_per_user_target,omitempty"` // "20 tok/s per user"
	// OutputTokensPerSecondTarget is the output of all replicas together
	// ("1000 tok/s in total", "how many l4s to hit 1000 tok/s").
	OutputTokensPerSecondTarget float64 `json:"output_tokens_per_second_target,omitempty"`
	GPUMemoryUtilization        float64 `json:"gpu_memory_utilization,omitempty"` // "gpu util 0.95"
	Engine                      string  `json:"engine,omitempty"`                 // "sglang"; "" is vLLM
	// BusyShare is the share of the time the replicas are busy ("at 80%
	// utilization"): the cards are paid for all of it and make tokens in
	// that share, so the cost per output token is over it; 0 when not said.
	BusyShare float64 `json:"busy_share,omitempty"`
	// FirstToken asks the time to the first token with no target ("time
	// to first token for a 32k prompt", "what's the ttft"): the answer
	// says it for one request alone.
	FirstToken bool `json:"first_token,omitempty"`
	// MaxBatch asks the most requests the KV cache holds at once ("max
	// batch", "max concurrency"): a memory limit, answered without the
	// usable-speed floor a users question gets.
	MaxBatch bool `json:"max_batch,omitempty"`
	// PerRequest asks what requests cost ("per 1k requests", "cost per
	// request"): the answer says the cost of a thousand.
	PerRequest bool `json:"per_request,omitempty"`
	// TokensPer asks how many tokens the cards serve in a period, one of
	// Periods ("how many tokens per day can 8x h100 serve": "day"): the
	// answer says the output of that period at the answered load.
	TokensPer string `json:"tokens_per,omitempty"`
	// Plan is a planning ask ("gpus for 200 users", "how many gpus"):
	// the cheapest configurations that meet the load, not the capacity of
	// the named GPUs.
	Plan bool `json:"plan,omitempty"`
}

// Request is a fully resolved sizing request: every field set, every
// default applied. Its JSON keys are part of the public contract
// (DESIGN.md, `fit --json`).
// Stack is the kernels a training framework runs its layers with, where
// they change the speed.
type Stack string

// StackTransformerEngine is NVIDIA's Transformer Engine, which NeMo and
// Megatron-LM run FP8 through: the FP8 casts and scaling are fused into
// the GEMMs and norms.
const StackTransformerEngine Stack = "transformer-engine"

type Request struct {
	Model             string    `json:"model"`
	Params            int64     `json:"params"`
	ActiveParams      int64     `json:"active_params"`
	Method            Method    `json:"method"`
	Optimizer         Optimizer `json:"optimizer"`
	Precision         Precision `json:"precision"`
	GPU               string    `json:"gpu"`
	GPUMemoryBytes    int64     `json:"gpu_memory_bytes,omitempty"` // usable memory per card when the asker typed a size the catalog card does not have
	GPUs              int       `json:"gpus"`
	Nodes             int       `json:"nodes"`
	ZeROStage         int       `json:"zero_stage"`
	Offload           Offload   `json:"offload"`
	SeqLen            int       `json:"seq_len"`
	MicroBatch        int       `json:"micro_batch"`
	GradAccumSteps    int       `json:"grad_accum_steps"`
	GlobalBatchTokens int64     `json:"global_batch_tokens"` // seq_len × micro_batch × grad_accum_steps × gpus (0 for inference)
	GradCheckpointing bool      `json:"grad_checkpointing"`
	LoRARank          int       `json:"lora_rank"`
	Quant             Quant     `json:"quant"`
	Tokens            int64     `json:"tokens"`
	KVPrecision       Precision `json:"kv_cache_precision"`
	// Stack is the training framework's kernels when the question named
	// them (StackTransformerEngine); "" is fitbot's default fit.
	Stack Stack `json:"stack,omitempty"`

	// Parallel layout (training): degrees of tensor, pipeline, context and
	// expert parallelism, 1 = none; the GPUs left over are data parallel.
	TensorParallel   int  `json:"tensor_parallel"`
	PipelineParallel int  `json:"pipeline_parallel"`
	ContextParallel  int  `json:"context_parallel"`
	ExpertParallel   int  `json:"expert_parallel"`
	FusedLoss        bool `json:"fused_loss"` // fused/chunked cross-entropy: no full-vocabulary logits held

	// ModulesToSave trains the embeddings and LM head in full beside the
	// LoRA adapters (PEFT's modules_to_save: a trainable copy of each).
	ModulesToSave bool `json:"modules_to_save"`
	// OffloadActivations keeps the checkpointed layer inputs in host RAM
	// (Unsloth's offloaded gradient checkpointing).
	OffloadActivations bool `json:"offload_activations"`
	// Architecture is the family the model is sized as (Model.Architecture):
	// decoder, encoder, encoder-decoder, diffusion, ssm, hybrid or
	// vision-language.
	Architecture string `json:"architecture"`
	// Resolution is the image side in pixels a diffusion model is sized
	// at (request key resolution); 0 for every other family.
	Resolution int `json:"resolution,omitempty"`
	// VAESlicing: a diffusion pipeline's VAE decodes one image of the
	// batch at a time (diffusers' enable_vae_slicing).
	VAESlicing bool `json:"vae_slicing,omitempty"`
	// Images is how many images each sequence carries to a
	// vision-language model; their tokens are counted in seq_len.
	Images int  `json:"images,omitempty"`
	Spot   bool `json:"spot"` // asked at a spot (interruptible) rate
	// PerMonth is true when the question asked the cost per month: the
	// throughput and the alternatives carry usd_per_month.
	PerMonth bool `json:"per_month,omitempty"`
	// Projection times a run as a projection: at the step rate with no
	// downtime, as vendors' projections count it (goodput 1, basis
	// "projection"), not as a job or a production run averages.
	Projection bool `json:"projection,omitempty"`
	// RunsPerMonth is how many times a month a training run is repeated,
	// from a cadence said ("every week": 52/12); 0 when none was said.
	RunsPerMonth float64 `json:"runs_per_month,omitempty"`
	// Fastest is true when the question asked for the quickest run: the
	// alternatives are ordered by run time, fastest first.
	Fastest bool `json:"fastest,omitempty"`
	// GPUHours is the budget of GPU-hours the question gave ("2000 a100
	// gpu-hours", node-hours counted in GPUs); left out when none was
	// said. The answer's gpu_hours says what it covers.
	GPUHours float64 `json:"gpu_hours,omitempty"`
	// GPUHoursAsked is true when the question asked the run's GPU-hours
	// ("how many gpu hours"); left out when not.
	GPUHoursAsked bool `json:"gpu_hours_asked,omitempty"`
	// Documents is the count of documents of a batch job ("embed 5M
	// documents"); Tokens is then Documents × DocumentTokens. Left out
	// for any other question.
	Documents int64 `json:"documents,omitempty"`
	// DocumentTokens is the length of one document the job was sized at
	// (said, else JobDocTokens or the model's longest sequence).
	DocumentTokens int `json:"document_tokens,omitempty"`
	// DocumentsPerMonth is true when the documents come every month.
	DocumentsPerMonth bool `json:"documents_per_month,omitempty"`
	// Alignment is the preference or RL objective trained (dpo, ipo,
	// kto, orpo, simpo, ppo, grpo); empty for plain supervised training.
	Alignment string `json:"alignment,omitempty"`
	// Own is true when the cards are to be bought and kept (Query.Own);
	// left out when not.
	Own bool `json:"own,omitempty"`
	// FromScratch is true for pretraining from random weights: no adapter
	// method is offered as an alternative.
	FromScratch bool `json:"from_scratch,omitempty"`
	// MFU is the model-FLOPs utilisation the question said ("at 40%
	// mfu"): the speed is estimated at it, a share of the dense peak,
	// instead of the fitted rates; left out when none was said.
	MFU float64 `json:"mfu,omitempty"`
	// Serving questions (inference only; left out of training requests).
	// Concurrency is MicroBatch when the question gave users, 0 when it
	// did not.
	Concurrency                  int     `json:"concurrency,omitempty"`
	RequestsPerSecond            float64 `json:"requests_per_second,omitempty"`
	PromptTokens                 int     `json:"prompt_tokens,omitempty"`
	OutputTokens                 int     `json:"output_tokens,omitempty"`
	TTFTTargetSeconds            float64 `json:"ttft_target_seconds,omitempty"`
	TokensPerSecondPerUserTarget float64 `json:"tokens_per_second_per_user_target,omitempty"`
	OutputTokensPerSecondTarget  float64 `json:"output_tokens_per_second_target,omitempty"` // all replicas together
	GPUMemoryUtilization         float64 `json:"gpu_memory_utilization,omitempty"`
	Engine                       string  `json:"engine,omitempty"`
	// BusyShare is the share of the time the cards serve ("at 80%
	// utilization"), which the cost per output token is over; left out
	// when not said (busy all the time).
	BusyShare float64 `json:"busy_share,omitempty"`
	// FirstTokenAsked is true when the question asked the time to the
	// first token with no target: the answer says it at batch 1.
	FirstTokenAsked bool `json:"first_token_asked,omitempty"`
	// PerRequestAsked is true when the question asked what requests cost
	// ("per 1k requests"): the answer says Serving's usd_per_1k_requests.
	PerRequestAsked bool `json:"per_request_asked,omitempty"`
	// TokensPerDayAsked is true when the question asked the tokens a day
	// the cards serve: the answer says the output tokens of a day.
	TokensPerDayAsked bool `json:"tokens_per_day_asked,omitempty"`
	// TokensPerAsked is the period the question asked the tokens of
	// ("hour", "day", "week": one of Periods); "" when it asked none.
	TokensPerAsked string `json:"tokens_per_asked,omitempty"`
}

// Memory is the per-GPU memory of one configuration, term by term, in
// bytes. TotalBytes is the sum of the other terms.
type Memory struct {
	WeightsBytes     int64 `json:"weights_bytes"`
	GradientsBytes   int64 `json:"gradients_bytes"`
	OptimizerBytes   int64 `json:"optimizer_bytes"`
	ActivationsBytes int64 `json:"activations_bytes"`
	KVCacheBytes     int64 `json:"kv_cache_bytes"`
	OverheadBytes    int64 `json:"overhead_bytes"`
	// QLoRAWorkBytes is QLoRA's own working memory: the 16-bit copy of the
	// largest base weight bitsandbytes dequantises for each matmul and
	// what its 4-bit matmuls keep for backward beyond a 16-bit layer's
	// tensors (qloraWorkingBytes); 0 for every other method.
	QLoRAWorkBytes int64 `json:"qlora_working_bytes,omitempty"`
	// GatheredBytes is what ZeRO-3 / FSDP full sharding holds unsharded
	// beside the shards: the 16-bit weights of the block being computed
	// and of the one prefetched, and a block's gradients before their
	// reduce-scatter (gatheredLayerBytes); 0 below stage 3, under a
	// pipeline, and with parameter offload (whose working set is in the
	// weights and gradients terms).
	GatheredBytes int64 `json:"gathered_layers_bytes,omitempty"`
	TotalBytes    int64 `json:"total_bytes"`
}

// Throughput is the speed, duration and cost of a configuration. A nil
// field is unknown (no price for the GPU, no token budget given).
type Throughput struct {
	TokensPerSecond *float64 `json:"tokens_per_second"`
	Hours           *float64 `json:"hours"`
	USDPerHour      *float64 `json:"usd_per_hour"`
	USDTotal        *float64 `json:"usd_total"`
	// USDPerMonth is USDPerHour for a month of 730 hours, when the
	// question asked the cost per month (Request.PerMonth).
	USDPerMonth *float64 `json:"usd_per_month,omitempty"`
	// Goodput is the share of the run's wall clock its Hours count as
	// training (what RunGoodput, ProductionGoodput or a projection's 1
	// give); nil without a timed training run.
	Goodput *float64 `json:"goodput,omitempty"`
	// GoodputBasis says what the time is: "step" (a speed, no run
	// timed), "projection" (asked as one: no downtime), "job" (a training
	// job short of pre-training: RunGoodput) or "production" (full
	// training of ProductionTokens or more: ProductionGoodput); "" for
	// serving and inference.
	GoodputBasis string `json:"goodput_basis,omitempty"`
	// USDPerMonthOfRuns is a month of repeated runs (Request.RunsPerMonth)
	// at the run's cost: the token budget's, else a round run's of
	// RoundRunTokens.
	USDPerMonthOfRuns *float64 `json:"usd_per_month_of_runs,omitempty"`

	// PrefillTokensPerSecond is the prompt-processing rate for inference
	// (compute-bound); nil for training.
	PrefillTokensPerSecond *float64 `json:"prefill_tokens_per_second,omitempty"`
	// SequencesPerSecond is an encoder's (embeddings, rerankers) rate:
	// prefill tokens per second over the sequence length; nil otherwise.
	SequencesPerSecond *float64 `json:"sequences_per_second,omitempty"`

	// FLOPsPerToken is the model FLOPs counted per token: 6 × active
	// parameters (4 for LoRA) plus causal attention for training, 2 ×
	// active plus attention for a prefill token.
	FLOPsPerToken *float64 `json:"flops_per_token,omitempty"`
	// MFU is the model-FLOPs utilisation the answer's speed implies: model
	// FLOPs per second per GPU over the card's dense peak at the run's
	// precision (FP8 peak for fp8 training).
	MFU *float64 `json:"mfu,omitempty"`
}

// Alternative is another configuration for the same model, found by the
// alternatives search: a smaller change on the asked GPU, or a cheaper
// configuration that fits.
type Alternative struct {
	Method     Method    `json:"method"`
	Optimizer  Optimizer `json:"optimizer"`
	GPU        string    `json:"gpu"`
	GPUs       int       `json:"gpus"`
	ZeROStage  int       `json:"zero_stage"`
	Offload    Offload   `json:"offload"`
	Fits       bool      `json:"fits"`
	TotalBytes int64     `json:"total_bytes"`
	USDPerHour *float64  `json:"usd_per_hour"`
	Why        string    `json:"why"`
	// Headroom is comfortable or tight by the same rule as the answer's
	// verdict; a tight alternative says so in Why too.
	Headroom Headroom `json:"headroom"`

	// TokensPerSecond is this configuration's speed by the same
	// throughput model as the answer's (training tokens, or decode tokens
	// for inference); nil when unknown. Not part of the JSON contract: the
	// faces show it for the way that fits on the asked card.
	TokensPerSecond *float64 `json:"-"`
	// Hours is how long the request's token budget takes in this
	// configuration, by the same throughput model as the answer's; nil
	// without a token budget.
	Hours *float64 `json:"hours"`
	// USDTotal is Hours at USDPerHour: the cost of the whole run; nil
	// without a token budget or a price.
	USDTotal *float64 `json:"usd_total"`
	// USDPerMonth is USDPerHour for a month of 730 hours, when the
	// question asked the cost per month.
	USDPerMonth *float64 `json:"usd_per_month,omitempty"`

	// Request is the whole configuration the alternative stands for
	// (quantisation, KV cache, checkpointing and nodes included), so that
	// a launch config can be made for it; not part of the JSON contract.
	Request Request `json:"-"`
}

// Price is what one GPU-hour costs and where that figure came from.
type Price struct {
	USDPerGPUHour float64   `json:"usd_per_gpu_hour"`
	Provider      string    `json:"provider"` // e.g. "runpod", "aws", "default-sheet"
	Market        string    `json:"market"`   // "on_demand", "spot" or "reserved"
	Region        string    `json:"region"`   // as the provider names it
	AsOf          time.Time `json:"as_of"`    // when the price was observed
}

// PriceSource looks up the price of one GPU-hour for a catalog GPU id.
// The estimator declares it; the pricing package and the store implement it.
type PriceSource interface {
	GPUHourPrice(gpu string) (Price, bool)
}

// Headroom describes, in words, how much of the card an answer leaves free.
type Headroom string

// The headroom classes. Tight means it fits with less than the 20% the
// seeds recommend for allocator fragmentation and spikes.
const (
	HeadroomComfortable Headroom = "comfortable"
	HeadroomTight       Headroom = "tight"
	HeadroomOver        Headroom = "does not fit"
)

// MeasuredSpeed is what measurements say of an answer, the JSON key
// measured. Its first fields are a speed the asker measured and the
// model-FLOPs utilisation it is on the answer's card: tokens per second
// per GPU × the answer's FLOPs per token (causal attention counted) over
// the card's dense peak at the run's precision; zero when the question
// gave no speed. TeamRuns, when set, is how far the team's own measured
// runs like this one were from fitbot's figures.
type MeasuredSpeed struct {
	TokensPerSecondPerGPU float64 `json:"tokens_per_second_per_gpu,omitempty"`
	MFU                   float64 `json:"mfu,omitempty"`
	FLOPsPerToken         float64 `json:"flops_per_token,omitempty"`
	PeakFLOPS             float64 `json:"peak_flops,omitempty"` // one card's dense peak at the run's precision
	Peak                  string  `json:"peak,omitempty"`       // that peak's number format: "BF16", "FP8", "TF32"
	*TeamRuns
}

// TeamRuns is how far a team's measured runs of the same kind as an
// answer (method, card family, model size band) were from fitbot's
// figures, as ratios measured / fitbot: 1.04 is 4% above. The spread is
// the sample standard deviation of the ratios. The answer shows it; it
// never corrects the figures with it.
type TeamRuns struct {
	Runs              int     `json:"runs"`
	MemoryRatioMean   float64 `json:"memory_ratio_mean,omitempty"`
	MemoryRatioSpread float64 `json:"memory_ratio_spread,omitempty"`
	SpeedRatioMean    float64 `json:"speed_ratio_mean,omitempty"`
	SpeedRatioSpread  float64 `json:"speed_ratio_spread,omitempty"`
	PlanIDs           []int64 `json:"plan_ids"` // the plans whose runs these are
}

// Answer is the estimator's full reply to one question. The JSON keys of
// request, assumptions, fits, per_gpu, vram_bytes, host_ram_bytes,
// disk_bytes, throughput and alternatives are the public contract of
// `fitbot fit --json`; the others are documented extensions.
type Answer struct {
	Request      Request       `json:"request"`
	Assumptions  []string      `json:"assumptions"`
	Fits         bool          `json:"fits"`
	PerGPU       Memory        `json:"per_gpu"`
	VRAMBytes    int64         `json:"vram_bytes"`
	HostRAMBytes int64         `json:"host_ram_bytes"`
	DiskBytes    int64         `json:"disk_bytes"`
	Throughput   Throughput    `json:"throughput"`
	Alternatives []Alternative `json:"alternatives"`

	ModelName string   `json:"model_name"` // display name, e.g. "Llama 3.1 70B" or "13B (bare size)"
	GPUName   string   `json:"gpu_name"`   // display name, e.g. "RTX 4090 24 GB"
	Headroom  Headroom `json:"headroom"`   // comfortable, tight or does not fit
	// TightWhy says why a tight answer is tight when it is not the
	// estimate's own headroom (under 20%), e.g. the team's measured runs.
	TightWhy    string   `json:"tight_why,omitempty"`
	BindingTerm string   `json:"binding_term"` // the per_gpu term that dominates, e.g. "optimizer"
	Price       *Price   `json:"price"`        // the GPU-hour price used, nil when none is known
	Warnings    []string `json:"warnings"`     // e.g. communication-bound ZeRO-3 over PCIe
	// Serving is what the asked GPUs do as a serving engine (inference
	// answers only).
	Serving *Serving `json:"serving,omitempty"`
	// GPUChosen is true when the question named no GPU and the estimator
	// chose the card: the cheapest that fits, with the other cards that fit
	// as alternatives, or the reference card when none fits.
	GPUChosen bool `json:"gpu_chosen,omitempty"`
	// Fewest is how a count ask ("how many a100s") chose the count: the
	// fewest of the named card that fit; nil for any other question.
	Fewest *FewestGPUs `json:"fewest,omitempty"`
	// LargestBatch is how a largest-batch ask ("what batch size can we
	// fit") was answered: the largest micro-batch per GPU as asked and
	// with the same-card levers; nil for any other question.
	LargestBatch *LargestBatch `json:"largest_batch,omitempty"`
	// Measured is the MFU of a speed the asker measured ("I get 3500
	// tok/s per gpu"); nil when the question gave none.
	Measured *MeasuredSpeed `json:"measured,omitempty"`
	// Targets answer the asker's own targets that the estimate does not
	// read: a deadline (done in time or not) and a budget (what it buys,
	// whether the run fits in it). Shown right under the verdict; package
	// answer sets them.
	Targets []string `json:"targets,omitempty"`
	// GPUHours is the run's GPU-hours and what the question's GPU-hours
	// budget buys (CountGPUHours), when it gave one or asked them; said
	// first in Targets. Package answer sets it.
	GPUHours *GPUHours `json:"gpu_hours,omitempty"`
	// Job is the time and cost of a batch job of documents (Query.Job) on
	// the answer's cards; nil for any other question.
	Job *JobCost `json:"job,omitempty"`
}

// JobCost is a batch job of documents timed and priced on one
// configuration: its tokens at the forward pass's tokens per second
// (Throughput.PrefillTokensPerSecond), its hours at the cards' price.
type JobCost struct {
	Documents       int64   `json:"documents"`
	DocumentTokens  int     `json:"document_tokens"`
	Tokens          int64   `json:"tokens"`
	TokensPerSecond float64 `json:"tokens_per_second"`
	Hours           float64 `json:"hours"`
	GPUs            int     `json:"gpus"`
	// USD is the whole job at the cards' price; nil when none is known.
	USD *float64 `json:"usd"`
	// Monthly is true when the documents come every month: USD is then
	// the cost a month, and BusyShare the share of a month (730 hours)
	// the job keeps the cards busy.
	Monthly   bool    `json:"monthly,omitempty"`
	BusyShare float64 `json:"busy_share,omitempty"`
}
