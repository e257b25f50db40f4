package sizing

import "testing"

// ownPrices rents the cards a plan compares, the consumer ones cheapest.
var ownPrices = marketPrices{onDemand: map[string]float64{
	"rtx-3090": 0.22, "rtx-4090": 0.34, "l40s": 0.79, "a100-80-pcie": 1.19, "a100-80": 1.39, "h100": 2.40, "h200": 3.59,
}}

// TestServeOwnPurchase: a plan asked as the cards to buy ("on prem box for 100 users, qwen3 30b-a3b, what do we buy") says what
// the first option's cards cost to buy: count × the card's purchase
// price, with its date and source.
func TestServeOwnPurchase(t *testing.T) {
	p, err := Parse("on prem box for 100 users, qwen3 30b-a3b, what do we buy")
	if err != nil || !p.Query.Own {
		t.Fatalf("Parse = %+v, %v", p.Query, err)
	}
	a, err := (&Estimator{Prices: ownPrices}).Serve(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Serve
	if s == nil || s.Mode != "plan" || len(s.Options) == 0 || s.Purchase == nil {
		t.Fatalf("serve %+v; want a plan with a purchase", s)
	}
	if !a.Request.Own {
		t.Errorf("request.own false")
	}
	b := s.Purchase
	o := s.Options[b.Option]
	cards := o.Serving.GPUsPerReplica * o.Serving.Replicas
	pp, ok := LookupPurchasePrice(o.GPU)
	if !ok || b.GPU != o.GPU || b.Cards != cards {
		t.Fatalf("purchase of %d× %s, want %d× %s (price known %v)", b.Cards, b.GPU, cards, o.GPU, ok)
	}
	if b.USDLow != float64(cards)*pp.USDLow || b.USDHigh != float64(cards)*pp.USDHigh || b.CardUSDLow != pp.USDLow || b.CardUSDHigh != pp.USDHigh {
		t.Errorf("purchase $%v-%v (a card $%v-%v), want %d × $%v-%v", b.USDLow, b.USDHigh, b.CardUSDLow, b.CardUSDHigh, cards, pp.USDLow, pp.USDHigh)
	}
	if !b.AsOf.Equal(pp.AsOf) || b.Source != pp.Source || b.HostUSD != pp.HostUSD || b.Machines != 1 {
		t.Errorf("purchase as of %v from %q, host $%v × %d machines; want %v, %q, $%v × 1", b.AsOf, b.Source, b.HostUSD, b.Machines, pp.AsOf, pp.Source, pp.HostUSD)
	}
	for i := range b.Option {
		if _, ok := LookupPurchasePrice(s.Options[i].GPU); ok {
			t.Errorf("option %d (%s) has a purchase price, yet option %d is priced", i, s.Options[i].GPU, b.Option)
		}
	}

	// Not asked to own: no purchase, the same plan.
	p.Query.Own = false
	rented, err := (&Estimator{Prices: ownPrices}).Serve(p.Query)
	if err != nil || rented.Serve.Purchase != nil || rented.Request.Own {
		t.Errorf("rented plan: purchase %+v, own %v, %v", rented.Serve.Purchase, rented.Request.Own, err)
	}
}

// TestServeOwnOneMachineFirst: owned, the configurations whose cards all
// fit in one machine come before those that need more, each group in the
// rented ranking.
func TestServeOwnOneMachineFirst(t *testing.T) {
	q := Query{Model: "llama-3.1-70b", Method: MethodInference, MicroBatch: 400, Own: true, Serve: ServeLoad{Plan: true}}
	a, err := (&Estimator{Prices: ownPrices}).Serve(q)
	if err != nil {
		t.Fatal(err)
	}
	q.Own = false
	rented, err := (&Estimator{Prices: ownPrices}).Serve(q)
	if err != nil || len(rented.Serve.Options) == 0 || machinesOf(rented.Serve.Options[0]) == 1 {
		t.Fatalf("rented, the cheapest should need several machines (17 × 4× RTX 4090) for this test to order anything: %v", err)
	}
	if len(a.Serve.Options) == 0 || machinesOf(a.Serve.Options[0]) != 1 {
		t.Fatalf("owned, the first option needs several machines")
	}
	seenMore := false
	for i, o := range a.Serve.Options {
		one := machinesOf(o) == 1
		if one && seenMore {
			t.Errorf("option %d (%d × %d× %s) fits one machine but follows one that does not", i, o.Serving.Replicas, o.Serving.GPUsPerReplica, o.GPU)
		}
		seenMore = seenMore || !one
	}
}

// TestServeOwnCapacity: named cards asked to own price those cards, all
// the replicas the load needs.
func TestServeOwnCapacity(t *testing.T) {
	a, err := (&Estimator{Prices: ownPrices}).Serve(Query{Model: "llama-3-8b", GPU: "rtx-4090", GPUs: 2, MicroBatch: 20, Own: true})
	if err != nil {
		t.Fatal(err)
	}
	c, b := a.Serve.Capacity, a.Serve.Purchase
	if c == nil || b == nil {
		t.Fatalf("capacity %+v, purchase %+v", c, b)
	}
	if want := c.GPUsPerReplica * c.Replicas; b.Cards != want || b.USDLow != float64(want)*1600 || b.USDHigh != float64(want)*2000 {
		t.Errorf("purchase %d cards $%v-%v, want %d × $1,600-2,000", b.Cards, b.USDLow, b.USDHigh, want)
	}
}

// TestWhichGPUOwnPurchase: a which-GPU question asked as the card to buy
// ("which card should we order") prices each card it can.
func TestWhichGPUOwnPurchase(t *testing.T) {
	p, err := Parse("which card should we order for llama 3 8b inference")
	if err != nil || p.Intent != IntentWhichGPU || !p.Query.Own {
		t.Fatalf("Parse = %s %+v, %v", p.Intent, p.Query, err)
	}
	a, err := (&Estimator{Prices: ownPrices}).WhichGPU(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	priced := 0
	for _, o := range a.WhichGPU.Options {
		pp, ok := LookupPurchasePrice(o.GPU)
		switch {
		case ok && o.Purchase == nil:
			t.Errorf("%s has a purchase price but no purchase", o.GPU)
		case ok && (o.Purchase.USDLow != float64(o.GPUs)*pp.USDLow || o.Purchase.Cards != o.GPUs):
			t.Errorf("%d× %s: $%v, want %d × $%v", o.GPUs, o.GPU, o.Purchase.USDLow, o.GPUs, pp.USDLow)
		case !ok && o.Purchase != nil:
			t.Errorf("%s has no purchase price but a purchase %+v", o.GPU, o.Purchase)
		case ok:
			priced++
		}
	}
	if priced == 0 {
		t.Error("no card priced")
	}
}
