package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

const pricesUsage = `Usage: fitbot prices [--json] [GPU]
       fitbot prices --chart FILE.png GPU
       fitbot prices refresh [--json] [--provider NAME]
       fitbot prices import [--at TIME] FILE.csv

"prices" shows, per GPU, the cheapest on-demand and spot offer with its
provider, region and age; with a GPU (h100 sxm, "rtx 4090", a100-80), every
current offer for it; with a family (a100, h100), every offer for each
variant. A stale price is marked and never the cheapest. Before the first
refresh or import it shows fitbot's built-in price sheet and says how old
it is.

"prices --chart FILE.png GPU" draws the GPU's price history as a PNG:
each provider's cheapest on-demand price per GPU-hour, day by day, over
the last 90 days, with the moves of 5% or more ringed.

"prices refresh" fetches now from the configured providers: aws, azure,
runpod, vast and the public gpuhunt and skypilot catalogs always (one run
per catalog file, e.g. gpuhunt:nebius); lambda with LAMBDA_API_KEY, gcp
with GCP_API_KEY. FITBOT_<PROVIDER>_URL points a provider at a mirror. A
provider that fails keeps its last good prices; the exit code is 1 when
any failed.

"prices import" stores a price sheet (negotiated rates, on-premises cost,
backfilled history): a CSV with the header
  provider,gpu,gpu_count,region,pricing,usd_per_hour,instance_type
then optionally tier, as_of and source columns. usd_per_hour is for the
whole offer; pricing is on_demand, spot or reserved. --at TIME (RFC 3339)
dates rows without as_of (default now). A file with any bad line is
refused whole, with every bad line listed.

The database is FITBOT_DB, else ./fitbot.db.
`

// refreshHTTPTimeout bounds one provider request; the refresher bounds a
// whole provider.
const refreshHTTPTimeout = 60 * time.Second

// prices is `fitbot prices`.
func (a *app) prices(ctx context.Context, args []string) error {
	if len(args) > 0 {
		switch args[0] {
		case "refresh":
			return a.pricesRefresh(ctx, args[1:])
		case "import":
			return a.pricesImport(ctx, args[1:])
		}
	}
	var f struct {
		json, help bool
		words      []string
	}
	args, chartPath, err := takeChartFlag(args)
	if err != nil {
		return usageError(err.Error(), "fitbot prices --chart h100.png h100")
	}
	for i, arg := range args {
		switch {
		case arg == "--json" || arg == "-json":
			f.json = true
		case arg == "-h" || arg == "-help" || arg == "--help":
			f.help = true
		case arg == "--":
			f.words = append(f.words, args[i+1:]...)
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			return usageError("unknown flag "+arg, "fitbot prices --json h100")
		default:
			f.words = append(f.words, arg)
		}
		if arg == "--" {
			break
		}
	}
	if f.help {
		fmt.Fprint(a.stdout, pricesUsage)
		return nil
	}
	// A family name ("a100") lists every variant; any other name is one GPU.
	gpu, note := "", ""
	name := strings.Join(f.words, " ")
	family := pricing.GPUFamily(name)
	switch {
	case family != nil:
		gpu = strings.ToLower(strings.TrimSpace(name))
	case name != "":
		g, assumed, err := sizing.LookupGPU(name)
		if err != nil {
			// More than a card ("spot h100", "h100 on runpod"): read as the
			// same price question asked in words, as Slack does.
			if svc, _ := a.answers(); chartPath == "" {
				if q := svc.Read("prices " + name); q.Kind() == answer.KindPrices && len(q.Route.GPUs) > 0 {
					return a.routedPrices(ctx, fitArgs{json: f.json}, q.Route)
				}
			}
			return usageError(err.Error(), "fitbot prices h100 (a GPU id or name from the catalog)")
		}
		gpu = g.ID
		if !strings.EqualFold(strings.TrimSpace(name), g.ID) {
			note = assumed
		}
	}

	if chartPath != "" {
		return a.writePriceChart(ctx, chartPath, gpu, time.Now().UTC())
	}
	view, err := a.loadPrices(ctx)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	if f.json {
		return a.writeJSON(view.output(gpu, family, now))
	}
	if note != "" {
		fmt.Fprintf(a.stdout, "(%s)\n", note)
	}
	switch {
	case family != nil:
		writeFamilyOffers(a.stdout, gpu, view.offersFor(family...), view.snap, now)
		writeHeldOffers(a.stdout, view.heldFor(family...))
	case gpu == "":
		writeCheapest(a.stdout, view.snap, now)
	default:
		writeOffers(a.stdout, gpu, view.offersFor(gpu), view.snap, now)
		writeHeldOffers(a.stdout, view.heldFor(gpu))
	}
	view.writeFooter(a.stdout, now)
	return nil
}

