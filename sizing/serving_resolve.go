package sizing

import "fmt"

// Bounds on a serving question, beyond which the numbers are typos.
const (
	maxRequestsPerSecond = 1e6
	maxTTFTSeconds       = 3600
	maxTokensPerSecond   = 1e5
	MinGPUUtil           = 0.05
	// chatModelLen is the --max-model-len a serving config starts with
	// when the question named no length: room for a long chat, not
	// vLLM's old 2048 (capped at the model's own context).
	chatModelLen = 8192
)

// lengthUnsaid reports whether a question named no request length.
func lengthUnsaid(q Query) bool {
	return q.SeqLen == 0 && q.Serve.PromptTokens == 0 && q.Serve.OutputTokens == 0
}

// chatMaxModelLen is the engine's longest request when the question named
// none: chatModelLen within the model's context, and never below the
// length the answer was sized at.
func (rs *resolved) chatMaxModelLen() int {
	n := chatModelLen
	if c := rs.model.MaxContext; c > 0 && c < n {
		n = c
	}
	return max(n, rs.req.SeqLen)
}

// serveLengths gives a serving question that named its prompt or output
// but no context the context they make: prompt + output (an unsaid one
// at its default).
func serveLengths(q Query) Query {
	if q.SeqLen != 0 || (q.Serve.PromptTokens == 0 && q.Serve.OutputTokens == 0) {
		return q
	}
	out := q.Serve.OutputTokens
	if out == 0 {
		out = defaultOutputTokens
	}
	prompt := q.Serve.PromptTokens
	if prompt == 0 {
		prompt = max(ServeContextDefault-out, out)
	}
	q.SeqLen = prompt + out
	return q
}

// resolveServe checks and fills the serving fields of an inference
// request: the request lengths (the context split into prompt and output
// when the question gave only the context), the load, the targets and
// the engine's memory fraction.
func (rs *resolved) resolveServe(q Query) error {
	r := &rs.req
	l := q.Serve
	if r.Method != MethodInference {
		return nil
	}
	for _, c := range []struct {
		name     string
		v, limit float64
	}{
		{"requests per second", l.RequestsPerSecond, maxRequestsPerSecond},
		{"TTFT target", l.TTFTTargetSeconds, maxTTFTSeconds},
		{"tokens/s per user target", l.TokensPerSecondPerUserTarget, maxTokensPerSecond},
		{"tokens/s in all target", l.OutputTokensPerSecondTarget, maxRequestsPerSecond},
		{"prompt length", float64(l.PromptTokens), MaxSeqLen},
		{"output length", float64(l.OutputTokens), MaxSeqLen},
	} {
		if c.v < 0 || c.v > c.limit {
			return inputErr(fmt.Sprintf("fit %s 50 users ttft 1s", r.Model), "a %s of %g is out of range (0 to %g)", c.name, c.v, c.limit)
		}
	}
	if b := l.BusyShare; b < 0 || b > 1 {
		return inputErr(fmt.Sprintf("fit %s 80%% utilization", r.Model), "a busy share of %g is not a share of the time between 0 and 1", b)
	}
	if u := l.GPUMemoryUtilization; u != 0 && (u < MinGPUUtil || u > 1) {
		return inputErr(fmt.Sprintf("fit %s gpu util 0.9", r.Model), "gpu util %g is not a share of the card between %g and 1", u, MinGPUUtil)
	}
	if q.MicroBatch > 0 {
		r.Concurrency = q.MicroBatch
	}
	r.RequestsPerSecond = l.RequestsPerSecond
	r.TTFTTargetSeconds = l.TTFTTargetSeconds
	r.TokensPerSecondPerUserTarget = l.TokensPerSecondPerUserTarget
	r.OutputTokensPerSecondTarget = l.OutputTokensPerSecondTarget
	r.GPUMemoryUtilization = l.GPUMemoryUtilization
	if r.GPUMemoryUtilization == 0 {
		r.GPUMemoryUtilization = DefaultGPUMemoryUtilization
		if l.Engine == EngineSGLang {
			r.GPUMemoryUtilization = sglangMemFraction
		}
	}
	r.Engine = l.Engine
	r.BusyShare = l.BusyShare
	r.FirstTokenAsked = l.FirstToken
	r.PerRequestAsked = l.PerRequest
	r.TokensPerAsked = l.TokensPer
	r.TokensPerDayAsked = l.TokensPer == "day"
	r.PromptTokens, r.OutputTokens = l.PromptTokens, l.OutputTokens
	switch {
	case r.PromptTokens > 0 && r.OutputTokens > 0:
	case r.PromptTokens > 0:
		r.OutputTokens = max(min(defaultOutputTokens, r.SeqLen-r.PromptTokens), 1)
	case r.OutputTokens > 0:
		r.PromptTokens = max(r.SeqLen-r.OutputTokens, 1)
	default:
		r.OutputTokens = min(defaultOutputTokens, max(r.SeqLen/4, 1))
		r.PromptTokens = max(r.SeqLen-r.OutputTokens, 1)
	}
	if r.PromptTokens+r.OutputTokens > r.SeqLen {
		r.SeqLen = r.PromptTokens + r.OutputTokens
	}
	return nil
}
