package sizing

import (
	"fmt"
	"slices"
	"strings"
)

// AtPrice counts a's costs at the asker's own price of one GPU-hour
// ("at $2.5/hr", Money.USDPerGPUHour) instead of the market price it was
// answered at: its hourly, monthly and total cost, its serving cost, and
// the alternatives on the same card (other cards keep their market
// price). The price assumption says whose price it is; Price is the
// asker's, with no provider, market nor date. words are the asker's.
func (a *Answer) AtPrice(usdPerGPUHour float64, words string) {
	if usdPerGPUHour <= 0 {
		return
	}
	market := "no market price known"
	old := 0.0
	if a.Price != nil {
		old = a.Price.USDPerGPUHour
		market = fmt.Sprintf("in place of %s %s at $%.2f", a.Price.Provider, marketWords(a.Price.Market), old)
	}
	scale := func(v *float64) *float64 {
		if v == nil || old <= 0 {
			return nil
		}
		s := *v / old * usdPerGPUHour
		return &s
	}
	t := &a.Throughput
	perHour := usdPerGPUHour * float64(max(a.Request.GPUs, 1))
	t.USDPerHour = &perHour
	if t.Hours != nil {
		total := *t.Hours * perHour
		t.USDTotal = &total
	}
	if t.USDPerMonth != nil || a.Request.PerMonth {
		month := perHour * HoursPerMonth
		t.USDPerMonth = &month
	}
	if sv := a.Serving; sv != nil {
		sv.USDPerHour, sv.USDPerMonth, sv.USDPerMillionOutputTokens = scale(sv.USDPerHour), scale(sv.USDPerMonth), scale(sv.USDPerMillionOutputTokens)
	}
	others := false
	for i := range a.Alternatives {
		alt := &a.Alternatives[i]
		if alt.GPU != a.Request.GPU {
			others = true
			continue
		}
		alt.USDPerHour, alt.USDTotal, alt.USDPerMonth = scale(alt.USDPerHour), scale(alt.USDTotal), scale(alt.USDPerMonth)
	}
	// No provider, market nor date: the price is the asker's (AsOf zero).
	a.Price = &Price{USDPerGPUHour: usdPerGPUHour, Provider: "asked"}
	note := fmt.Sprintf("price $%.2f per GPU-hour as asked (%s), %s", usdPerGPUHour, quote(words), market)
	if others {
		note += "; other cards at their market prices"
	}
	for i, s := range a.Assumptions {
		if strings.HasPrefix(s, "price $") {
			a.Assumptions[i] = note
			return
		}
	}
	a.Assumptions = append(a.Assumptions, note)
}

// AtPrice counts a serving capacity answer's costs at the asker's own
// price of one GPU-hour ("on 2x h100 at $2.5/hr each"), as Answer.AtPrice
// does for a fit; it reports whether it did. Plans compare cards at their
// market prices and are left as they are. The answer's serving result is
// copied, never changed in place.
func (a *AskAnswer) AtPrice(usdPerGPUHour float64, words string) bool {
	if usdPerGPUHour <= 0 || a.Serve == nil || a.Serve.Mode != "capacity" || a.Serve.Capacity == nil {
		return false
	}
	res := *a.Serve
	sv := *res.Capacity
	gpus := float64(max(sv.Replicas, 1) * max(sv.GPUsPerReplica, 1))
	if sv.USDPerHour == nil || *sv.USDPerHour <= 0 {
		return false
	}
	old := *sv.USDPerHour / gpus
	scale := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		s := *v / old * usdPerGPUHour
		return &s
	}
	sv.USDPerHour, sv.USDPerMonth, sv.USDPerMillionOutputTokens = scale(sv.USDPerHour), scale(sv.USDPerMonth), scale(sv.USDPerMillionOutputTokens)
	res.Capacity = &sv
	a.Serve = &res
	note := fmt.Sprintf("price $%.2f per GPU-hour as asked (%s), in place of $%.2f", usdPerGPUHour, quote(words), old)
	a.Assumptions = slices.Clone(a.Assumptions)
	for i, s := range a.Assumptions {
		if strings.HasPrefix(s, "price $") {
			a.Assumptions[i] = note
			return true
		}
	}
	a.Assumptions = append(a.Assumptions, note)
	return true
}
