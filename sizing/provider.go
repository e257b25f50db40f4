package sizing

import "fmt"

// Provider: a question that names a cloud ("on aws", "at runpod") is
// priced at that cloud only, and a question that names no card is
// answered among the cards that cloud offers. When the cloud prices
// nothing that fits (or not the card named), the answer says so first
// and is priced at any provider, as a question naming none would be.

// ProviderPriceSource looks up one provider's cheapest price of one
// GPU-hour for a catalog GPU id: on-demand, or spot when spot is true.
// An Estimator's Prices implement it to price a question that names a
// provider; without it such a question is answered at any provider.
type ProviderPriceSource interface {
	ProviderGPUHourPrice(gpu, provider string, spot bool) (Price, bool)
}

// providerPrices is a price source limited to one provider's offers.
type providerPrices struct {
	src      ProviderPriceSource
	provider string
}

// GPUHourPrice implements PriceSource.
func (p providerPrices) GPUHourPrice(gpu string) (Price, bool) {
	return p.src.ProviderGPUHourPrice(gpu, p.provider, false)
}

// SpotGPUHourPrice implements SpotPriceSource.
func (p providerPrices) SpotGPUHourPrice(gpu string) (Price, bool) {
	return p.src.ProviderGPUHourPrice(gpu, p.provider, true)
}

// atProvider is e priced at one provider only, and choosing among the
// cards it prices; ok is false when e's prices cannot be told apart by
// provider.
func (e *Estimator) atProvider(provider string) (*Estimator, bool) {
	src, ok := e.Prices.(ProviderPriceSource)
	if !ok {
		return nil, false
	}
	at := *e
	at.Prices, at.provider = providerPrices{src, provider}, provider
	return &at, true
}

// answerAtProvider answers q, which names a provider, at that provider's
// prices; when it prices no card that fits (or not the card named) the
// answer is made at any provider and says so first.
func (e *Estimator) answerAtProvider(q Query) (Answer, error) {
	if at, ok := e.atProvider(q.Provider); ok {
		a, err := at.answer(q)
		if err != nil || a.Price != nil {
			if err == nil {
				a.Assumptions = append([]string{providerNote(q.Provider, a.GPUChosen)}, a.Assumptions...)
			}
			return a, err
		}
	}
	a, err := e.answer(q)
	if err != nil {
		return a, err
	}
	a.Warnings = append([]string{noProviderOffer(q, a)}, a.Warnings...)
	return a, nil
}

// providerNote is the assumption of an answer priced at the provider
// named.
func providerNote(provider string, chosen bool) string {
	if chosen {
		return fmt.Sprintf("priced at %s only: the cards that fit are those %s has a price for", provider, provider)
	}
	return fmt.Sprintf("priced at %s only", provider)
}

// noProviderOffer says that the provider q names prices no card that
// fits it, or not the card it names, and at which provider the answer
// is priced instead.
func noProviderOffer(q Query, a Answer) string {
	instead := "no price known at any provider"
	if a.Price != nil {
		instead = "priced at " + a.Price.Provider + " instead"
	}
	if q.GPU == "" {
		return fmt.Sprintf("%s has no price known for a card that fits this: the cheapest card at any provider is shown, %s", q.Provider, instead)
	}
	return fmt.Sprintf("%s has no price known for the %s: %s", q.Provider, a.GPUName, instead)
}
