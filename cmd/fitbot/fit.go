package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

const fitUsage = `Usage: fitbot fit [--json] [--save] [--config FILE] [--emit KIND] [--chart FILE.png] WORDS...

Answers a sizing question: does it fit, the memory per GPU term by term,
cheaper or smaller configurations that fit, speed, time and cost.
Flags may come before or after the words.

  --json         print the answer as JSON (the keys in DESIGN.md)
  --save         record the answer as a plan
  --config FILE  size the model described by a Hugging Face config.json
                 instead of a catalog model
  --emit KIND    print the launch config of the answer instead of the answer:
                 deepspeed, accelerate, vllm, sglang, llama.cpp, skypilot or megatron
                 (for the first alternative that fits when the asked one does not)
  --chart FILE   also write the memory breakdown as a PNG picture

Examples:
  fitbot fit 13B lora 4090
  fitbot fit llama 3.1 70b qlora on 2 a100 for 3 epochs of 500M tokens
  fitbot fit --config ./config.json lora rtx-4090
  fitbot fit Qwen/Qwen3-1.7B lora h100                  any Hugging Face Hub model, by id or link
  fitbot fit --emit deepspeed llama 3.1 70b full on 8 h100 zero 3
  fitbot fit --chart memory.png 13B lora 4090

The same words answer the questions that run the other way round:
  fitbot fit what 2x4090 lora                          largest model that fits
  fitbot fit llama-3.1-8b inference l4 max context     longest context (max seq for training)
  fitbot fit which gpu 13b lora on 1B tokens           every card that fits, cheapest first
  fitbot fit 13B lora 4090 buy-vs-rent 3 jobs/week 5h  buy or rent ($0.15/kWh, over 3 years)
`

// fitArgs is the command line of `fitbot fit`.
type fitArgs struct {
	json   bool
	save   bool
	config string // path of a config.json; "" for a catalog model
	emit   string // launch config kind; "" for the answer itself
	// emitAsked is the launch config kind the words asked for ("a
	// deepspeed config for ..."): printed after the answer, not in its place.
	emitAsked string
	chart     string // PNG path for the memory picture; "" for none
	help      bool
	words     []string
	// interpreted is the answer's interpreted object: set once the
	// question was handled, nil when the language model was not asked.
	interpreted *interpretedJSON
}

// parseFitArgs reads flags anywhere among the words; "--" ends the flags.
func parseFitArgs(args []string) (fitArgs, error) {
	var f fitArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--json" || arg == "-json":
			f.json = true
		case arg == "--save" || arg == "-save":
			f.save = true
		case arg == "-h" || arg == "-help" || arg == "--help":
			f.help = true
		case arg == "--config" || arg == "-config":
			if i+1 >= len(args) {
				return f, errors.New("--config needs a file: --config path/to/config.json")
			}
			i++
			f.config = args[i]
		case strings.HasPrefix(arg, "--config="):
			f.config = strings.TrimPrefix(arg, "--config=")
		case arg == "--emit" || arg == "-emit" || arg == "--chart" || arg == "-chart":
			if i+1 >= len(args) {
				return f, fmt.Errorf("%s needs a value: --emit deepspeed, --chart memory.png", arg)
			}
			i++
			f.setValue(strings.TrimLeft(arg, "-"), args[i])
		case strings.HasPrefix(arg, "--emit=") || strings.HasPrefix(arg, "--chart="):
			name, value, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
			f.setValue(name, value)
		case arg == "--":
			f.words = append(f.words, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(arg, "--"):
			return f, fmt.Errorf("unknown flag %s", arg)
		default:
			f.words = append(f.words, arg)
		}
	}
	return f, nil
}

