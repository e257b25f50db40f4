package sizing

import "fmt"

// A batch job of documents (Query.Job: "embed 5M documents with
// bge-large") is inference without a serving load: every document goes
// through the model's forward pass once, in large batches, so its speed
// is the compute-bound prefill rate the estimator already counts
// (inferenceSpeed), and its time is its tokens over that rate.

// jobShape sets the sequence and batch a job is sized at when the
// question did not: a document's length (said, else the context said,
// else JobDocTokens or the model's longest sequence when shorter), cut at
// the model's longest sequence, in batches of jobBatch. It records the
// document's length for the job's tokens (rs.req.DocumentTokens).
func (rs *resolved) jobShape(q Query) Query {
	j := q.Job
	maxCtx := rs.model.MaxContext
	doc, said := j.DocTokens, true
	if doc == 0 {
		doc, said = q.SeqLen, q.SeqLen > 0
	}
	if doc == 0 {
		doc = JobDocTokens
		if maxCtx > 0 && maxCtx < doc {
			doc = maxCtx
		}
	}
	seq := doc
	if maxCtx > 0 && seq > maxCtx {
		seq = maxCtx
	}
	if q.SeqLen == 0 {
		q.SeqLen = seq
	}
	batchSaid := q.MicroBatch > 0
	if !batchSaid {
		q.MicroBatch = jobBatch
	}
	rs.req.Documents, rs.req.DocumentTokens, rs.req.DocumentsPerMonth = j.Documents, doc, j.Monthly
	tokens := j.Documents * int64(doc)
	if tokens/int64(doc) != j.Documents || tokens > MaxTokens {
		tokens = MaxTokens
	}
	rs.jobTokens = tokens
	how := fmt.Sprintf("none said: say e.g. \"docs of 300 tokens\"; %d, or the model's longest sequence when shorter", JobDocTokens)
	if said {
		how = "as said"
	}
	rs.assume("batch job: %s documents of %s tokens each (%s), %s tokens, each read once through %s's forward pass (inference: no training, no serving load)",
		humanCount(j.Documents), thousands(float64(doc)), how, humanCount(tokens), rs.model.Name)
	if doc > seq {
		rs.assume("a document of %s tokens is longer than %s's %s-token sequence: read as %d chunks of up to %s tokens, the same tokens in all",
			thousands(float64(doc)), rs.model.Name, thousands(float64(seq)), (doc+seq-1)/seq, thousands(float64(seq)))
	}
	if !batchSaid {
		rs.assume("documents read %d at a time (sentence-transformers' encode default, batch_size=32): large batches keep the forward pass compute-bound, at the prefill rate", jobBatch)
	}
	return q
}

// jobCost is r's batch job timed at the answer's prefill rate and priced
// at its cards' price; nil when r is no job or has no speed.
func jobCost(r *Request, t Throughput) *JobCost {
	if r.Documents == 0 || t.PrefillTokensPerSecond == nil || *t.PrefillTokensPerSecond <= 0 {
		return nil
	}
	tps := *t.PrefillTokensPerSecond
	j := &JobCost{Documents: r.Documents, DocumentTokens: r.DocumentTokens, Tokens: r.Tokens, TokensPerSecond: tps,
		Hours: jobHours(r.Tokens, tps), GPUs: max(r.GPUs, 1), Monthly: r.DocumentsPerMonth}
	if t.USDPerHour != nil {
		usd := j.Hours * *t.USDPerHour
		j.USD = &usd
	}
	if j.Monthly {
		j.BusyShare = j.Hours / HoursPerMonth
	}
	return j
}

// jobHours is how long tokens take at tps tokens per second: the job's
// tokens over the forward pass's rate. An inference job saves no
// checkpoints and runs no evaluations, so no goodput is taken off
// (RunGoodput is training's).
func jobHours(tokens int64, tps float64) float64 {
	return float64(tokens) / tps / 3600
}
