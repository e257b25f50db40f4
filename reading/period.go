package reading

import (
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// slowPeriods are the words of vocab.txt's sets base_PERIOD ("period_hour:
// hour hr h") for the periods slower than a second, each with its
// length (sizing.Periods: a month is 730 hours, as costs a month count
// it), and each length's name.
func slowPeriods(base string) (map[string]time.Duration, map[time.Duration]string) {
	words, names := map[string]time.Duration{}, map[time.Duration]string{}
	for w, name := range vocab.values(base) {
		seconds := sizing.Periods[name]
		if seconds <= 1 {
			continue // a second is a speed, read as one
		}
		d := time.Duration(seconds * float64(time.Second))
		words[w], names[d] = d, name
	}
	return words, names
}
