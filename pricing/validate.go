package pricing

import (
	"fmt"
	"math"
)

// checkOffer says what is wrong with an offer that is about to be stored,
// or nil. It is the gate every refresh and import passes through.
func checkOffer(o Offer) error {
	switch {
	case o.Provider == "":
		return fmt.Errorf("no provider")
	case !isCatalogID(o.GPU):
		return fmt.Errorf("%q is not a catalog GPU id", o.GPU)
	case !(o.GPUCount > 0) || math.IsInf(o.GPUCount, 0):
		return fmt.Errorf("%s: GPU count %g", o.GPU, o.GPUCount)
	case o.Market != MarketOnDemand && o.Market != MarketSpot && o.Market != MarketReserved:
		return fmt.Errorf("%s: market %q", o.GPU, o.Market)
	case !(o.USDPerHour > 0) || math.IsInf(o.USDPerHour, 0):
		return fmt.Errorf("%s %s: price $%g per hour", o.GPU, o.InstanceType, o.USDPerHour)
	case math.Abs(o.USDPerGPUHour*o.GPUCount-o.USDPerHour) > 1e-6*o.USDPerHour:
		return fmt.Errorf("%s %s: $%g per GPU-hour is not $%g / %g GPUs", o.GPU, o.InstanceType, o.USDPerGPUHour, o.USDPerHour, o.GPUCount)
	case o.USDPerGPUHour < MinUSDPerGPUHour || o.USDPerGPUHour > MaxUSDPerGPUHour:
		return fmt.Errorf("%s %s: $%.4g per GPU-hour is outside $%g-$%g", o.GPU, o.InstanceType, o.USDPerGPUHour, MinUSDPerGPUHour, MaxUSDPerGPUHour)
	case o.ObservedAt.IsZero():
		return fmt.Errorf("%s %s: no observation time", o.GPU, o.InstanceType)
	}
	return nil
}
