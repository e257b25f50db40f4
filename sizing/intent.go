package sizing

// Intent is what kind of question was asked: a fit question ("does this
// fit, how, at what cost") or one of the questions that run the other way
// round (largest model, longest context, which GPU, buy or rent; see
// parse_ask.go), which reuse the Query.
type Intent string

// IntentFit asks whether a model fits on a GPU configuration.
const IntentFit Intent = "fit"

// IntentServe asks what a serving deployment does: how many users the
// named GPUs serve ("how many users can 2xh100 serve llama-3.1-70b",
// "max batch"), or the cheapest GPUs that meet a load ("gpus for 200
// users with ttft under 1s and 20 tok/s each").
const IntentServe Intent = "serve"