// fit is `fitbot fit`: parse the words, answer with the estimator at the
// store's current prices (the embedded default sheet when there is no
// database), print text or JSON.
func (a *app) fit(ctx context.Context, args []string) error {
	f, err := parseFitArgs(args)
	if err != nil {
		return usageError(err.Error(), "fitbot fit --json 13B lora 4090")
	}
	if f.help && f.json {
		return a.writeJSON(routedJSON{Kind: answer.KindHelp, Text: fitUsage})
	}
	if f.help {
		fmt.Fprint(a.stdout, fitUsage)
		return nil
	}
	if len(f.words) == 0 && f.config == "" {
		fmt.Fprint(a.stderr, fitUsage)
		return quietError(exitUsage)
	}
	if err := f.emitConflict(); err != nil {
		return usageError(err.Error(), "fitbot fit --emit deepspeed llama 3.1 8b full on 8 a100")
	}
	question := strings.Join(f.words, " ")
	svc, _ := a.answers()
	var q answer.Question
	if f.config != "" {
		arch, err := loadConfig(f.config)
		if err != nil {
			return inputError(err, "")
		}
		q = svc.ReadConfigured(question, arch)
	} else {
		q = svc.Read(question)
	}
	if f.emit == "" && !f.json {
		f.emitAsked = q.Parsed.Emit
	}
	if err := f.kindConflict(q); err != nil {
		return err
	}
	serveExtras := q.Parsed.Intent == sizing.IntentServe && (f.emit != "" || f.chart != "")
	who := answer.Who{Team: cliTeam, Keep: f.save && !serveExtras}
	if who.Keep {
		db, err := a.openStore(ctx)
		if err != nil {
			return err
		}
		defer a.closeStore(db)
		svc.Plans = answer.StoreKeeper{Store: db, Source: store.SourceCLI}
	}
	q.Scope = store.AllPlans() // the database's owner reads every measured run
	model, err := modelReader(modelSettings(a.env), nil, nil)
	if err != nil {
		return failure(err.Error(), "")
	}
	svc.Reader = model
	r, err := svc.HandleQuestion(ctx, who, q)
	if err != nil {
		return failure(err.Error(), "")
	}
	f.interpreted = interpretedOf(r, q.Parsed.Unused, model != nil)
	if !f.json && f.emit == "" {
		for _, line := range answer.OutsideLines(question) {
			fmt.Fprintln(a.stdout, line)
		}
	}
	if r.ModelError != nil {
		fmt.Fprintf(a.stderr, "fitbot: the language model was unavailable (%v); this is fitbot's own reading.\n", r.ModelError)
	}
	switch {
	case r.Kind == answer.KindClarify && len(r.Alternatives) >= 2:
		return a.clarify(question, clarifyReadings(r.Alternatives), f.json)
	case r.Kind == answer.KindClarify:
		return inputError(r.Err, "")
	case r.Kind == answer.KindCluster:
		return a.showCluster(ctx, f.json)
	case r.Compare != nil:
		return a.writeComparison(*r.Compare, f.json)
	case r.Ask != nil && serveExtras:
		return a.serveExtras(ctx, svc, r.Question.Parsed, *r.Ask, &f)
	case r.Ask != nil:
		err = a.writeAskAnswer(*r.Ask, f.json)
	case r.Fit != nil:
		err = a.writeFit(ctx, svc, f, r)
	default:
		return a.routed(ctx, f, r.Question)
	}
	if err != nil {
		return err
	}
	if r.PlanErr != nil {
		return r.PlanErr
	}
	if r.PlanID != 0 {
		a.saved(r.PlanID, f.json)
	}
	return nil
}

// kindConflict is a usage error for the flags that need a question with
// one configuration, asked with a question that has none.
func (f fitArgs) kindConflict(q answer.Question) error {
	extras := f.emit != "" || f.chart != ""
	kind := q.Kind()
	switch {
	case kind == answer.KindCompare && (extras || f.save):
		return usageError("--emit, --chart and --save need a question with one configuration, not a comparison of two", "fitbot fit --save 13B lora 4090")
	case answer.IsAsk(sizing.Intent(kind)) && q.Parsed.Intent != sizing.IntentServe && extras:
		return usageError("--emit and --chart need a question with one configuration to size, not a search", "fitbot fit --chart memory.png 13B lora 4090")
	}
	return nil
}

// writeFit prints a fit answer, with --chart its picture first and with
// --emit its launch config in its place.
func (a *app) writeFit(ctx context.Context, svc *answer.Service, f fitArgs, r answer.Result) error {
	ans := r.Fit.Answer
	if f.chart != "" {
		if err := writeMemoryChart(f.chart, ans); err != nil {
			return err
		}
	}
	if f.emit != "" {
		return a.emitLaunch(ctx, svc, r.Question.Parsed.Query, ans, f.emit, strings.Join(f.words, " "))
	}
	if !f.json {
		if r.Fit.Lead != "" {
			fmt.Fprintln(a.stdout, r.Fit.Lead)
		}
		writeAnswer(a.stdout, ans)
		if f.emitAsked != "" {
			fmt.Fprintf(a.stdout, "\nLaunch config (%s; fitbot fit --emit %s prints it alone):\n", f.emitAsked, f.emitAsked)
			return a.emitLaunch(ctx, svc, r.Question.Parsed.Query, ans, f.emitAsked, strings.Join(f.words, " "))
		}
		return nil
	}
	var out any = ans
	switch c := r.Fit.OnCluster; {
	case c != nil:
		out = fitOnCluster{Answer: ans, Cluster: c.Snapshot, Placement: c.Placement, Interpreted: f.interpreted}
	case f.interpreted != nil:
		out = fitInterpreted{Answer: ans, Interpreted: f.interpreted}
	}
	return a.writeJSON(out)
}

// fitOnCluster is `fit --json` for a question put on the live cluster:
// the answer with DESIGN.md's cluster object and where the job goes.
type fitOnCluster struct {
	sizing.Answer
	Cluster     answer.ClusterSnapshot  `json:"cluster"`
	Placement   answer.ClusterPlacement `json:"cluster_placement"`
	Interpreted *interpretedJSON        `json:"interpreted,omitempty"`
}

// fitInterpreted is `fit --json` for a question the language model was
// asked about: the answer with its interpreted object (docs/json.md).
type fitInterpreted struct {
	sizing.Answer
	Interpreted *interpretedJSON `json:"interpreted"`
}

// loadConfig reads a Hugging Face config.json into a model named after
// its folder (or the file).
func loadConfig(path string) (sizing.Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return sizing.Model{}, &sizing.InputError{Problem: fmt.Sprintf("read --config: %v", err), Hint: "fitbot fit --config path/to/config.json lora rtx-4090"}
	}
	name := filepath.Base(filepath.Dir(path))
	if name == "." || name == "/" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	m, err := sizing.ModelFromConfig(data, name)
	if err != nil {
		return sizing.Model{}, fmt.Errorf("--config %s: %w", path, err)
	}
	return m, nil
}
