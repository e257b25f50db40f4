package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/plan"
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
	chart  string // PNG path for the memory picture; "" for none
	help   bool
	words  []string
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
	svc, est := a.answers()
	var q answer.Question
	if f.config != "" {
		arch, err := loadConfig(f.config)
		if err != nil {
			return inputError(err, "")
		}
		q = svc.ReadConfigured(question, arch)
	} else if q = svc.Read(question); !q.Sizing() {
		return a.routed(ctx, f, q)
	} else if svc.AboutCluster(q) {
		return a.showCluster(ctx, f.json)
	}
	q = svc.Resolve(ctx, cliTeam, q)
	q.Scope = store.AllPlans() // the database's owner reads every measured run
	if q.Err != nil {
		return inputError(q.Err, "")
	}
	if q.Compared() {
		return a.compare(ctx, svc, q, f)
	}
	if q.Parsed.Intent == sizing.IntentServe && (f.emit != "" || f.chart != "") {
		return a.serveExtras(est.estimator(ctx), q.Parsed, &f)
	}
	if q.Ask() {
		if f.emit != "" || f.chart != "" {
			return usageError("--emit and --chart need a question with one configuration to size, not a search", "fitbot fit --chart memory.png 13B lora 4090")
		}
		return a.ask(ctx, svc, q, f.json, f.save)
	}
	fit, err := svc.Fit(ctx, q)
	if err != nil {
		return inputError(err, "")
	}
	ans := fit.Answer
	if f.chart != "" {
		if err := writeMemoryChart(f.chart, ans); err != nil {
			return err
		}
	}
	if f.emit != "" {
		return a.emitLaunch(est.estimator(ctx), q.Parsed.Query, ans, f.emit, question)
	}
	if f.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		var out any = ans
		if fit.OnCluster != nil {
			out = fitOnCluster{Answer: ans, Cluster: fit.OnCluster.Snapshot, Placement: fit.OnCluster.Placement}
		}
		if err := enc.Encode(out); err != nil {
			return failure(fmt.Sprintf("write the answer: %v", err), "")
		}
	} else {
		if fit.Lead != "" {
			fmt.Fprintln(a.stdout, fit.Lead)
		}
		writeAnswer(a.stdout, ans)
	}
	if f.save {
		return a.savePlan(ctx, plan.FromAnswer(question, q.Parsed.Query, ans), f.json)
	}
	return nil
}

// fitOnCluster is `fit --json` for a question put on the live cluster:
// the answer with DESIGN.md's cluster object and where the job goes.
type fitOnCluster struct {
	sizing.Answer
	Cluster   cluster.Snapshot  `json:"cluster"`
	Placement cluster.Placement `json:"cluster_placement"`
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