// priceView is what `fitbot prices` shows: the store's current offers, or
// the default sheet when the store has none.
type priceView struct {
	fromSheet bool
	snap      *pricing.Snapshot
	health    []store.ProviderHealth
	held      []pricing.Hold // the offers held aside as implausible now
	dbPath    string
}

// loadPrices reads the current offers without creating a database that
// is not there.
func (a *app) loadPrices(ctx context.Context) (priceView, error) {
	v := priceView{fromSheet: true, snap: pricing.DefaultSheet(), dbPath: a.dbPath()}
	if !a.dbExists() {
		return v, nil
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return v, err
	}
	defer a.closeStore(db)
	snap, err := db.PriceSnapshot(ctx)
	if err != nil {
		return v, failure(err.Error(), "")
	}
	if v.health, err = db.ProviderHealth(ctx); err != nil {
		return v, failure(err.Error(), "")
	}
	if v.held, err = db.HeldOffers(ctx); err != nil {
		return v, failure(err.Error(), "")
	}
	if snap.Len() > 0 {
		v.fromSheet, v.snap = false, snap
	}
	return v, nil
}

// offersFor returns the offers for any of gpus, by GPU in the order
// given, then as "cheapest" ranks them (pricing.CompareOffers).
func (v priceView) offersFor(gpus ...string) []pricing.Offer {
	var out []pricing.Offer
	for _, o := range v.snap.Offers() {
		if slices.Contains(gpus, o.GPU) {
			out = append(out, o)
		}
	}
	at := v.snap.At()
	slices.SortStableFunc(out, func(a, b pricing.Offer) int {
		return cmp.Or(cmp.Compare(slices.Index(gpus, a.GPU), slices.Index(gpus, b.GPU)), pricing.CompareOffers(a, b, at))
	})
	return out
}

// heldFor returns the held offers of any of gpus.
func (v priceView) heldFor(gpus ...string) []pricing.Hold {
	var out []pricing.Hold
	for _, h := range v.held {
		if slices.Contains(gpus, h.Offer.GPU) {
			out = append(out, h)
		}
	}
	return out
}

// writeHeldOffers says which offers for the GPU asked are held aside and
// why: "1 offer held: $0.06/GPU-h is below what an H100 costs to own".
func writeHeldOffers(w io.Writer, held []pricing.Hold) {
	switch len(held) {
	case 0:
		return
	case 1:
		fmt.Fprintf(w, "1 offer held (not quoted; a second refresh at the same price lets it in): %s, %s\n", held[0].Refresh, held[0].Reason())
		return
	}
	fmt.Fprintf(w, "%d offers held (not quoted; a second refresh at the same price lets them in):\n", len(held))
	for _, h := range held {
		fmt.Fprintf(w, "  %s, %s\n", h.Refresh, h.Reason())
	}
}

// offerAge is an offer's age for a table: "6h", or "40d stale" past its
// provider's limit.
func offerAge(now time.Time, o pricing.Offer) string {
	s := age(now, o.AsOf())
	if o.Stale(now) {
		s += " stale"
	}
	return s
}

// stale lists the providers whose prices are behind (pricing.SourceBehind).
func (v priceView) stale(now time.Time) []store.ProviderHealth {
	var out []store.ProviderHealth
	for _, h := range v.health {
		if h.Stale(now) {
			out = append(out, h)
		}
	}
	return out
}

