package pricing

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// SheetColumns are the price-sheet CSV columns of DESIGN.md, in order. A
// sheet starts with a header naming them; usd_per_hour is the price of the
// whole offer (all its GPUs).
var SheetColumns = []string{"provider", "gpu", "gpu_count", "region", "pricing", "usd_per_hour", "instance_type"}

// OptionalSheetColumns may follow the required columns, in any order:
// tier (RunPod "secure"/"community"), as_of (the date the price was seen,
// YYYY-MM-DD or RFC 3339; it overrides the import time) and source (where
// the figure comes from: a URL, a document, a contract).
var OptionalSheetColumns = []string{"tier", "as_of", "source"}

// Per-GPU-hour sanity bounds. A price outside them is far more likely a
// parser bug or a typo than a real offer (reference §4.6: "the Mithril
// $0.01 B200"), so sheets and refreshes reject it.
const (
	MinUSDPerGPUHour float64 = 0.05
	MaxUSDPerGPUHour float64 = 100
)

// maxSheetProblems caps how many bad rows a SheetError lists.
const maxSheetProblems = 20

// SheetOptions says where a sheet comes from and when its prices were
// observed.
type SheetOptions struct {
	Name string    // file name, used in errors and in Offer.Source
	At   time.Time // observation time for rows without an as_of column value
}

// LineError is one problem in a price sheet, at a 1-based line number.
type LineError struct {
	Line    int
	Problem string
}

// SheetError lists every problem found in a price sheet. A sheet with any
// problem is rejected whole: nothing from it may be stored.
type SheetError struct {
	Name     string
	Problems []LineError
	More     int // problems found beyond those listed
}

// Error lists the bad lines, one per line of text.
func (e *SheetError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d bad line(s)", e.Name, len(e.Problems)+e.More)
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  line %d: %s", p.Line, p.Problem)
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", e.More)
	}
	return b.String()
}

func (e *SheetError) add(line int, format string, args ...any) {
	if len(e.Problems) >= maxSheetProblems {
		e.More++
		return
	}
	e.Problems = append(e.Problems, LineError{Line: line, Problem: fmt.Sprintf(format, args...)})
}

// ParseSheet reads a price sheet in the CSV format of DESIGN.md: a header
// row, then one offer per row. Lines starting with # are comments. It
// returns every offer, or a *SheetError listing the bad lines and no
// offers at all.
func ParseSheet(r io.Reader, opt SheetOptions) ([]Offer, error) {
	if opt.Name == "" {
		opt.Name = "price sheet"
	}
	bad := &SheetError{Name: opt.Name}
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true

	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		bad.add(1, "the file is empty; the first line must be the header %s", strings.Join(SheetColumns, ","))
		return nil, bad
	}
	if err != nil {
		bad.add(csvLine(err, 1), "%s", csvProblem(err))
		return nil, bad
	}
	headerLine, _ := cr.FieldPos(0)
	cols, problem := sheetHeader(header)
	if problem != "" {
		bad.add(headerLine, "%s", problem)
		return nil, bad
	}

	var offers []Offer
	seen := make(map[string]int)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// A syntax error leaves the reader's position uncertain, so
			// stop here rather than report confusing follow-on errors.
			bad.add(csvLine(err, 0), "%s", csvProblem(err))
			break
		}
		line, _ := cr.FieldPos(0)
		o, problems := sheetRow(rec, cols, opt)
		for _, p := range problems {
			bad.add(line, "%s", p)
		}
		if len(problems) > 0 {
			continue
		}
		o.Source = cmp.Or(o.Source, fmt.Sprintf("%s:%d", opt.Name, line))
		k := o.key()
		if first, dup := seen[k]; dup {
			bad.add(line, "the same offer as line %d (provider, gpu, gpu_count, region, pricing, tier and instance_type all equal)", first)
			continue
		}
		seen[k] = line
		offers = append(offers, o)
	}
	if len(bad.Problems) > 0 {
		return nil, bad
	}
	if len(offers) == 0 {
		bad.add(headerLine, "no offers after the header")
		return nil, bad
	}
	return offers, nil
}

// sheetColumns holds the index of each column in a sheet; -1 when absent.
type sheetColumns struct {
	tier, asOf, source int
	n                  int
}

