package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
)

// takeChartFlag removes --chart FILE (or --chart=FILE) from args.
func takeChartFlag(args []string) ([]string, string, error) {
	var rest []string
	path := ""
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--":
			return append(rest, args[i:]...), path, nil
		case arg == "--chart" || arg == "-chart":
			if i+1 >= len(args) {
				return nil, "", errors.New("--chart needs a file: --chart h100.png")
			}
			i++
			path = args[i]
		case strings.HasPrefix(arg, "--chart="):
			path = strings.TrimPrefix(arg, "--chart=")
		default:
			rest = append(rest, arg)
		}
	}
	return rest, path, nil
}

// writePriceChart is `fitbot prices --chart FILE.png GPU`: the GPU's price
// history over chart.HistoryDays from the store's observations.
func (a *app) writePriceChart(ctx context.Context, path, gpu string, now time.Time) error {
	if gpu == "" {
		return usageError("--chart draws one GPU's price history: name the GPU", "fitbot prices --chart h100.png h100")
	}
	obs, err := a.observations(ctx, chart.HistoryDays, now)
	if err != nil {
		return err
	}
	name := gpu
	if g, _, err := sizing.LookupGPU(gpu); err == nil {
		name = g.Name
	}
	d := chart.Prices(name, gpu, obs, now)
	png, err := chart.PricesPNG(d)
	if err != nil {
		return failure(fmt.Sprintf("draw the price chart: %v", err), "")
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return failure(fmt.Sprintf("write --chart: %v", err), "fitbot prices --chart h100.png h100")
	}
	if len(d.Series) == 0 {
		fmt.Fprintf(a.stderr, "fitbot: no on-demand %s prices observed in the last %d days; run fitbot prices refresh or import a sheet\n", gpu, chart.HistoryDays)
	}
	return nil
}

// observations are the prices the database observed over the last days
// before now; none when there is no database (the built-in sheet holds
// no prices over time).
func (a *app) observations(ctx context.Context, days int, now time.Time) ([]pricing.Offer, error) {
	if !a.dbExists() {
		return nil, nil
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	defer a.closeStore(db)
	obs, err := db.ObservationsBetween(ctx, now.AddDate(0, 0, -days), now)
	if err != nil {
		return nil, failure(fmt.Sprintf("read the price history: %v", err), "")
	}
	return obs, nil
}
