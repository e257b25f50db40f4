package sizing

// CheaperFit returns the cheapest fitting alternative that costs less than
// what a plan cost then (thenPerHour, nil when unknown) and than the asked
// configuration costs now when it fits, or nil when there is none. With a
// token budget the comparison is by the cost of the whole run, so a slower
// card at a lower hourly price is not called cheaper; without one it is by
// the hour. Costs within half a cent count as equal. keep, when not nil,
// leaves out alternatives the caller cannot price.
func (a *Answer) CheaperFit(thenPerHour *float64, keep func(Alternative) bool) *Alternative {
	byRun := a.Throughput.Hours != nil
	cost := func(perHour, total *float64) (float64, bool) {
		if byRun {
			return deref(total)
		}
		return deref(perHour)
	}
	ceiling, bounded := 0.0, false
	if then, ok := deref(thenPerHour); ok {
		if byRun {
			then *= *a.Throughput.Hours
		}
		ceiling, bounded = then, true
	}
	if now, ok := cost(a.Throughput.USDPerHour, a.Throughput.USDTotal); ok && a.Fits && (!bounded || now < ceiling) {
		ceiling, bounded = now, true
	}
	var best *Alternative
	for i := range a.Alternatives {
		alt := &a.Alternatives[i]
		c, ok := cost(alt.USDPerHour, alt.USDTotal)
		if !alt.Fits || !ok || (keep != nil && !keep(*alt)) {
			continue
		}
		if !bounded || c < ceiling-0.005 {
			ceiling, bounded, best = c, true, alt
		}
	}
	return best
}

func deref(p *float64) (float64, bool) {
	if p == nil {
		return 0, false
	}
	return *p, true
}
