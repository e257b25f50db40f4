package reading

import (
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// stubPrices is a sizing.PriceSource with fixed per-GPU-hour prices.
type stubPrices map[string]float64

func (f stubPrices) GPUHourPrice(gpu string) (sizing.Price, bool) {
	p, ok := f[gpu]
	if !ok {
		return sizing.Price{}, false
	}
	return sizing.Price{USDPerGPUHour: p, Provider: "fake", Market: "on_demand", AsOf: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}, true
}

var servePrices = stubPrices{"h100": 2.5, "a100-80": 1.6, "l4": 0.7, "b200": 5.5, "rtx-4090": 0.6}

func anyHasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
