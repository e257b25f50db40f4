package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

const plansUsage = `Usage: fitbot plans [--json] [--limit N] [--workspace TEAM] [MODEL]
       fitbot plans show [--json] [--workspace TEAM] ID
       fitbot plans measure [--json] ID --peak 71GiB --tokens-per-second 3150 --hours 5.2

Lists earlier plans, newest first: for one model when MODEL is given (any
name of it: "mistral 7b", "Mistral-7B-v0.1"; a bare size such as 13B finds
bare 13B plans; a plan kind, largest, context, which-gpu or buy-rent, finds
the plans of that kind that name no model), else the latest of all. "plans show ID" re-answers a plan
with today's catalog and prices and says what changed.

--workspace T0123ABCD reads only that Slack workspace's plans asked in
public channels, as any of its channels reads them (a database shared by
several workspaces); a plan from elsewhere reads as missing. Without it,
every plan in the database is read: its owner can read the file anyway.

The database is FITBOT_DB, else ./fitbot.db.
`

// planOutput is one plan in `fitbot plans --json` and `plans show --json`.
type planOutput struct {
	ID            int64           `json:"id"`
	CreatedAt     time.Time       `json:"created_at"`
	Source        string          `json:"source"`
	Team          string          `json:"team"`
	Channel       string          `json:"channel"`
	User          string          `json:"user"`
	Question      string          `json:"question"`
	Canonical     string          `json:"canonical"`
	Kind          answer.PlanKind `json:"kind"`   // fit, largest, context, which-gpu or buy-rent
	Answer        string          `json:"answer"` // an inverse plan's answer in one line; "" for fit
	ModelKey      string          `json:"model_key"`
	Request       sizing.Request  `json:"request"`
	Fits          bool            `json:"fits"`
	Headroom      string          `json:"headroom"`
	GPU           string          `json:"gpu"`
	GPUs          int             `json:"gpus"`
	PerGPUBytes   int64           `json:"per_gpu_total_bytes"`
	USDPerHour    *float64        `json:"usd_per_hour"`
	PriceProvider string          `json:"price_provider"`
	PriceAsOf     *time.Time      `json:"price_as_of"`
}

func toOutput(p store.Plan) planOutput {
	return planOutput{
		ID: p.ID, CreatedAt: p.CreatedAt, Source: p.Source, Team: p.Team, Channel: p.Channel, User: p.User,
		Question: p.Question, Canonical: p.Canonical, Kind: p.Kind, Answer: p.Answer, ModelKey: p.ModelKey, Request: p.Request,
		Fits: p.Fits, Headroom: p.Headroom, GPU: p.GPU, GPUs: p.GPUs, PerGPUBytes: p.PerGPUBytes,
		USDPerHour: p.USDPerHour, PriceProvider: p.PriceProvider, PriceAsOf: p.PriceAsOf,
	}
}

// plansArgs is the command line of `fitbot plans` and `plans show`.
type plansArgs struct {
	json  bool
	help  bool
	limit int
	words []string
	// workspace, when set, reads only that Slack workspace's plans, as
	// its public channels read them; otherwise every plan is read (the
	// owner of the database).
	workspace string
}

// scope is the plans the command line reads.
func (f plansArgs) scope() store.Scope {
	if f.workspace == "" {
		return store.AllPlans()
	}
	return store.Workspace(f.workspace)
}

// flagValue is the value of the flag args[*i] ("--name=value", or
// "--name value", moving *i past the value); what says what it needs.
func flagValue(args []string, i *int, name, what string) (string, error) {
	if v, ok := strings.CutPrefix(args[*i], name+"="); ok {
		return v, nil
	}
	if *i+1 >= len(args) {
		return "", fmt.Errorf("%s needs %s", name, what)
	}
	*i++
	return args[*i], nil
}

