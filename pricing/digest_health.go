package pricing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/display"
)

// sourceHealth lists the providers whose prices were stale at the week's
// end or whose refreshes failed during the week, and counts the providers
// that ran. Imported sheets are one-off runs, not sources, and are left
// out.
func sourceHealth(runs []Run, start, end time.Time, staleAfter time.Duration) ([]SourceHealth, int) {
	byProvider := map[string][]Run{}
	for _, r := range runs {
		if strings.HasPrefix(r.Provider, ImportProvider("")) || !r.Started.Before(end) {
			continue
		}
		byProvider[r.Provider] = append(byProvider[r.Provider], r)
	}
	out := []SourceHealth{}
	for _, p := range slices.Sorted(maps.Keys(byProvider)) {
		rs := byProvider[p]
		slices.SortStableFunc(rs, func(a, b Run) int { return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.ID, b.ID)) })
		h := SourceHealth{Provider: p, LastStatus: rs[len(rs)-1].Status}
		for _, r := range rs {
			if r.Status == RunOK && (h.LastGood == nil || r.AsOf.After(*h.LastGood)) {
				asOf := r.AsOf.UTC()
				h.LastGood = &asOf
			}
			if r.Started.Before(start) {
				continue
			}
			h.Runs++
			if r.Status != RunOK {
				h.FailedRuns++
				h.LastError = display.Truncate(r.Error, maxErrorText)
			}
		}
		last := rs[len(rs)-1]
		switch {
		case h.LastGood == nil:
			h.Reason = "no good refresh in two weeks"
		case last.Status != RunOK:
			h.Reason = fmt.Sprintf("last refresh %s; prices from %s", last.Status, h.LastGood.Format("Jan 2 15:04 MST"))
			h.LastError = display.Truncate(last.Error, maxErrorText)
		case last.FeedStale(end):
			h.Reason = fmt.Sprintf("refreshes, but the source has published nothing new since %s", last.PublishedAt.UTC().Format("Jan 2 2006"))
		case end.Sub(*h.LastGood) > staleAfter:
			h.Reason = fmt.Sprintf("no refresh since %s", h.LastGood.Format("Jan 2 15:04 MST"))
		case h.FailedRuns > 0:
			h.Reason = fmt.Sprintf("%d of %d refreshes failed this week", h.FailedRuns, h.Runs)
		default:
			continue
		}
		out = append(out, h)
	}
	return out, len(byProvider)
}
