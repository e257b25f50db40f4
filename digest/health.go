package digest

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/pricing"

	"github.com/fitbot/fitbot/display"
)

// maxHeldNamed caps the held offers a provider's health names.
const maxHeldNamed = 3

// sourceHealth lists the providers whose prices were stale at the week's
// end, whose refreshes failed during the week, or whose offers were held
// aside as implausible (held), and counts the providers that ran.
// Imported sheets are one-off runs, not sources, and are left out.
func sourceHealth(runs []pricing.Run, held []pricing.Hold, start, end time.Time, staleAfter time.Duration) ([]SourceHealth, int) {
	heldBy := map[string][]pricing.Hold{}
	for _, h := range held {
		if !h.LastHeldAt.Before(start) && h.LastHeldAt.Before(end) {
			heldBy[h.Refresh] = append(heldBy[h.Refresh], h)
		}
	}
	byProvider := map[string][]pricing.Run{}
	for _, r := range runs {
		if strings.HasPrefix(r.Provider, pricing.ImportProvider("")) || !r.Started.Before(end) {
			continue
		}
		byProvider[r.Provider] = append(byProvider[r.Provider], r)
	}
	out := []SourceHealth{}
	for _, p := range slices.Sorted(maps.Keys(byProvider)) {
		rs := byProvider[p]
		slices.SortStableFunc(rs, func(a, b pricing.Run) int { return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID)) })
		h := SourceHealth{Provider: p, LastStatus: rs[len(rs)-1].Status}
		for _, r := range rs {
			if r.Status == pricing.RunOK && (h.LastGood == nil || r.AsOf.After(*h.LastGood)) {
				asOf := r.AsOf.UTC()
				h.LastGood = &asOf
			}
			if r.Started.Before(start) {
				continue
			}
			h.Runs++
			if r.Status != pricing.RunOK {
				h.FailedRuns++
				h.LastError = display.Truncate(r.Error, maxErrorText)
			}
		}
		last := rs[len(rs)-1]
		switch {
		case h.LastGood == nil:
			h.Reason = "no good refresh in two weeks"
		case last.Status != pricing.RunOK:
			h.Reason = fmt.Sprintf("last refresh %s; prices from %s", last.Status, h.LastGood.Format("Jan 2 15:04 MST"))
			h.LastError = display.Truncate(last.Error, maxErrorText)
		case last.FeedStale(end):
			h.Reason = fmt.Sprintf("refreshes, but the source has published nothing new since %s", last.PublishedAt.UTC().Format("Jan 2 2006"))
		case end.Sub(*h.LastGood) > staleAfter:
			h.Reason = fmt.Sprintf("no refresh since %s", h.LastGood.Format("Jan 2 15:04 MST"))
		case h.FailedRuns > 0:
			h.Reason = fmt.Sprintf("%d of %d refreshes failed this week", h.FailedRuns, h.Runs)
		}
		if hs := heldBy[p]; len(hs) > 0 {
			slices.SortStableFunc(hs, func(a, b pricing.Hold) int { return b.LastHeldAt.Compare(a.LastHeldAt) })
			h.HeldOffers = len(hs)
			for _, x := range hs[:min(len(hs), maxHeldNamed)] {
				h.Held = append(h.Held, x.Reason())
			}
			held := fmt.Sprintf("%d offers held aside as implausible (a second refresh at the same price lets them in)", len(hs))
			if len(hs) == 1 {
				held = "1 offer held aside as implausible (a second refresh at the same price lets it in)"
			}
			h.Reason = strings.TrimPrefix(h.Reason+"; "+held, "; ")
		}
		if h.Reason == "" {
			continue
		}
		out = append(out, h)
	}
	return out, len(byProvider)
}
