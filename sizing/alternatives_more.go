package sizing

import (
	"fmt"
	"strings"
)

// otherCardChanges is the last resort of the alternatives search: when
// no change fits on the asked card and nothing fits as asked on another
// (a 14B LoRA at 8k tokens and micro-batch 4 on a 4090), the smallest
// change that fits on each other card is found, and the cheapest of
// those cards (by price per hour, by card memory when unpriced) is
// offered, so that a question that does not fit always gets a way that
// does when the catalog has one.
func (e *Estimator) otherCardChanges(rs *resolved) []altCandidate {
	cat := loadCatalog()
	var best *altCandidate
	for i := range cat.gpus {
		g := cat.gpus[i]
		if g.ID == rs.req.GPU || (g.UnifiedMemory && rs.req.Method != MethodInference) {
			continue
		}
		other := *rs
		other.gpu, other.gpuNamed = g, true
		other.req.GPU = g.ID
		found := e.sameCard(&other)
		if len(found) == 0 {
			continue
		}
		c := found[0]
		c.why = strings.Replace(c.why, "on the same card", fmt.Sprintf("on %d× %s", c.req.GPUs, g.Name), 1)
		c.why = strings.Replace(c.why, "on the same ", "on ", 1)
		if best == nil || cheaperCandidate(&c, best) {
			best = &c
		}
	}
	if best == nil {
		return nil
	}
	return []altCandidate{*best}
}

// cheaperCandidate orders candidates: priced before unpriced, then by
// price per hour, then by the memory of all their cards, then by id.
func cheaperCandidate(a, b *altCandidate) bool {
	switch {
	case a.priced != b.priced:
		return a.priced
	case a.priced && a.perHour != b.perHour:
		return a.perHour < b.perHour
	case a.vram != b.vram:
		return a.vram < b.vram
	}
	return a.req.GPU < b.req.GPU
}
