package reading

import "testing"

// TestRouteCommands: fitbot's own commands, said as Slack's /fit says
// them or in words, route alike on both faces; a command word that
// starts a question leaves it a question.
func TestRouteCommands(t *testing.T) {
	for _, c := range []struct {
		text  string
		want  RouteKind
		args  string
		topic string
	}{
		{text: "cluster", want: RouteCluster},
		{text: "<@U123> cluster", want: RouteCluster},
		{text: "plan 17", want: RoutePlan, args: "17"},
		{text: "plan #17", want: RoutePlan, args: "17"},
		{text: "hardware", want: RouteHardware},
		{text: "hardware add gpu-box-2: 4x rtx 6000 ada, 256gb ram", want: RouteHardware, args: "add gpu-box-2: 4x rtx 6000 ada, 256gb ram"},
		{text: "hardware remove gpu-box-2", want: RouteHardware, args: "remove gpu-box-2"},
		{text: "machines list", want: RouteHardware, args: "list"},
		{text: "gpus", want: RouteGPUs},
		{text: "models", want: RouteModels},
		{text: "what gpus does the bot know about", want: RouteGPUs},
		{text: "what gpus do you know", want: RouteGPUs},
		{text: "which models do you support?", want: RouteModels},
		{text: "how do i tell fitbot about our new dgx", want: RouteHelp, topic: "hardware"},
		{text: "how do I add our hardware", want: RouteHelp, topic: "hardware"},
		{text: "plans llama", want: RoutePlans},
		// A closed model is the parser's to refuse, whatever the words.
		{text: "gpt-4 finetune cost", want: RouteSizing},
		{text: "how much would it cost to run claude 3.5 sonnet", want: RouteSizing},
		// Questions that start with or hold a command's word.
		{text: "plan a 70b run on 8 h100", want: RouteSizing},
		{text: "gpus for 200 users of llama 3 8b", want: RouteSizing},
		{text: "cluster of 8 h100 for llama 70b full finetune", want: RouteSizing},
		{text: "which gpus support llama 3.1 70b inference", want: RouteSizing},
		{text: "how do i add lora to llama 3.1 8b on a 4090", want: RouteSizing},
	} {
		r := Route(c.text)
		if r.Kind != c.want || r.Args != c.args || r.Topic != c.topic {
			t.Errorf("Route(%q) = %s args %q topic %q, want %s args %q topic %q", c.text, r.Kind, r.Args, r.Topic, c.want, c.args, c.topic)
		}
	}
}

// TestRouteHistory: a price question that asks how prices moved over
// time is a price history question; one about today's prices is not.
func TestRouteHistory(t *testing.T) {
	for _, c := range []struct {
		text    string
		history bool
	}{
		{"have h100 prices gone down in the last few months? thinking whether to wait before we commit", true},
		{"are A10G prices on aws trending up or down?", true},
		{"whats the price trend for 4090s on runpod/vast over the last 3 months", true},
		{"h100 price history", true},
		{"how much is an h100 per hour", false},
		{"h100 price per month", false},
	} {
		r := Route(c.text)
		if r.Kind != RoutePrice || r.History != c.history {
			t.Errorf("Route(%q) = %s history %v, want price history %v", c.text, r.Kind, r.History, c.history)
		}
	}
}

// TestRoutePeriod: a rental period said as a weekend or with a hedge
// ("like 48 hrs") is priced for its hours.
func TestRoutePeriod(t *testing.T) {
	for _, c := range []struct {
		text  string
		hours float64
	}{
		{"cheapest place to run a 4090 for a weekend hackathon? like 48 hrs", 48},
		{"cheapest 4090 for like 48 hrs", 48},
		{"h100 price for 3 days", 72},
		{"h100 price", 0},
	} {
		if r := Route(c.text); r.Kind != RoutePrice || r.Hours != c.hours {
			t.Errorf("Route(%q) = %s for %g hours, want price for %g", c.text, r.Kind, r.Hours, c.hours)
		}
	}
}
