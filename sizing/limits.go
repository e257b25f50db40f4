package sizing

// The largest question the parser accepts. Beyond these the estimator's
// answers stop meaning anything; the numbers are round and documented.
const (
	MaxGPUs        = 32768    // GPUs in one question: the largest published training clusters (Llama 3: 16,384 H100)
	MaxNodes       = 4096     // machines in one question
	MaxGPUsPerNode = 16       // GPUs in one machine (HGX-2 style boards)
	MaxParams      = 20e12    // 20T parameters
	MaxExperts     = 1024     // experts in a bare "NxM" size
	MaxSeqLen      = 10 << 20 // 10M tokens of context
	MaxMicroBatch  = 4096     // micro-batch or concurrent requests
	MaxLoRARank    = 4096
	MinTokens      = 1e6 // a training budget below 1M tokens is a typo for a context length
	MaxTokens      = 1e15
	MaxEpochs      = 1000
	MaxGradAccum   = 65536 // gradient accumulation steps

	// MinGlobalBatchTokens is the smallest global batch read as tokens.
	MinGlobalBatchTokens = 65536
)