// parsePlansArgs reads flags anywhere among the words; "--" ends them.
func parsePlansArgs(args []string) (plansArgs, error) {
	f := plansArgs{limit: store.DefaultPlanLimit}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--json" || arg == "-json":
			f.json = true
		case arg == "-h" || arg == "-help" || arg == "--help":
			f.help = true
		case arg == "--limit" || arg == "-limit" || strings.HasPrefix(arg, "--limit="):
			v, err := flagValue(args, &i, "--limit", "a number")
			if err != nil {
				return f, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return f, fmt.Errorf("--limit %q is not a number from 1 to 1000", v)
			}
			f.limit = n
		case arg == "--workspace" || arg == "-workspace" || strings.HasPrefix(arg, "--workspace="):
			v, err := flagValue(args, &i, "--workspace", "a Slack team id (T...)")
			if err != nil {
				return f, err
			}
			if !teamID.MatchString(v) {
				return f, fmt.Errorf("--workspace %q is not a Slack team id (T followed by letters and digits)", v)
			}
			f.workspace = v
		case arg == "--":
			f.words = append(f.words, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(arg, "-") && len(arg) > 1:
			return f, fmt.Errorf("unknown flag %s", arg)
		default:
			f.words = append(f.words, arg)
		}
	}
	return f, nil
}

// plans is `fitbot plans`.
func (a *app) plans(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "show" {
		return a.planShow(ctx, args[1:])
	}
	if len(args) > 0 && args[0] == "measure" {
		return a.plansMeasure(ctx, args[1:])
	}
	f, err := parsePlansArgs(args)
	if err != nil {
		return usageError(err.Error(), "fitbot plans --json mistral 7b")
	}
	if f.help {
		fmt.Fprint(a.stdout, plansUsage)
		return nil
	}
	l, err := a.listPlans(ctx, f)
	if err != nil {
		return err
	}
	if f.json {
		return a.writeJSON(planOutputs(l.plans))
	}
	if !l.stored {
		fmt.Fprintf(a.stdout, "No plans yet: there is no database at %s. fitbot fit --save WORDS... keeps an answer as a plan.\n", a.dbPath())
		return nil
	}
	writePlans(a.stdout, l.model, l.key, l.plans)
	return nil
}

// plansFound is what `fitbot plans` lists: the plans, newest first, the
// model they were asked for in words and its key, and whether there is a
// database at all.
type plansFound struct {
	model, key string
	plans      []store.Plan
	stored     bool
}

// listPlans finds the plans f asks for: of a model (aliases and Hub
// repos match), of a family, of a kind of inverse question, or the most
// recent.
func (a *app) listPlans(ctx context.Context, f plansArgs) (plansFound, error) {
	l := plansFound{model: strings.Join(f.words, " ")}
	family := reading.FamilyModels(l.model)
	if k, ok := answer.InversePlanKey(l.model); ok {
		l.key, family = k, nil
		l.model += " questions"
	} else if len(family) > 0 {
		l.model = "the " + l.model + " family"
		l.key = l.model
	} else if l.model != "" {
		key, err := answer.PlanKey(l.model, func(words string) (string, bool) { return a.hubRepo(ctx, words) })
		if err != nil {
			return l, inputError(err, "fitbot plans MODEL, e.g. fitbot plans mistral 7b or fitbot plans 13B")
		}
		l.key = key
	}
	if !a.dbExists() {
		return l, nil // listing must not leave an empty database behind
	}
	l.stored = true
	db, err := a.openStore(ctx)
	if err != nil {
		return l, err
	}
	defer a.closeStore(db)
	switch {
	case len(family) > 0:
		l.plans, err = familyPlanList(ctx, db, f.scope(), family, f.limit)
	case l.key != "":
		l.plans, err = db.PlansForModel(ctx, f.scope(), l.key, f.limit)
	default:
		l.plans, err = db.RecentPlans(ctx, f.scope(), time.Time{}, f.limit)
	}
	if err != nil {
		return l, failure(err.Error(), "")
	}
	return l, nil
}

// planOutputs is plans as `--json` prints them: never null.
func planOutputs(plans []store.Plan) []planOutput {
	out := make([]planOutput, 0, len(plans))
	for _, p := range plans {
		out = append(out, toOutput(p))
	}
	return out
}

// fitPlansJSON is `fitbot fit --json` for a plans question ("plans
// mistral 7b"): one object, as every `fit --json` answer is, holding the
// array `fitbot plans --json` prints.
type fitPlansJSON struct {
	Kind  answer.Kind  `json:"kind"`
	Plans []planOutput `json:"plans"`
}