// writeCheapest lists every GPU's cheapest offers, and under the table,
// each cheaper offer the freshness rule passed over for a fresher one.
func writeCheapest(w io.Writer, snap *pricing.Snapshot, now time.Time) {
	cheapest := snap.CheapestPerGPU()
	tw := newTable(w)
	fmt.Fprintln(tw, "GPU\tON DEMAND $/GPU-h\tPROVIDER\tREGION\tAGE\tSPOT $/GPU-h\tPROVIDER\tREGION\tAGE")
	for i := 0; i < len(cheapest); {
		gpu := cheapest[i].GPU
		cols := map[pricing.Market][]string{}
		for ; i < len(cheapest) && cheapest[i].GPU == gpu; i++ {
			o := cheapest[i]
			cols[o.Market] = []string{fmt.Sprintf("%.2f", o.USDPerGPUHour), providerLabel(o), cmp.Or(o.Region, "-"), offerAge(now, o)}
		}
		row := []string{gpu}
		for _, m := range []pricing.Market{pricing.MarketOnDemand, pricing.MarketSpot} {
			c, ok := cols[m]
			if !ok {
				c = []string{"-", "", "", ""}
			}
			row = append(row, c...)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	tw.Flush()
	for _, o := range cheapest {
		if old, ok := snap.PassedOver(o.GPU, o.Market); ok {
			fmt.Fprintf(w, "%s %s: %s's $%.2f is stale (%s old); %s's $%.2f is newer (%s).\n", o.GPU, marketWords(o.Market),
				providerLabel(old), old.USDPerGPUHour, age(now, old.AsOf()), providerLabel(o), o.USDPerGPUHour, age(now, o.AsOf()))
		}
	}
}

// marketWords is a market as a line says it: "on demand", "spot".
func marketWords(m pricing.Market) string { return strings.ReplaceAll(string(m), "_", " ") }

// offerCell is an offer's AGE cell in a list of offers: its age, marked
// stale past its provider's limit with the source that is newer where a
// fresher one ranks cheapest, and a spot offer above its own on-demand
// price flagged.
func offerCell(snap *pricing.Snapshot, now time.Time, o pricing.Offer) string {
	s := offerAge(now, o)
	if win, ok := snap.Cheapest(o.GPU, o.Market); ok && o.Stale(now) && !win.Stale(now) {
		s += ", " + providerLabel(win) + " is newer"
	}
	if od, ok := snap.SpotAbove(o); ok {
		s += fmt.Sprintf(", above its on-demand $%.2f", od.USDPerGPUHour)
	}
	return s
}

func writeOffers(w io.Writer, gpu string, offers []pricing.Offer, snap *pricing.Snapshot, now time.Time) {
	if len(offers) == 0 {
		fmt.Fprintf(w, "No current offers for %s.\n", gpu)
		return
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "$/GPU-h\tPROVIDER\tMARKET\tREGION\tINSTANCE\tGPUS\t$/h\tAGE")
	for _, o := range offers {
		fmt.Fprintf(tw, "%.2f\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n", o.USDPerGPUHour, providerLabel(o), o.Market,
			cmp.Or(o.Region, "-"), cmp.Or(o.InstanceType, "-"), gpuCount(o.GPUCount), o.USDPerHour, offerCell(snap, now, o))
	}
	tw.Flush()
}

// writeFamilyOffers lists the offers of every variant of a GPU family
// (`fitbot prices a100`), each row naming its variant.
func writeFamilyOffers(w io.Writer, family string, offers []pricing.Offer, snap *pricing.Snapshot, now time.Time) {
	if len(offers) == 0 {
		fmt.Fprintf(w, "No current offers for any %s.\n", strings.ToUpper(family))
		return
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "VARIANT\t$/GPU-h\tPROVIDER\tMARKET\tREGION\tINSTANCE\tGPUS\t$/h\tAGE")
	for _, o := range offers {
		fmt.Fprintf(tw, "%s\t%.2f\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n", display.GPUName(o.GPU), o.USDPerGPUHour, providerLabel(o), o.Market,
			cmp.Or(o.Region, "-"), cmp.Or(o.InstanceType, "-"), gpuCount(o.GPUCount), o.USDPerHour, offerCell(snap, now, o))
	}
	tw.Flush()
}

func (v priceView) writeFooter(w io.Writer, now time.Time) {
	fmt.Fprintln(w)
	if v.fromSheet {
		fmt.Fprintf(w, "From fitbot's built-in price sheet: public list and marketplace prices dated %s to %s (the oldest %s old).\n",
			v.snap.Oldest().Format(time.DateOnly), v.snap.Newest().Format(time.DateOnly), age(now, v.snap.Oldest()))
		fmt.Fprintln(w, "Run fitbot prices refresh for today's prices.")
		return
	}
	fmt.Fprintf(w, "Per GPU-hour in USD, whole GPUs (fractional slices are listed per GPU but never cheapest). From %s.\n", v.dbPath)
	for _, h := range v.stale(now) {
		switch {
		case h.LastGood == nil:
			fmt.Fprintf(w, "Stale: %s has never refreshed; its last run %s: %s\n", h.Provider, h.Last.Status, h.Last.Error)
		case h.Last.Status != pricing.RunOK:
			fmt.Fprintf(w, "Stale: %s prices are from %s ago; its last run %s: %s\n", h.Provider, age(now, h.LastGood.AsOf), h.Last.Status, h.Last.Error)
		default:
			fmt.Fprintf(w, "Stale: %s prices are from %s ago.\n", h.Provider, age(now, h.LastGood.AsOf))
		}
	}
}

// table is a tabwriter whose Flush writes lines without trailing blanks
// (empty last columns leave none).
type table struct {
	*tabwriter.Writer
	buf bytes.Buffer
	out io.Writer
}

func newTable(w io.Writer) *table {
	t := &table{out: w}
	t.Writer = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	return t
}

// Flush writes the aligned table.
func (t *table) Flush() {
	t.Writer.Flush()
	for line := range strings.Lines(t.buf.String()) {
		fmt.Fprintln(t.out, strings.TrimRight(line, " \n"))
	}
	t.buf.Reset()
}

// providerLabel is the provider with its tier, e.g. "runpod community".
func providerLabel(o pricing.Offer) string {
	if o.Tier == "" {
		return o.Provider
	}
	return o.Provider + " " + o.Tier
}

func gpuCount(n float64) string {
	if n == float64(int(n)) {
		return fmt.Sprintf("%d", int(n))
	}
	return fmt.Sprintf("%.3g", n)
}

// age is how long ago t was, in the largest unit that fits: 45m, 6h, 12d.
func age(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	default:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
}

// offerJSON is one offer in `fitbot prices --json`.
type offerJSON struct {
	Provider      string     `json:"provider"`
	Tier          string     `json:"tier"`
	Market        string     `json:"market"`
	GPU           string     `json:"gpu"`
	GPUCount      float64    `json:"gpu_count"`
	Region        string     `json:"region"`
	InstanceType  string     `json:"instance_type"`
	USDPerHour    float64    `json:"usd_per_hour"`
	USDPerGPUHour float64    `json:"usd_per_gpu_hour"`
	ObservedAt    time.Time  `json:"observed_at"`
	PublishedAt   *time.Time `json:"published_at"` // the source's publication time, when it gives one
	AgeSeconds    int64      `json:"age_seconds"`  // from published_at when earlier than observed_at
	Stale         bool       `json:"stale"`        // older than the provider's freshness limit
	Source        string     `json:"source"`
}

type gpuPricesJSON struct {
	GPU      string     `json:"gpu"`
	OnDemand *offerJSON `json:"on_demand"`
	Spot     *offerJSON `json:"spot"`
}

type staleJSON struct {
	Provider   string     `json:"provider"`
	LastStatus string     `json:"last_status"`
	LastError  string     `json:"last_error"`
	LastGoodAt *time.Time `json:"last_good_at"`
}

// pricesJSON is `fitbot prices --json`: cheapest holds the cheapest per
// GPU (no GPU given), offers every offer for one GPU.
type pricesJSON struct {
	Source         string          `json:"source"` // "store" or "default_sheet"
	OldestAt       time.Time       `json:"oldest_observed_at"`
	GPU            string          `json:"gpu,omitempty"`
	Family         []string        `json:"family,omitempty"` // the variants listed when gpu names a family ("a100")
	Cheapest       []gpuPricesJSON `json:"cheapest,omitempty"`
	Offers         []offerJSON     `json:"offers,omitempty"`
	StaleProviders []staleJSON     `json:"stale_providers"`
	// Held are the offers for the GPU asked that a refresh held aside as
	// implausible (not quoted); only with a GPU.
	Held []heldJSON `json:"held,omitempty"`
	// NoSpotOffer: spot prices were asked (`fit --json` of a price
	// question) and the GPU has none; offers holds the other markets'.
	NoSpotOffer bool `json:"no_spot_offer,omitempty"`
}

func toOfferJSON(o pricing.Offer, now time.Time) offerJSON {
	j := offerJSON{
		Provider: o.Provider, Tier: o.Tier, Market: string(o.Market), GPU: o.GPU, GPUCount: o.GPUCount,
		Region: o.Region, InstanceType: o.InstanceType, USDPerHour: o.USDPerHour, USDPerGPUHour: o.USDPerGPUHour,
		ObservedAt: o.ObservedAt, AgeSeconds: int64(o.Age(now) / time.Second), Stale: o.Stale(now), Source: o.Source,
	}
	if !o.PublishedAt.IsZero() {
		j.PublishedAt = &o.PublishedAt
	}
	return j
}

func (v priceView) output(gpu string, family []string, now time.Time) pricesJSON {
	out := pricesJSON{Source: "store", OldestAt: v.snap.Oldest(), GPU: gpu, Family: family, StaleProviders: []staleJSON{}}
	if v.fromSheet {
		out.Source = "default_sheet"
	}
	if gpu != "" {
		out.Offers = []offerJSON{}
		ids := family
		if ids == nil {
			ids = []string{gpu}
		}
		for _, o := range v.offersFor(ids...) {
			out.Offers = append(out.Offers, toOfferJSON(o, now))
		}
	} else {
		byGPU := map[string]*gpuPricesJSON{}
		for _, o := range v.snap.CheapestPerGPU() {
			g := byGPU[o.GPU]
			if g == nil {
				g = &gpuPricesJSON{GPU: o.GPU}
				byGPU[o.GPU] = g
			}
			oj := toOfferJSON(o, now)
			if o.Market == pricing.MarketSpot {
				g.Spot = &oj
			} else {
				g.OnDemand = &oj
			}
		}
		out.Cheapest = []gpuPricesJSON{}
		for _, k := range slices.Sorted(maps.Keys(byGPU)) {
			out.Cheapest = append(out.Cheapest, *byGPU[k])
		}
	}
	if gpu != "" {
		ids := family
		if ids == nil {
			ids = []string{gpu}
		}
		for _, h := range v.heldFor(ids...) {
			out.Held = append(out.Held, toHeldJSON(h))
		}
	}
	for _, h := range v.stale(now) {
		s := staleJSON{Provider: h.Provider, LastStatus: string(h.Last.Status), LastError: h.Last.Error}
		if h.LastGood != nil {
			s.LastGoodAt = &h.LastGood.AsOf
		}
		out.StaleProviders = append(out.StaleProviders, s)
	}
	return out
}

// pricesRefresh is `fitbot prices refresh`.
func (a *app) pricesRefresh(ctx context.Context, args []string) error {
	var only string
	var asJSON bool
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "--json" || arg == "-json":
			asJSON = true
		case arg == "-h" || arg == "-help" || arg == "--help":
			fmt.Fprint(a.stdout, pricesUsage)
			return nil
		case arg == "--provider" || arg == "-provider":
			if i+1 >= len(args) {
				return usageError("--provider needs a name", "fitbot prices refresh --provider "+strings.Join(pricing.ProviderNames(), "|"))
			}
			i++
			only = args[i]
		case strings.HasPrefix(arg, "--provider="):
			only = strings.TrimPrefix(arg, "--provider=")
		default:
			return usageError(fmt.Sprintf("unexpected %q", arg), "fitbot prices refresh [--provider NAME]")
		}
	}
	if errs := a.env.check(providerVarNames()...); len(errs) > 0 {
		return usageError(settingsProblem(errs), "unset the variable to use the provider's API and fitbot's regions")
	}
	only = strings.ToLower(only)
	fetchers, err := pricing.Fetchers(a.env.providerSettings(), only, samehost.StripClient(&http.Client{Timeout: refreshHTTPTimeout}), nil)
	if errors.Is(err, pricing.ErrNoKey) {
		key := providerKeyVar(pricing.Provider{Name: only})
		return usageError(fmt.Sprintf("%v in %s", err, key), fmt.Sprintf("%s=... fitbot prices refresh --provider %s", key, only))
	}
	if err != nil {
		return usageError(err.Error(), "fitbot prices refresh --provider "+strings.Join(pricing.ProviderNames(), "|"))
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(db)
	reports, err := refreshPrices(ctx, db, fetchers, nil)
	if asJSON {
		if err := a.writeJSON(reportsJSON(reports)); err != nil {
			return err
		}
	} else {
		writeReports(a.stdout, reports)
	}
	if err != nil {
		return quietError(exitFailure)
	}
	return nil
}

// refreshPrices runs one refresh of fetchers into db; `fitbot serve`'s
// schedule calls it too.
func refreshPrices(ctx context.Context, db *store.DB, fetchers []pricing.Fetcher, logger *slog.Logger) ([]pricing.Report, error) {
	r := &pricing.Refresher{Fetchers: fetchers, Sink: db, Clock: db.Now, Logger: logger}
	return r.Refresh(ctx)
}

func writeReports(w io.Writer, reports []pricing.Report) {
	tw := newTable(w)
	for _, r := range reports {
		run := r.Run
		took := run.Finished.Sub(run.Started).Round(100 * time.Millisecond)
		if run.Status == pricing.RunOK {
			line := fmt.Sprintf("%s\tok\t%d offers\t%s", run.Provider, run.Rows, took)
			if run.FeedStale(run.Finished) {
				line += fmt.Sprintf("\tstale: the source published these prices %s ago (%s)", age(run.Finished, run.PublishedAt), run.PublishedAt.Format(time.DateOnly))
			}
			if len(r.Unknown) > 0 {
				names := slices.Sorted(maps.Keys(r.Unknown))
				line += fmt.Sprintf("\t%d unknown names skipped: %s", len(names), truncateList(names, 5))
			}
			if r.Confirmed > 0 {
				line += fmt.Sprintf("\t%d held offers confirmed and let in", r.Confirmed)
			}
			fmt.Fprintln(tw, line)
			writeHeld(tw, r)
			continue
		}
		kept := "no earlier prices to keep"
		if r.LastGood != nil {
			kept = fmt.Sprintf("keeping its %d prices from %s", r.LastGood.Rows, r.LastGood.AsOf.Format("2006-01-02 15:04 UTC"))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", run.Provider, run.Status, run.Error, kept)
		writeHeld(tw, r)
	}
	tw.Flush()
}

// writeHeld lists the offers a refresh held aside, one a line.
func writeHeld(w io.Writer, r pricing.Report) {
	for _, h := range r.Held {
		fmt.Fprintf(w, "  held\t%s; not quoted, a second refresh at this price lets it in\n", h.Reason())
	}
}

func truncateList(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

type reportJSON struct {
	Provider   string         `json:"provider"`
	Status     string         `json:"status"`
	Rows       int            `json:"rows"`
	Unknown    map[string]int `json:"unknown_names"`
	Error      string         `json:"error"`
	Started    time.Time      `json:"started_at"`
	Finished   time.Time      `json:"finished_at"`
	LastGoodAt *time.Time     `json:"last_good_at"`
	// PublishedAt is the oldest publication time the source gave for its
	// prices; Stale is true when it is older than the provider's limit
	// (a feed that stopped moving), even for an ok run.
	PublishedAt *time.Time `json:"published_at"`
	Stale       bool       `json:"stale"`
	// Held are the offers held aside as implausible (not stored, not
	// quoted); Confirmed counts held offers this refresh let in.
	Held      []heldJSON `json:"held"`
	Confirmed int        `json:"confirmed"`
}

// heldJSON is one held offer in `prices refresh --json`.
type heldJSON struct {
	GPU           string  `json:"gpu"`
	InstanceType  string  `json:"instance_type"`
	Region        string  `json:"region"`
	Market        string  `json:"market"`
	USDPerGPUHour float64 `json:"usd_per_gpu_hour"`
	MedianUSD     float64 `json:"median_usd_per_gpu_hour"`
	LowUSD        float64 `json:"low_usd_per_gpu_hour"`
	HighUSD       float64 `json:"high_usd_per_gpu_hour"`
	Reason        string  `json:"reason"`
}

func toHeldJSON(h pricing.Hold) heldJSON {
	return heldJSON{GPU: h.Offer.GPU, InstanceType: h.Offer.InstanceType, Region: h.Offer.Region,
		Market: string(h.Offer.Market), USDPerGPUHour: h.Offer.USDPerGPUHour, MedianUSD: h.MedianUSDPerGPUHour,
		LowUSD: h.LowUSD, HighUSD: h.HighUSD, Reason: h.Reason()}
}

func reportsJSON(reports []pricing.Report) []reportJSON {
	out := make([]reportJSON, 0, len(reports))
	for _, r := range reports {
		j := reportJSON{Provider: r.Run.Provider, Status: string(r.Run.Status), Rows: r.Run.Rows, Unknown: r.Unknown,
			Error: r.Run.Error, Started: r.Run.Started, Finished: r.Run.Finished}
		if j.Unknown == nil {
			j.Unknown = map[string]int{}
		}
		if r.LastGood != nil {
			j.LastGoodAt = &r.LastGood.AsOf
		}
		if !r.Run.PublishedAt.IsZero() {
			j.PublishedAt = &r.Run.PublishedAt
		}
		j.Stale = r.Stale()
		j.Held, j.Confirmed = []heldJSON{}, r.Confirmed
		for _, h := range r.Held {
			j.Held = append(j.Held, toHeldJSON(h))
		}
		out = append(out, j)
	}
	return out
}

// maxSheetBytes caps an imported sheet: a price sheet of a few hundred
// thousand rows is tens of megabytes.
const maxSheetBytes = 256 << 20

// pricesImport is `fitbot prices import`.
func (a *app) pricesImport(ctx context.Context, args []string) error {
	const hint = "fitbot prices import [--at 2026-11-01T00:00:00Z] rates.csv"
	var at time.Time
	var files []string
	for i := 0; i < len(args); i++ {
		switch arg := args[i]; {
		case arg == "-h" || arg == "-help" || arg == "--help":
			fmt.Fprint(a.stdout, pricesUsage)
			return nil
		case arg == "--at" || arg == "-at" || strings.HasPrefix(arg, "--at="):
			v, ok := strings.CutPrefix(arg, "--at=")
			if !ok {
				if i+1 >= len(args) {
					return usageError("--at needs a time", hint)
				}
				i++
				v = args[i]
			}
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return usageError(fmt.Sprintf("--at %q is not an RFC 3339 time", v), hint)
			}
			at = t.UTC()
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			return usageError("unknown flag "+arg, hint)
		default:
			files = append(files, arg)
		}
	}
	if len(files) != 1 {
		return usageError("prices import takes one CSV file", hint)
	}
	path := files[0]
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return usageError(fmt.Sprintf("cannot read %s: %v", path, unwrapPathErr(err)), hint)
	case fi.IsDir():
		return usageError(path+" is a folder, not a CSV file", hint)
	case fi.Size() > maxSheetBytes:
		return usageError(fmt.Sprintf("%s is %d MB; a price sheet is at most %d MB", path, fi.Size()>>20, maxSheetBytes>>20), "split it into several files")
	}
	f, err := os.Open(path)
	if err != nil {
		return usageError(fmt.Sprintf("cannot read %s: %v", path, unwrapPathErr(err)), hint)
	}
	defer f.Close()

	now := time.Now().UTC()
	name := filepath.Base(path)
	offers, err := pricing.ParseSheet(f, pricing.SheetOptions{Name: name, At: cmp.Or(at, now)})
	if err != nil {
		var se *pricing.SheetError
		if errors.As(err, &se) {
			return usageError(err.Error()+"\nNothing was imported.", "fix the lines above; fitbot prices import --help shows the columns")
		}
		return failure(err.Error(), "")
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(db)
	asOf := offers[0].ObservedAt
	for _, o := range offers {
		asOf = maxTime(asOf, o.ObservedAt)
	}
	run := pricing.Run{Provider: pricing.ImportProvider(name), Started: now, Finished: now, AsOf: asOf,
		Status: pricing.RunOK, Rows: len(offers)}
	if _, err := db.SaveRun(ctx, run, offers); err != nil {
		return failure(err.Error()+"; nothing was imported", "")
	}
	gpus := map[string]bool{}
	providers := map[string]bool{}
	for _, o := range offers {
		gpus[o.GPU], providers[o.Provider] = true, true
	}
	fmt.Fprintf(a.stdout, "Imported %d offers from %s (%d GPUs, providers %s), observed up to %s.\n",
		len(offers), name, len(gpus), strings.Join(slices.Sorted(maps.Keys(providers)), ", "), asOf.Format(time.RFC3339))
	return nil
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// unwrapPathErr drops the path an *fs.PathError repeats.
func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
