package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

const modelsUsage = `Usage: fitbot models [--json] [QUERY]

Lists the models fitbot knows: the embedded catalog and the Hugging Face
Hub models it has cached, with their parameter counts and released
format. QUERY keeps the models whose id, name or alias contains it
("qwen3", "llama 3.1"). Any Hub model works in a question, cached or not:
fitbot fit Qwen/Qwen3-1.7B lora h100.
`

// modelOutput is one row of `fitbot models --json`.
type modelOutput struct {
	ID             string     `json:"id"`
	Name           string     `json:"name"`
	Source         string     `json:"source"` // "catalog", "hub" or "named" (known by name, not sized)
	Params         int64      `json:"params"`
	ActiveParams   int64      `json:"active_params"`
	ReleasedFormat string     `json:"released_format"`
	Revision       string     `json:"revision,omitempty"`   // hub: the commit cached
	FetchedAt      *time.Time `json:"fetched_at,omitempty"` // hub: when it was fetched
	Gated          string     `json:"gated,omitempty"`      // hub: "auto" or "manual"
	Problem        string     `json:"problem,omitempty"`    // hub, named: why it cannot be sized
}

// hubListed is how many cached Hub models `fitbot models` lists without a
// query: the most recently fetched.
const hubListed = 40

// models is `fitbot models`.
func (a *app) models(ctx context.Context, args []string) error {
	var asJSON bool
	var words []string
	for _, arg := range args {
		switch {
		case arg == "--json" || arg == "-json":
			asJSON = true
		case arg == "-h" || arg == "-help" || arg == "--help":
			fmt.Fprint(a.stdout, modelsUsage)
			return nil
		case strings.HasPrefix(arg, "-"):
			return usageError("unknown flag "+arg, "fitbot models --json qwen3")
		default:
			words = append(words, arg)
		}
	}
	query := strings.Join(words, " ")
	var rows []modelOutput
	for _, m := range sizing.Models() {
		if !matchesQuery(query, append([]string{m.ID, m.Name}, m.Aliases...)...) {
			continue
		}
		total, active := m.ParamCount()
		rows = append(rows, modelOutput{ID: m.ID, Name: m.Name, Source: "catalog", Params: total, ActiveParams: active, ReleasedFormat: string(m.ReleasedFormat)})
	}
	for _, m := range sizing.Named() {
		if matchesQuery(query, append([]string{m.ID, m.Name}, m.Aliases...)...) {
			rows = append(rows, modelOutput{ID: m.ID, Name: m.Name, Source: "named", Problem: m.Refusal().Problem})
		}
	}
	// The text without a query lists the most recently fetched cached
	// models and counts the rest; a query or --json lists every match.
	recent := 0
	if query == "" && !asJSON {
		recent = hubListed
	}
	entries, cached, err := a.cachedHubModels(ctx, looseKey(query), recent)
	if err != nil {
		fmt.Fprintf(a.stderr, "fitbot: cached Hugging Face models not listed: %v\n", err)
	}
	for _, e := range entries {
		fetched := e.FetchedAt
		row := modelOutput{ID: e.Repo, Name: e.Repo, Source: "hub", Revision: e.Revision, FetchedAt: &fetched, Gated: e.Gated}
		if m, err := e.Model(); err != nil {
			row.Problem = err.Error()
		} else {
			row.Params, row.ActiveParams = m.ParamCount()
			row.ReleasedFormat = string(m.ReleasedFormat)
		}
		rows = append(rows, row)
	}
	if asJSON {
		if rows == nil {
			rows = []modelOutput{}
		}
		return a.writeJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.stdout, "No model matches %q. Any Hugging Face Hub model works by its id: fitbot fit Qwen/Qwen3-1.7B lora h100\n", query)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPARAMS\tACTIVE\tRELEASED\tSOURCE")
	now := time.Now()
	for _, r := range rows {
		source := r.Source
		if r.FetchedAt != nil {
			source = fmt.Sprintf("hub %s, fetched %s", shortSHA(r.Revision), hub.Age(now.Sub(*r.FetchedAt)))
		}
		if r.Source == "named" {
			source = "known by name, not sized (fitbot fit " + r.ID + " says why)"
		}
		params, active := display.Params(r.Params), display.Params(r.ActiveParams)
		if r.Problem != "" {
			params, active = "?", "?"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, params, active, orDash(r.ReleasedFormat), source)
	}
	tw.Flush()
	if more := cached - len(entries); more > 0 {
		fmt.Fprintf(a.stdout, "\n%d more cached Hugging Face models, not listed: fitbot models QUERY finds them (fitbot models --json lists them all).\n", more)
	}
	fmt.Fprintln(a.stdout, "\nAny Hugging Face Hub model works by its id or link: fitbot fit Qwen/Qwen3-1.7B lora h100")
	return nil
}

// cachedHubModels reads the Hub cache without creating one (the
// database's when it exists, else the user cache directory's): the
// models whose loose key contains key, only the recent most recently
// fetched when recent is above 0, and how many match in all.
func (a *app) cachedHubModels(ctx context.Context, key string, recent int) ([]hub.Entry, int, error) {
	path := a.dbPath()
	if !a.dbExists() {
		path = hubCachePath()
		if path == "" {
			return nil, 0, nil
		}
		if _, err := os.Stat(path); err != nil {
			return nil, 0, nil
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	defer a.closeStore(db)
	return db.HubModelsMatching(ctx, key, recent)
}

// matchesQuery reports whether any of names contains query, ignoring
// case, spaces, hyphens and underscores ("llama 3.1" finds "llama-3.1-8b").
func matchesQuery(query string, names ...string) bool {
	q := looseKey(query)
	if q == "" {
		return true
	}
	for _, n := range names {
		if strings.Contains(looseKey(n), q) {
			return true
		}
	}
	return false
}

func looseKey(s string) string {
	return strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.ToLower(s))
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
