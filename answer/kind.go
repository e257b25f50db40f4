package answer

import "github.com/fitbot/fitbot/reading"

// Kind is what a question asks, and so what its answer is: the `kind`
// of every JSON answer.
type Kind string

// The kinds of question. The four that run the other way round are
// named as their intents are (sizing.IntentLargest...).
const (
	KindFit        Kind = "fit"           // does it fit, and at what cost
	KindLargest    Kind = "largest_model" // the largest model that fits
	KindMaxContext Kind = "max_context"   // the longest context that fits
	KindWhichGPU   Kind = "which_gpu"     // every card that fits, cheapest first
	KindBuyRent    Kind = "buy_vs_rent"   // buy or rent
	KindPrices     Kind = "prices"        // GPU prices: of the GPUs named, or of every GPU
	KindGreeting   Kind = "greeting"      // small talk that greets: "hello there"
	KindChat       Kind = "chat"          // other small talk and thanks
	KindHelp       Kind = "help"          // what fitbot can do
	KindPlans      Kind = "plans"         // the team's earlier plans for a model: Route.Plans
	KindPlan       Kind = "plan"          // one kept plan, answered again: Route.Args is its id
	KindHardware   Kind = "hardware"      // the team's own machines: Route.Args lists, adds or removes
	KindGPUs       Kind = "gpus"          // the GPUs fitbot knows
	KindModels     Kind = "models"        // the models fitbot knows
)

// commandKinds are the kinds of fitbot's own commands, by their route.
var commandKinds = map[reading.RouteKind]Kind{reading.RouteCluster: KindCluster, reading.RoutePlan: KindPlan,
	reading.RouteHardware: KindHardware, reading.RouteGPUs: KindGPUs, reading.RouteModels: KindModels}

// Kind is what the question asks.
func (q Question) Kind() Kind {
	switch q.Route.Kind {
	case reading.RoutePrice:
		return KindPrices
	case reading.RouteChat:
		if q.Route.Greeting {
			return KindGreeting
		}
		return KindChat
	case reading.RouteHelp:
		return KindHelp
	case reading.RoutePlans:
		return KindPlans
	}
	if k, ok := commandKinds[q.Route.Kind]; ok {
		return k
	}
	if q.Compared() {
		return KindCompare
	}
	if q.Ask() {
		return Kind(q.Parsed.Intent)
	}
	return KindFit
}