func sheetHeader(rec []string) (sheetColumns, string) {
	cols := sheetColumns{tier: -1, asOf: -1, source: -1, n: len(rec)}
	names := make([]string, len(rec))
	for i, f := range rec {
		names[i] = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(f, "\ufeff")))
	}
	want := strings.Join(SheetColumns, ",")
	if len(names) < len(SheetColumns) || strings.Join(names[:len(SheetColumns)], ",") != want {
		return cols, fmt.Sprintf("the header must start with %s (got %s)", want, strings.Join(names, ","))
	}
	for i := len(SheetColumns); i < len(names); i++ {
		var slot *int
		switch names[i] {
		case "tier":
			slot = &cols.tier
		case "as_of":
			slot = &cols.asOf
		case "source":
			slot = &cols.source
		default:
			return cols, fmt.Sprintf("unknown column %q; after the required columns only %s may follow", names[i], strings.Join(OptionalSheetColumns, ", "))
		}
		if *slot >= 0 {
			return cols, fmt.Sprintf("column %q appears twice", names[i])
		}
		*slot = i
	}
	return cols, ""
}

// sheetRow turns one record into an offer, or says everything wrong with it.
func sheetRow(rec []string, cols sheetColumns, opt SheetOptions) (Offer, []string) {
	if len(rec) != cols.n {
		return Offer{}, []string{fmt.Sprintf("%d fields, the header has %d", len(rec), cols.n)}
	}
	field := func(i int) string {
		if i < 0 {
			return ""
		}
		return strings.TrimSpace(rec[i])
	}
	var problems []string
	o := Offer{
		Provider:     strings.ToLower(field(0)),
		Region:       field(3),
		InstanceType: field(6),
		Tier:         strings.ToLower(field(cols.tier)),
		Source:       field(cols.source),
		ObservedAt:   opt.At.UTC(),
		Samples:      1,
	}
	if !isSlug(o.Provider) {
		problems = append(problems, fmt.Sprintf("provider %q must be a short lower-case name such as aws or onprem", field(0)))
	}
	gpu, problem := lookupGPU(field(1))
	if problem != "" {
		problems = append(problems, "gpu: "+problem)
	}
	o.GPU = gpu
	count, err := strconv.ParseFloat(field(2), 64)
	switch {
	case err != nil || math.IsNaN(count) || math.IsInf(count, 0):
		problems = append(problems, fmt.Sprintf("gpu_count %q is not a number", field(2)))
	case count <= 0 || count > 64:
		problems = append(problems, fmt.Sprintf("gpu_count %s must be above 0 and at most 64", field(2)))
	default:
		o.GPUCount = count
	}
	switch m := Market(strings.ToLower(field(4))); m {
	case MarketOnDemand, MarketSpot, MarketReserved:
		o.Market = m
	default:
		problems = append(problems, fmt.Sprintf("pricing %q must be on_demand, spot or reserved", field(4)))
	}
	price, err := strconv.ParseFloat(strings.TrimPrefix(field(5), "$"), 64)
	switch {
	case err != nil || math.IsNaN(price) || math.IsInf(price, 0):
		problems = append(problems, fmt.Sprintf("usd_per_hour %q is not a number", field(5)))
	case price <= 0:
		problems = append(problems, fmt.Sprintf("usd_per_hour %s must be above 0", field(5)))
	default:
		o.USDPerHour = price
	}
	if o.GPUCount > 0 && o.USDPerHour > 0 {
		o.USDPerGPUHour = o.USDPerHour / o.GPUCount
		if p := o.USDPerGPUHour; p < MinUSDPerGPUHour || p > MaxUSDPerGPUHour {
			problems = append(problems, fmt.Sprintf("$%.4g per GPU-hour is outside $%g-$%g; usd_per_hour is for the whole offer (all %g GPUs)", p, MinUSDPerGPUHour, MaxUSDPerGPUHour, o.GPUCount))
		}
	}
	if o.Tier != "" && !isSlug(o.Tier) {
		problems = append(problems, fmt.Sprintf("tier %q must be a short lower-case word such as secure or community", field(cols.tier)))
	}
	if len(o.Region) > 64 || len(o.InstanceType) > 128 || len(o.Source) > 512 {
		problems = append(problems, "region, instance_type or source is too long (64, 128, 512 characters at most)")
	}
	if s := field(cols.asOf); s != "" {
		at, err := parseAsOf(s)
		if err != nil {
			problems = append(problems, fmt.Sprintf("as_of %q must be a date (2026-11-09) or an RFC 3339 time", s))
		}
		o.ObservedAt = at
	}
	if o.ObservedAt.IsZero() {
		problems = append(problems, "no as_of value and no import time")
	}
	return o, problems
}

func parseAsOf(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err
}

// isSlug reports whether s is a short lower-case identifier.
func isSlug(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func csvLine(err error, fallback int) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return fallback
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("not valid CSV: %v", pe.Err)
	}
	return fmt.Sprintf("reading the file: %v", err)
}

// key identifies an offer within one provider's price list: two rows with
// the same key are the same offer.
func (o Offer) key() string {
	return strings.Join([]string{
		o.Provider, o.GPU, strconv.FormatFloat(o.GPUCount, 'g', -1, 64),
		o.Region, string(o.Market), o.Tier, o.InstanceType,
	}, "\x1f")
}
