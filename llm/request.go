package llm

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// Intents are the intents of a sizing question, the values a request's
// intent may take.
func Intents() []string {
	return strs(sizing.IntentFit, sizing.IntentServe, sizing.IntentLargest, sizing.IntentMaxContext,
		sizing.IntentWhichGPU, sizing.IntentBuyRent)
}

// RequestSpec is how fitbot's request (the reading package's Request,
// whose JSON paths these are) is shown to the model: the catalogs' GPU
// and model ids, the estimator's closed settings, the kinds of message
// (kinds, from the reading package's routes) and the intents as enums;
// what only the grammar knows (the words it used and left, its notes, a
// Hugging Face repo, a config file's architecture, a comparison's two
// questions, other readings) left out, for the Reader's check to put
// back from the grammar's reading. NewReader refuses it for a type
// whose paths differ, so the two cannot drift apart silently.
func RequestSpec(kinds []string) Spec {
	gpus := GPUIDs()
	return Spec{
		Enums: map[string][]string{
			"kind":                     kinds,
			"intent":                   Intents(),
			"route.kind":               kinds,
			"route.gpus":               gpus,
			"query.model":              ModelIDs(),
			"query.gpu":                gpus,
			"query.method":             methods,
			"query.optimizer":          optimizers,
			"query.precision":          precisions,
			"query.kv_cache_precision": precisions,
			"query.quant":              quants,
			"query.offload":            offloads,
			"query.stack":              stacks,
		},
		Skip: []string{"fields", "notes", "ignored", "unused", "hub", "missing", "method_implied",
			"comparison", "query.arch", "query.unknown_gpu", "route.said", "alternatives",
			"emit", "route.args", "route.topic"},
		About: map[string]string{
			"kind":   "the kind of message: sizing (any question fitbot sizes or searches), price (GPU prices), plans (the team's earlier plans), help, chat, cluster (the team's live cluster), plan (one kept plan), hardware (the team's machines), gpus or models (what fitbot knows)",
			"intent": "for a sizing question: fit (does it fit, how, at what cost), serve (users or load a deployment serves, or what serving a load needs), largest_model, max_context, which_gpu, buy_vs_rent",
			"route":  "for a message that is not a sizing question: what it asks (prices of which GPUs, which plans); null for a sizing question",
			"query":  "the sizing question's settings: catalog ids for model and gpu, numbers in plain units (parameters, tokens, bytes, seconds)",
		},
		Prompt: ReadingPrompt,
	}
}

// Kinds are the kinds of message the reading package tells apart.
func Kinds() []string {
	return strs(reading.RouteSizing, reading.RoutePrice, reading.RouteChat, reading.RouteHelp, reading.RoutePlans,
		reading.RouteCluster, reading.RoutePlan, reading.RouteHardware, reading.RouteGPUs, reading.RouteModels)
}

// NewRequestReader is the Reader of fitbot's reading.Request over c: the
// model's reading keeps what only the grammar knows and is held to
// reading.Validate, as the grammar's is.
func NewRequestReader(c *Client) (*Reader[reading.Request], error) {
	return NewReader(c, RequestSpec(Kinds()), keepGrammar)
}

// keepGrammar puts back into the model's reading what the model may not
// set (RequestSpec's Skip) from the grammar's, and the grammar's model
// when it is a Hugging Face repo the catalog's enum cannot name and the
// model named none; then reading.Validate.
// The model's Fields are the settings it said that the grammar's reading
// does not have (modelFields), so that reading.Fill can add them.
func keepGrammar(grammar, read reading.Request) (reading.Request, error) {
	read.Fields = modelFields(grammar.Query, read.Query)
	read.Notes, read.Ignored, read.Unused = grammar.Notes, grammar.Ignored, grammar.Unused
	read.Hub, read.Missing, read.MethodImplied, read.Comparison = grammar.Hub, grammar.Missing, grammar.MethodImplied, grammar.Comparison
	read.Query.Arch, read.Query.UnknownGPU, read.Emit = grammar.Query.Arch, grammar.Query.UnknownGPU, grammar.Emit
	if read.Route != nil && grammar.Route != nil {
		read.Route.Said, read.Route.Args, read.Route.Topic = grammar.Route.Said, grammar.Route.Args, grammar.Route.Topic
	}
	if read.Query.Model == "" && read.Query.Params == 0 && grammar.Hub != "" {
		read.Query.Model = grammar.Query.Model
	}
	return reading.Validate(read)
}

// modelFields are the query settings the model's reading says and the
// grammar's does not, by their request JSON key, in key order, each
// with its value as the words the model "said".
func modelFields(grammar, read sizing.Query) []reading.Field {
	g, r := settings(grammar), settings(read)
	var out []reading.Field
	for _, k := range slices.Sorted(maps.Keys(r)) {
		if v := r[k]; v != g[k] {
			out = append(out, reading.Field{Name: k, Value: v, Words: v})
		}
	}
	return out
}

// settings are a query's said settings (omitempty leaves the others out)
// as words, by JSON key; nested objects are left to the grammar.
func settings(q sizing.Query) map[string]string {
	b, err := json.Marshal(q)
	out := map[string]string{}
	var m map[string]any
	if err != nil || json.Unmarshal(b, &m) != nil {
		return out
	}
	for k, v := range m {
		switch v := v.(type) {
		case string, float64, bool:
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}