// fitPlans answers a plans question asked of `fitbot fit`: the words
// after "plans" are `fitbot plans`'s.
func (a *app) fitPlans(ctx context.Context, asJSON bool, words string) error {
	args := strings.Fields(words)
	if !asJSON {
		return a.plans(ctx, args)
	}
	f, err := parsePlansArgs(args)
	if err != nil {
		return usageError(err.Error(), "fitbot fit --json plans mistral 7b")
	}
	l, err := a.listPlans(ctx, f)
	if err != nil {
		return err
	}
	return a.writeJSON(fitPlansJSON{Kind: answer.KindPlans, Plans: planOutputs(l.plans)})
}

// writePlans prints a list of plans as a table, newest first.
func writePlans(w io.Writer, model, key string, plans []store.Plan) {
	switch {
	case len(plans) == 0 && key == "":
		fmt.Fprintln(w, "No plans yet. fitbot fit --save WORDS... keeps an answer as a plan.")
		return
	case len(plans) == 0:
		fmt.Fprintf(w, "No plans yet for %s.\n", describeKey(model, key))
		return
	case key == "":
		fmt.Fprintln(w, "Latest plans, newest first:")
	default:
		fmt.Fprintf(w, "Plans for %s, newest first:\n", describeKey(model, key))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWHEN (UTC)\tWHO\tQUESTION\tVERDICT\tGPUS\t$/H THEN")
	for _, p := range plans {
		verdict, gpus, price := answer.PlanVerdict(p.Fits, p.Headroom), display.Hardware(p.GPUs, p.GPU), usd(p.USDPerHour)
		if p.Kind != answer.PlanFit && p.Kind != "" {
			// An inverse plan: its kind and answer, no one configuration.
			verdict, price = display.Truncate(string(p.Kind)+": "+p.Answer, 60), "-"
			if p.GPU == "" {
				gpus = "-"
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, p.CreatedAt.Format("2006-01-02 15:04"),
			who(p), display.Truncate(strings.Join(strings.Fields(p.Question), " "), 48), verdict, gpus, price)
	}
	tw.Flush()
	fmt.Fprintln(w, "fitbot plans show ID re-answers one with today's catalog and prices.")
}

// familyPlanList is the newest plans of every model of a family.
func familyPlanList(ctx context.Context, db *store.DB, scope store.Scope, family []sizing.Model, limit int) ([]store.Plan, error) {
	var plans []store.Plan
	for _, m := range family {
		ps, err := db.PlansForModel(ctx, scope, m.ID, limit)
		if err != nil {
			return nil, err
		}
		plans = append(plans, ps...)
	}
	slices.SortStableFunc(plans, func(a, b store.Plan) int { return b.CreatedAt.Compare(a.CreatedAt) })
	return plans[:min(len(plans), limit)], nil
}

// describeKey names a model key for a person, with the words it was
// asked by when they differ.
func describeKey(model, key string) string {
	if model == "" || strings.EqualFold(model, key) {
		return key
	}
	if strings.Contains(key, ":") { // bare:13000000000 is the store's key, not a name
		return model
	}
	return fmt.Sprintf("%s (%q)", key, model)
}

// who is who asked, as the table shows it.
func who(p store.Plan) string {
	if p.Source == store.SourceSlack && p.User != "" {
		return "slack " + p.User
	}
	return p.Source
}

// usd is a price, or "no price" when none is known.
func usd(v *float64) string {
	if v == nil {
		return "no price"
	}
	return display.USD(*v)
}

// writeJSON prints v as indented JSON.
func (a *app) writeJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return failure(fmt.Sprintf("write the answer: %v", err), "")
	}
	return nil
}

// saved says that an answer was kept as plan id: on stdout after a text
// answer, on stderr after --json so that stdout stays one JSON object.
func (a *app) saved(id int64, asJSON bool) {
	w := a.stdout
	if asJSON {
		w = a.stderr
	}
	fmt.Fprintf(w, "saved as plan %d (fitbot plans show %d re-answers it later)\n", id, id)
}
