package sizing

import (
	"cmp"
	"slices"
	"time"
)

// CardsPurchase is what the cards of a serving answer cost to buy, for a
// question that asks which cards to own (Query.Own), from the dated,
// sourced purchase table (data/gpu_prices.csv) buy-or-rent uses.
type CardsPurchase struct {
	// Option is the index in the plan's options of the configuration
	// priced: the first whose card has a purchase price (0 for a capacity
	// answer's named cards).
	Option  int    `json:"option"`
	GPU     string `json:"gpu"`
	GPUName string `json:"gpu_name"`
	// Cards is every card of the configuration: replicas × GPUs per
	// replica; Machines the machines of up to the card's most per machine
	// that hold them.
	Cards    int `json:"cards"`
	Machines int `json:"machines"`
	// CardUSDLow and CardUSDHigh are one card's price range; USDLow and
	// USDHigh are Cards times them, the cards alone.
	CardUSDLow  float64 `json:"card_usd_low"`
	CardUSDHigh float64 `json:"card_usd_high"`
	USDLow      float64 `json:"usd_low"`
	USDHigh     float64 `json:"usd_high"`
	// HostUSD is the machine around the cards, per machine: a fitbot
	// estimate, not a quote.
	HostUSD float64   `json:"host_usd"`
	AsOf    time.Time `json:"as_of"`
	Source  string    `json:"source"`
}

// cardsPurchase prices n cards of gpu to buy; false when the purchase
// table has no price for it.
func cardsPurchase(gpu string, n int) (CardsPurchase, bool) {
	pp, ok := LookupPurchasePrice(gpu)
	if !ok {
		return CardsPurchase{}, false
	}
	g, _, err := LookupGPU(gpu)
	if err != nil {
		return CardsPurchase{}, false
	}
	n = max(n, 1)
	per := MaxPerNode(g)
	return CardsPurchase{
		GPU: g.ID, GPUName: g.Name, Cards: n, Machines: (n + per - 1) / per,
		CardUSDLow: pp.USDLow, CardUSDHigh: pp.USDHigh, USDLow: pp.USDLow * float64(n), USDHigh: pp.USDHigh * float64(n),
		HostUSD: pp.HostUSD, AsOf: pp.AsOf, Source: pp.Source,
	}, true
}

// planPurchase is what the cards of a plan cost to buy: the first
// configuration whose card has a purchase price; nil when none has one.
func planPurchase(opts []ServeOption) *CardsPurchase {
	for i, o := range opts {
		v := o.Serving
		if p, ok := cardsPurchase(o.GPU, max(v.GPUsPerReplica, 1)*max(v.Replicas, 1)); ok {
			p.Option = i
			return &p
		}
	}
	return nil
}

// capacityPurchase is what the named cards of a capacity answer cost to
// buy, all the replicas the load needs; nil when the card has no
// purchase price.
func capacityPurchase(gpu string, c *Serving) *CardsPurchase {
	if c == nil {
		return nil
	}
	if p, ok := cardsPurchase(gpu, max(c.GPUsPerReplica, 1)*max(c.Replicas, 1)); ok {
		return &p
	}
	return nil
}

// inOneMachine orders plan options, already ranked, so that those whose
// cards all fit in one machine come first, each group in its order: a
// company that buys the cards keeps them in one box where it can.
func inOneMachine(opts []ServeOption) {
	slices.SortStableFunc(opts, func(a, b ServeOption) int {
		return cmp.Compare(machinesOf(a), machinesOf(b))
	})
}

// machinesOf is 1 when an option's cards fit in one machine, else 2.
func machinesOf(o ServeOption) int {
	g, _, err := LookupGPU(o.GPU)
	if err != nil {
		return 2
	}
	if max(o.Serving.GPUsPerReplica, 1)*max(o.Serving.Replicas, 1) <= MaxPerNode(g) {
		return 1
	}
	return 2
}
