package reading

import (
	"slices"
	"strconv"
	"strings"
)

// The kinds of message that are one of fitbot's own commands, read alike
// in Slack's /fit and `fitbot fit` (plans and help have kinds of their own).
const (
	RouteCluster  RouteKind = "cluster"  // the team's live cluster: free GPUs by node
	RoutePlan     RouteKind = "plan"     // one kept plan, by its id (Routing.Args), answered again
	RouteHardware RouteKind = "hardware" // the team's own machines: list, add or remove (Routing.Args)
	RouteGPUs     RouteKind = "gpus"     // the GPUs fitbot knows
	RouteModels   RouteKind = "models"   // the models fitbot knows
)

// commandKinds are the commands a message's first word may name, by the
// name of their vocab.txt set (command_NAME).
var commandKinds = []RouteKind{RouteCluster, RoutePlan, RoutePlans, RouteHardware, RouteGPUs, RouteModels}

// Words of the command routing, by key.
var (
	commandAlone  = vocab.set("command_alone")
	commandID     = vocab.set("command_id")
	catalogAsk    = vocab.set("catalog_ask")
	hardwareNoun  = vocab.set("hardware_noun")
	hardwareTeach = vocab.set("hardware_teach")
	helpHow       = vocab.set("help_how")
	hardwareOwner = vocab.set("hardware_owner")
	hardwareOwn   = vocab.set("hardware_own")
)

// commandRoute reads a message that starts with a command's word
// ("cluster", "plan 17", "hardware add box: 2x 4090", "plans llama"):
// the command and the words after it (Args; Plans for plans). A command
// that takes nothing, or only an id, is one only so said, or with a verb
// of command_then_NAME after the id ("plan 42 measured peak 71 GiB");
// "gpus for 200 users" and "plan a 70b run" are questions.
func commandRoute(text string, toks []token) (Routing, bool) {
	toks = slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.ignorable })
	if len(toks) == 0 {
		return Routing{}, false
	}
	first := toks[0].key
	var kind RouteKind
	for _, k := range commandKinds {
		if vocab.set("command_" + string(k)).has(first) {
			kind = k
			break
		}
	}
	if kind == "" {
		return Routing{}, false
	}
	rest := strings.TrimSpace(text[toks[0].end:])
	name := string(kind)
	switch {
	case commandAlone.has(name) && len(toks) > 1:
		return Routing{}, false
	case commandID.has(name) && !(len(toks) >= 2 && isPlanID(toks[1].key) && (len(toks) == 2 || vocab.set("command_then_"+name).has(toks[2].key))):
		return Routing{}, false
	}
	if verbs, ok := vocab.sets["command_verb_"+name]; ok && len(toks) > 1 && !verbs[toks[1].key] {
		return Routing{}, false
	}
	if kind == RoutePlans {
		return Routing{Kind: RoutePlans, Plans: rest}, true
	}
	return Routing{Kind: kind, Args: strings.TrimPrefix(rest, "#")}, true
}

// MeasuredRun reads the words of a plan command that record a run of
// the plan ("42 measured peak 71 GiB, 3150 tok/s, 5.2 h"): the plan's id
// and the words after the verb; ok is false for any other words.
func MeasuredRun(args string) (id int64, words string, ok bool) {
	idWord, after, _ := strings.Cut(strings.TrimSpace(args), " ")
	verb, words, _ := strings.Cut(strings.TrimSpace(after), " ")
	id, err := strconv.ParseInt(strings.TrimPrefix(idWord, "#"), 10, 64)
	if err != nil || id <= 0 || !vocab.set("command_then_plan").has(strings.ToLower(verb)) {
		return 0, "", false
	}
	return id, strings.TrimSpace(words), true
}

// isPlanID reports whether key is a plan's id: digits, "#" before them
// allowed.
func isPlanID(key string) bool {
	key = strings.TrimPrefix(key, "#")
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		if !isDigit(key[i]) {
			return false
		}
	}
	return true
}

// askedRoute reads a question about fitbot itself asked in words: the
// GPUs or models it knows ("what gpus do you know about"), how to tell it
// about the team's machines ("how do i add our hardware") or which the
// team has ("which GPUs does the team own"), with no model or GPU named
// that would make it a sizing question.
func askedRoute(text string, toks []token) (Routing, bool) {
	var catalog RouteKind
	ask, how, teach, noun, owner, own, cards := false, false, false, false, false, false, false
	for _, t := range toks {
		owner, own, cards = owner || hardwareOwner.has(t.key), own || hardwareOwn.has(t.key), cards || gpuAsked.has(t.key)
		for _, k := range []RouteKind{RouteGPUs, RouteModels} {
			if vocab.set("catalog_" + string(k)).has(t.key) {
				catalog = k
			}
		}
		ask = ask || catalogAsk.has(t.key)
		how, teach, noun = how || helpHow.has(t.key), teach || hardwareTeach.has(t.key), noun || hardwareNoun.has(t.key)
	}
	var r Routing
	switch {
	case catalog != "" && ask:
		r = Routing{Kind: catalog}
	case how && teach && noun:
		r = Routing{Kind: RouteHelp, Topic: string(RouteHardware)}
	case owner && own && (noun || cards):
		r = Routing{Kind: RouteHardware}
	default:
		return Routing{}, false
	}
	if gpus, _, _ := gpusNamed(text, toks); len(gpus) > 0 {
		return Routing{}, false
	}
	p, err := Parse(text)
	if p.Query.Model != "" || p.Query.Params != 0 || p.Hub != "" || p.Missing.Words != "" || r.Kind == RouteHardware && err == nil {
		// "the biggest model we can train on the gpus we have" sizes.
		return Routing{}, false
	}
	return r, true
}

// closedNamed reports whether the tokens name a closed model (GPT-4,
// Claude, Gemini): a question about one is the parser's to refuse as
// closed, whatever else it asks ("gpt-4 finetune cost" is not a price
// question about every GPU).
func closedNamed(toks []token) bool {
	p := &parser{toks: toks}
	for i := range toks {
		if _, _, n := p.closedModelAt(i); n > 0 {
			return true
		}
	}
	return false
}
