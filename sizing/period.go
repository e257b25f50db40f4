package sizing

// Periods are the periods a serving question may ask the tokens of
// (ServeLoad.TokensPer), in seconds; a month is HoursPerMonth.
var Periods = map[string]float64{
	"second": 1,
	"minute": 60,
	"hour":   3600,
	"day":    86400,
	"week":   7 * 86400,
	"month":  HoursPerMonth * 3600,
}
