package answer

import (
	"slices"
	"strings"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// Request is the request a parsed question resolves to, as its answer
// would start from it, with what was assumed (`fitbot parse` shows it).
// The questions that run the other way round leave out what their answer
// finds: the model of a largest-model question (its request and
// assumptions are those the search uses, which no price moves), the
// context of a longest-context one, and everything but the hardware of a
// buy-or-rent question that names no model.
func Request(p reading.Request) (sizing.Request, []string, error) {
	q := p.Query
	noModel := q.Model == "" && q.Params == 0 && q.Arch == nil
	switch {
	case p.Intent == sizing.IntentLargest:
		ans, err := (&sizing.Estimator{}).LargestModel(q)
		ans.Request.Model, ans.Request.Params, ans.Request.ActiveParams = "", 0, 0
		return ans.Request, ans.Assumptions, err
	case p.Intent == sizing.IntentMaxContext:
		q.SeqLen = 0
		req, assumed, err := sizing.Resolve(q)
		req.SeqLen = 0
		return req, slices.DeleteFunc(assumed, func(s string) bool {
			return strings.HasPrefix(s, "context ") || strings.HasPrefix(s, "sequence length ")
		}), err
	case p.Intent == sizing.IntentBuyRent && noModel && q.GPU != "":
		g, note, err := sizing.LookupGPU(q.GPU)
		if err != nil {
			// sizing.Resolve words the unknown name as every other question does.
			return sizing.Resolve(q)
		}
		var assumed []string
		if note != "" {
			assumed = append(assumed, note)
		}
		return sizing.Request{GPU: g.ID, GPUs: max(q.GPUs, 1), Nodes: max(q.Nodes, 1)}, assumed, nil
	}
	return sizing.Resolve(q)
}

// Workload is a buy-or-rent question's workload with the defaults it
// would use filled in, and those defaults in words; nil for any other
// question.
func Workload(p reading.Request) (*sizing.Workload, []string) {
	if p.Intent != sizing.IntentBuyRent {
		return nil, nil
	}
	w, assumed := p.Workload.WithDefaults()
	return &w, assumed
}
