package answer

import (
	"context"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/sizing"
)

// PlanKind is what a kept plan's question asked (plan.Kind): the faces
// show it and list plans by it.
type PlanKind = plan.Kind

// The plan kinds the faces tell apart.
const (
	PlanFit     = plan.KindFit     // does it fit, how much memory, what it costs
	PlanLargest = plan.KindLargest // the largest model that fits
	PlanContext = plan.KindContext // the longest context that fits
)

// PlanDiff is a kept fit plan answered again today and what changed
// (plan.Diff), as Reanswer returns it.
type PlanDiff = plan.Diff

// PlanVerdict is a kept plan's fits/headroom pair in words: "fits",
// "fits, tight" or "does not fit".
func PlanVerdict(fits bool, headroom string) string { return plan.Verdict(fits, headroom) }

// InversePlanKey is the key the kept plans of one inverse kind that name
// no model share, when words name a plan kind ("largest", "which-gpu");
// ok is false otherwise.
func InversePlanKey(words string) (key string, ok bool) { return plan.InverseKey(words) }

// PlanKey is the key the kept plans of the model words name are filed
// under (aliases and sizes read as a question's model is). Words no
// catalog model reads from may name a cached Hub repo without its
// organisation: cached (nil: none) names it, and the key is the repo's.
// Otherwise the error is the reading's, a *sizing.InputError saying why.
func PlanKey(words string, cached func(words string) (repo string, ok bool)) (string, error) {
	key, err := plan.ModelKeyFor(words)
	if err != nil && cached != nil {
		if repo, ok := cached(words); ok {
			return plan.ModelKey(sizing.Query{Model: repo}), nil
		}
	}
	return key, err
}

// cachedNamer is what a ModelResolver may also do: name the cached Hub
// repo that words name without its organisation, so that `/fit plans
// qwen3 1.7b` finds the plans for Qwen/Qwen3-1.7B.
type cachedNamer interface {
	CachedRepo(ctx context.Context, words string) (string, bool)
}

// PlanKey is the package's PlanKey with the Service's Hub cache: a
// ModelResolver that names cached repos (*hub.Resolver does) finds the
// plans of a Hub model named without its organisation.
func (s *Service) PlanKey(ctx context.Context, words string) (string, error) {
	namer, ok := s.Models.(cachedNamer)
	if !ok {
		return PlanKey(words, nil)
	}
	return PlanKey(words, func(w string) (string, bool) { return namer.CachedRepo(ctx, w) })
}
