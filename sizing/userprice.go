package sizing

import (
	"fmt"
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
		month := perHour * hoursPerMonth
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
