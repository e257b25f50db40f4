package pricing

import "time"

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
