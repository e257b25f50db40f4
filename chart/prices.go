package chart

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fitbot/fitbot/pricing"
)

// HistoryDays is how far back the price picture looks.
const HistoryDays = 90

// moveThreshold is the change of a provider's cheapest price from one
// observed day to the next that the picture marks as a move.
const moveThreshold = 0.05

// PriceData is everything the price picture shows: each provider's
// cheapest on-demand price per GPU-hour, day by day, and its moves.
type PriceData struct {
	Title  string        `json:"title"`
	From   time.Time     `json:"from"`
	To     time.Time     `json:"to"`
	Series []PriceSeries `json:"series"`
}

// PriceSeries is one provider's line.
type PriceSeries struct {
	Provider string       `json:"provider"`
	Points   []PricePoint `json:"points"`
	Moves    []PricePoint `json:"moves"` // days whose price moved by 5% or more from the previous observed day
}

// PricePoint is one day's cheapest price per GPU-hour; ChangePct is its
// change from the previous observed day, set on moves.
type PricePoint struct {
	Day       string  `json:"day"` // 2006-01-02, UTC
	USD       float64 `json:"usd_per_gpu_hour"`
	ChangePct float64 `json:"change_pct,omitempty"`
}

// moveDotRadius is the size of a move's dot, in pixels.
const moveDotRadius = 10

// maxProviders keeps the picture to a few lines: the cheapest providers
// by their latest price.
const maxProviders = 5

// Prices is the data of a GPU's price picture from the price
// observations of the HistoryDays before to: per provider and UTC day, the
// cheapest on-demand whole-GPU price per GPU-hour.
func Prices(gpuName, gpu string, observations []pricing.Offer, to time.Time) PriceData {
	from := to.AddDate(0, 0, -HistoryDays)
	daily := map[string]map[string]float64{}
	for _, o := range observations {
		if o.GPU != gpu || o.Market != pricing.MarketOnDemand || o.Fractional() || o.ObservedAt.Before(from) || !o.ObservedAt.Before(to) {
			continue
		}
		day := o.ObservedAt.UTC().Format(time.DateOnly)
		if daily[o.Provider] == nil {
			daily[o.Provider] = map[string]float64{}
		}
		if cur, ok := daily[o.Provider][day]; !ok || o.USDPerGPUHour < cur {
			daily[o.Provider][day] = o.USDPerGPUHour
		}
	}
	d := PriceData{From: from, To: to}
	for provider, days := range daily {
		s := PriceSeries{Provider: provider}
		keys := make([]string, 0, len(days))
		for k := range days {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			pt := PricePoint{Day: k, USD: round2(days[k])}
			s.Points = append(s.Points, pt)
			if i > 0 {
				prev := s.Points[i-1].USD
				if prev > 0 && math.Abs(pt.USD-prev)/prev >= moveThreshold {
					mv := pt
					mv.ChangePct = math.Round((pt.USD-prev)/prev*1000) / 10
					s.Moves = append(s.Moves, mv)
				}
			}
		}
		d.Series = append(d.Series, s)
	}
	latest := func(s PriceSeries) float64 { return s.Points[len(s.Points)-1].USD }
	slices.SortFunc(d.Series, func(a, b PriceSeries) int {
		return cmp.Or(cmp.Compare(latest(a), latest(b)), cmp.Compare(a.Provider, b.Provider))
	})
	if len(d.Series) > maxProviders {
		d.Series = d.Series[:maxProviders]
	}
	moves := 0
	for _, s := range d.Series {
		moves += len(s.Moves)
	}
	switch {
	case len(d.Series) == 0:
		d.Title = fmt.Sprintf("%s: no on-demand prices in the last %d days", gpuName, HistoryDays)
	default:
		best := d.Series[0]
		d.Title = fmt.Sprintf("%s: cheapest $%.2f/GPU-hour (%s)\non-demand, last %d days, %d %s", gpuName, latest(best), best.Provider,
			HistoryDays, moves, plural(moves, "move", "moves"))
	}
	return d
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// PricesPNG draws the price picture: one line per provider, US dollars
// per GPU-hour against the date, each price held until the next (steps), moves marked with a red dot and their change in per cent.
func PricesPNG(d PriceData) ([]byte, error) {
	p, _, err := pricesPlot(d)
	if err != nil {
		return nil, err
	}
	return render(p)
}

// pricesPlot is the price picture before it is drawn, and its move
// labels, which know where they went once it is.
func pricesPlot(d PriceData) (*plot.Plot, *moveLabels, error) {
	p := newPlot(d.Title)
	p.Y.Label.Text = "$ per GPU-hour"
	p.X.Tick.Marker = dayTicks{}
	p.X.Min, p.X.Max = float64(d.From.Unix()), float64(d.To.Unix())
	p.Y.Min = 0
	p.Y.Tick.Marker = niceTicks{}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = vg.Length(4)
	labels := &moveLabels{named: len(d.Series) > 1}
	top := 0.0
	for i, s := range d.Series {
		xys := make(plotter.XYs, len(s.Points))
		for j, pt := range s.Points {
			xys[j] = plotter.XY{X: dayUnix(pt.Day), Y: pt.USD}
			top = max(top, pt.USD)
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, nil, fmt.Errorf("line %s: %w", s.Provider, err)
		}
		line.StepStyle = plotter.PostStep // a price holds until the next one
		line.LineStyle.Width = vg.Length(5)
		line.LineStyle.Color = palette[i%len(palette)]
		p.Add(line)
		p.Legend.Add(s.Provider, line)
		labels.legend = append(labels.legend, s.Provider)
		labels.steps = append(labels.steps, xys)
		if len(s.Moves) == 0 {
			continue
		}
		mv := make(plotter.XYs, len(s.Moves))
		for j, pt := range s.Moves {
			mv[j] = plotter.XY{X: dayUnix(pt.Day), Y: pt.USD}
		}
		marks, err := plotter.NewScatter(mv)
		if err != nil {
			return nil, nil, fmt.Errorf("moves %s: %w", s.Provider, err)
		}
		marks.GlyphStyle.Shape = draw.CircleGlyph{}
		marks.GlyphStyle.Radius = vg.Length(moveDotRadius)
		marks.GlyphStyle.Color = red
		p.Add(marks)
		for _, pt := range s.Moves {
			labels.moves = append(labels.moves, move{x: dayUnix(pt.Day), y: pt.USD, changePct: pt.ChangePct, provider: s.Provider})
		}
	}
	p.Add(labels)                    // last: the labels find room around everything else
	p.Y.Max = math.Max(top*1.6, 0.5) // room for the legend above the lines
	return p, labels, nil
}

// dayUnix is the Unix time of a UTC day's noon, so a day sits in the
// middle of its tick.
func dayUnix(day string) float64 {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return 0
	}
	return float64(t.Add(12 * time.Hour).Unix())
}

// dayTicks marks every second or third week on a time axis in Unix
// seconds, at UTC midnight.
type dayTicks struct{}

// Ticks implements plot.Ticker.
func (dayTicks) Ticks(lo, hi float64) []plot.Tick {
	const day = 24 * 3600
	span := (hi - lo) / day
	step := 7.0
	for span/step > 6 {
		step *= 2
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/day) * day; v <= hi; v += step * day {
		ticks = append(ticks, plot.Tick{Value: v, Label: time.Unix(int64(v), 0).UTC().Format("Jan 2")})
	}
	return ticks
}
