package pricing

import (
	"strings"
	"time"
)

// How long a price stays fresh. List prices (hyperscalers, Lambda, the
// catalogs' list rows) move a few times a year and are checked daily, so
// they may be days old; marketplace prices move by the hour.
const (
	ListPriceMaxAge   = 14 * 24 * time.Hour // on-demand and reserved list prices
	SpotMaxAge        = 48 * time.Hour      // a hyperscaler's spot price, regenerated every few minutes at the source
	MarketplaceMaxAge = 12 * time.Hour      // RunPod's GPU prices
	VastMaxAge        = 8 * time.Hour       // Vast.ai's medians of live offers: the default refresh (every 6 h) and its slack
)

// MaxAge is how old a price of provider in market may be and still count
// as fresh. A stale price is still shown, with its age, but never ranks
// above a fresh one.
func MaxAge(provider string, m Market) time.Duration {
	switch {
	case provider == "vast":
		return VastMaxAge
	case provider == "runpod":
		return MarketplaceMaxAge
	case m == MarketSpot:
		return SpotMaxAge
	}
	return ListPriceMaxAge
}

// AsOf is when the offer's price was current: its source's publication
// time when the source gives one that is earlier than the observation (a
// feed that stopped being updated still answers today), else the time it
// was observed.
func (o Offer) AsOf() time.Time {
	if !o.PublishedAt.IsZero() && o.PublishedAt.Before(o.ObservedAt) {
		return o.PublishedAt
	}
	return o.ObservedAt
}

// Age is how old the offer's price is at now.
func (o Offer) Age(now time.Time) time.Duration { return now.Sub(o.AsOf()) }

// Stale reports whether the offer's price is older at now than MaxAge
// allows for its provider and market.
func (o Offer) Stale(now time.Time) bool { return o.Age(now) > MaxAge(o.Provider, o.Market) }

// FeedStale reports whether the run's source published its prices longer
// ago at now than its provider's list prices may be old: a feed whose
// publication date stopped moving (AWS's legacy spot feed froze in May
// 2024 and kept answering).
func (r Run) FeedStale(now time.Time) bool {
	return !r.PublishedAt.IsZero() && now.Sub(r.PublishedAt) > MaxAge(r.Provider, MarketOnDemand)
}

// SourceMaxAge is how long a refreshing price source may go without a
// good refresh before it is behind: the default schedule refreshes every
// six hours, so a day is four refreshes missed.
const SourceMaxAge = 24 * time.Hour

// SourceBehind is the one rule for whether the price source provider is
// behind at now, for `fitbot prices` and /readyz (the digest's
// sourceHealth says the same rule's reasons in words): it never
// refreshed successfully (lastGood nil), its latest run did not succeed
// (its prices are then an earlier run's), its last good prices are older
// than SourceMaxAge, or its source stopped publishing (Run.FeedStale). An
// imported sheet (ImportProvider) is a one-off, not a source, and is never
// behind. A single price's freshness is Offer.Stale.
func SourceBehind(provider string, last Run, lastGood *Run, now time.Time) bool {
	switch {
	case strings.HasPrefix(provider, ImportProvider("")):
		return false
	case lastGood == nil || last.Status != RunOK:
		return true
	}
	return now.Sub(lastGood.AsOf) > SourceMaxAge || lastGood.FeedStale(now)
}

// oldestPublication is the earliest publication time among offers; zero
// when none of them carries one.
func oldestPublication(offers []Offer) time.Time {
	var t time.Time
	for _, o := range offers {
		if !o.PublishedAt.IsZero() && (t.IsZero() || o.PublishedAt.Before(t)) {
			t = o.PublishedAt
		}
	}
	return t
}
