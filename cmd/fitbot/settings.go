package main

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/bot/llm"
	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/slackoauth"
)

// ConfigError is one setting that is wrong: the variable, the value (never
// a secret's) and why. Every subcommand reports its settings this way.
type ConfigError struct {
	Field string // the environment variable
	Flag  string // its flag without dashes, "" when it has none
	Value string // "" for a secret, or when the setting is missing
	Err   error
}

func (e *ConfigError) Error() string {
	name := e.Field
	if e.Flag != "" {
		name += " (--" + e.Flag + ")"
	}
	if e.Value == "" {
		return name + ": " + e.Err.Error()
	}
	return fmt.Sprintf("%s %q: %v", name, e.Value, e.Err)
}

func (e *ConfigError) Unwrap() error { return e.Err }

// envVar is one row of the settings table: an environment variable, the
// flag that overrides it, its default, its --help line and its check.
type envVar struct {
	name   string
	flag   string             // "" when only the environment sets it
	def    string             // the value when unset; "" for none
	defDoc string             // --help's default when def is not the whole story ("the host name")
	doc    string             // --help's meaning
	secret bool               // read from the environment only, never printed
	check  func(string) error // nil: any value; called on every value given
}

// envVars is the settings table: every variable any subcommand reads, in
// the order serve --help shows them. Adding a setting is one row here;
// the price providers' rows follow from pricing.Providers.
var envVars = []envVar{
	{name: "FITBOT_DB", flag: "db", def: defaultDBPath, doc: "SQLite database file (its folder must be writable), or a postgres:// URL for several replicas", check: nonEmpty("give the database file's path")},
	{name: "SLACK_BOT_TOKEN", doc: "bot token (xoxb-...); required unless SLACK_CLIENT_ID installs fitbot in many workspaces", secret: true, check: checkBotToken},
	{name: "SLACK_CLIENT_ID", doc: "app client id: turns on /slack/install and one token per workspace (OAuth v2; with --http)"},
	{name: "SLACK_CLIENT_SECRET", doc: "app client secret; required with SLACK_CLIENT_ID", secret: true},
	{name: "FITBOT_TOKEN_KEY", doc: "base64 of 32 random bytes (openssl rand -base64 32): seals workspace tokens at rest; required with SLACK_CLIENT_ID", secret: true, check: checkTokenKey},
	{name: "SLACK_REDIRECT_URL", doc: "this app's https://.../slack/oauth_redirect, as listed in the app's OAuth settings", check: checkURL},
	{name: "SLACK_APP_TOKEN", doc: "app-level token (xapp-..., connections:write); turns Socket Mode on", secret: true, check: checkAppToken},
	{name: "SLACK_SIGNING_SECRET", doc: "signing secret; required with --http", secret: true},
	{name: "SLACK_API_URL", defDoc: "https://slack.com/api/", doc: "Slack Web API root (tests, proxies)", check: checkURL},
	{name: "FITBOT_HTTP_ADDR", flag: "http", doc: "serve Slack's HTTP endpoints on this address, e.g. :8080", check: checkAddr},
	{name: "FITBOT_HEALTH_ADDR", flag: "health", def: defaultHealthAddr, doc: "/healthz, /readyz and /metrics on their own listener; \"off\" for none", check: checkHealthAddr},
	{name: "FITBOT_DIGEST_CHANNEL", flag: "digest-channel", doc: "channel id for the weekly price digest; empty: no digest", check: checkChannel},
	{name: "FITBOT_DIGEST_CRON", flag: "digest-cron", def: scheduleDigestDefault, doc: "when the digest is posted", check: checkCron},
	{name: "FITBOT_REFRESH_CRON", flag: "refresh-cron", def: scheduleRefreshDefault, doc: "when prices are refreshed (UTC unless CRON_TZ= is given)", check: checkCron},
	{name: "FITBOT_INSTANCE", flag: "instance", defDoc: "the host name", doc: "this instance's name in the scheduler lease and the logs"},
	{name: "OPENAI_API_KEY", doc: "language-model fallback for free text", secret: true},
	{name: "OPENAI_BASE_URL", defDoc: "https://api.openai.com/v1", doc: "an OpenAI-compatible server (Ollama, vLLM, llama.cpp); setting it turns the fallback on", check: checkURL},
	{name: "OPENAI_MODEL", defDoc: llm.DefaultModel, doc: "model id"},
	{name: "HF_ENDPOINT", def: hub.DefaultEndpoint, doc: "the Hugging Face Hub's base URL (a mirror, a test server)", check: checkURL},
	{name: "HF_TOKEN", doc: "Hugging Face token (read) for gated and private repos", secret: true},
	{name: "FITBOT_ALLOWED_TEAMS", doc: "workspace ids allowed, comma-separated; empty: any", check: checkIDs(teamID, "T0123ABCD")},
	{name: "FITBOT_ALLOWED_CHANNELS", doc: "channel ids allowed, comma-separated; empty: any", check: checkIDs(channelID, "C0123ABCD")},
	{name: "FITBOT_ADMINS", doc: "user ids allowed /fit prices refresh, comma-separated", check: checkIDs(userID, "U0123ABCD")},
	{name: "FITBOT_RATE_LIMIT", def: strconv.Itoa(defaultRateLimit), doc: "answers per user per minute; 0: unlimited", check: checkRateLimit},
	{name: "FITBOT_CLUSTER", def: "auto", doc: "the team's live cluster: kubernetes, slurm, off, or auto (Kubernetes when KUBECONFIG, FITBOT_KUBE_CONTEXT or a pod's service account is there, else Slurm when FITBOT_SLURM_URL or FITBOT_SLURM_SINFO is set)", check: checkClusterKind},
	{name: "KUBECONFIG", doc: "kubeconfig file(s) for the team's Kubernetes cluster, as kubectl reads them (fitbot only lists nodes and pods)"},
	{name: "FITBOT_KUBE_CONTEXT", defDoc: "the kubeconfig's current context", doc: "the kubeconfig context to read"},
	{name: "KUBERNETES_SERVICE_HOST", doc: "set by Kubernetes in a pod: fitbot then reads the cluster it runs in with its service account (FITBOT_CLUSTER=off: not)"},
	{name: "FITBOT_SLURM_URL", doc: "slurmrestd's base URL (http://slurmctl:6820) for the team's Slurm cluster", check: checkURL},
	{name: "FITBOT_PROMETHEUS_URL", doc: "a Prometheus with the DCGM exporter's series (http://prometheus:9090): fitbot plans measure --pod/--host reads a run's peak memory from it", check: checkURL},
	{name: "FITBOT_PROMETHEUS_TOKEN", doc: "bearer token for FITBOT_PROMETHEUS_URL, when it wants one", secret: true},
	{name: "FITBOT_DCGM_POD_LABEL", def: "pod", doc: "the label of the DCGM series that names the pod"},
	{name: "FITBOT_DCGM_NAMESPACE_LABEL", def: "namespace", doc: "the label of the DCGM series that names the pod's namespace"},
	{name: "FITBOT_DCGM_HOST_LABEL", def: "Hostname", doc: "the label of the DCGM series that names the host"},
	{name: "FITBOT_SLURM_TOKEN", doc: "Slurm JWT sent as X-SLURM-USER-TOKEN (scontrol token)", secret: true},
	{name: "FITBOT_SLURM_USER", defDoc: "the user the token names", doc: "sent as X-SLURM-USER-NAME (Slurm 22.05 needs it with every token; a proxy user's token names another user)"},
	{name: "FITBOT_SLURM_API_VERSION", defDoc: "the newest of v0.0.36-v0.0.44 the server has (its OpenAPI document, else a 404 per version)", doc: "pins slurmrestd's data parser version", check: checkSlurmVersion},
	{name: "FITBOT_SLURM_SINFO", doc: "sinfo command for `sinfo --json` where slurmrestd is not deployed or fails, e.g. /usr/bin/sinfo"},
	{name: "FITBOT_CLUSTER_TTL", def: cluster.DefaultTTL.String(), doc: "how long a read of the cluster is reused", check: checkPositiveDuration},
	{name: "FITBOT_LOG_LEVEL", flag: "log-level", def: "info", doc: "debug, info, warn or error", check: checkLogLevel},
	{name: "FITBOT_LOG_FORMAT", flag: "log-format", def: "auto", doc: "json, text, or auto (text on a terminal, JSON otherwise)", check: checkLogFormat},
	{name: "FITBOT_MAX_CONNS", flag: "max-conns", defDoc: "half the open-file limit, 64 to 4096", doc: "connections the --http listener holds open; at the cap the oldest idle one is closed to admit a new one, and with none idle the new one is closed at once (the health listener holds 64 of its own)", check: checkMaxConns},
	{name: "FITBOT_PPROF", def: "off", doc: "on: Go's profiler at /debug/pprof/ on the health listener, when it has its own address (never on Slack's listener)", check: checkOnOff},
	{name: "FITBOT_SHUTDOWN_TIMEOUT", flag: "shutdown-timeout", def: defaultShutdownTimeout.String(), doc: "how long a stop waits for work in flight", check: checkPositiveDuration},
}

// Price providers' variables, named here (pricing knows none): a URL to
// point each elsewhere, the regions of a regional one, the key of a keyed one.
func providerURLVar(p pricing.Provider) string {
	return "FITBOT_" + strings.ToUpper(p.Name) + "_URL"
}
func providerRegionsVar(p pricing.Provider) string {
	return "FITBOT_" + strings.ToUpper(p.Name) + "_REGIONS"
}
func providerKeyVar(p pricing.Provider) string { return strings.ToUpper(p.Name) + "_API_KEY" }

// providerVars are the settings table's rows for the price providers.
func providerVars() []envVar {
	var out []envVar
	for _, p := range pricing.Providers() {
		out = append(out, envVar{name: providerURLVar(p), defDoc: "the provider's API", doc: p.Name + " price list URL (a mirror, a test server)", check: checkURL})
		if p.Regional {
			out = append(out, envVar{name: providerRegionsVar(p), defDoc: "fitbot's list", doc: p.Name + " regions priced, comma-separated",
				check: func(v string) error { return pricing.CheckRegions(p.Name, splitList(v)) }})
		}
		switch {
		case p.Keyed:
			out = append(out, envVar{name: providerKeyVar(p), doc: p.Name + " API key; the provider is refreshed only with one", secret: true})
		case p.KeyTaken:
			out = append(out, envVar{name: providerKeyVar(p), doc: p.Name + " API key, sent when set (the provider also answers without one)", secret: true})
		}
	}
	return out
}

// allVars is the whole settings table.
func allVars() []envVar { return append(append([]envVar(nil), envVars...), providerVars()...) }

// environ is the environment as fitbot reads it: every variable of the
// settings table read once, with one rule (surrounding white space is
// dropped, and a blank variable is unset), then flags laid over it.
type environ struct {
	vars  map[string]envVar
	vals  map[string]string // given values: set variables and flags given
	flags bool              // the subcommand takes the table's flags: errors name them
}

// readEnviron reads every variable of the settings table through getenv.
// It is the only place fitbot reads its environment.
func readEnviron(getenv func(string) string) environ {
	e := environ{vars: map[string]envVar{}, vals: map[string]string{}}
	for _, v := range allVars() {
		e.vars[v.name] = v
		if s := strings.TrimSpace(getenv(v.name)); s != "" {
			e.vals[v.name] = s
		}
	}
	return e
}

// get is a variable's value: the given one, else its default.
func (e environ) get(name string) string {
	if v, ok := e.vals[name]; ok {
		return v
	}
	if _, ok := e.vars[name]; !ok {
		panic("fitbot: " + name + " is not in the settings table")
	}
	return e.vars[name].def
}

// set lays a flag's value over its variable; an empty flag counts as given.
func (e environ) set(name, value string) { e.vals[name] = strings.TrimSpace(value) }

// check runs the named variables' checks on their given values, one
// ConfigError for each that fails.
func (e environ) check(names ...string) []error {
	var errs []error
	for _, name := range names {
		v := e.vars[name]
		val, ok := e.vals[name]
		if !ok || v.check == nil {
			continue
		}
		if err := v.check(val); err != nil {
			errs = append(errs, e.invalid(name, err))
		}
	}
	return errs
}

// require reports each named variable that is not set.
func (e environ) require(why string, names ...string) []error {
	var errs []error
	for _, name := range names {
		if e.get(name) == "" {
			errs = append(errs, e.invalid(name, fmt.Errorf("is not set: %s", why)))
		}
	}
	return errs
}

// invalid is the ConfigError for name, its value shown unless secret.
func (e environ) invalid(name string, err error) *ConfigError {
	v := e.vars[name]
	ce := &ConfigError{Field: name, Err: err}
	if e.flags {
		ce.Flag = v.flag
	}
	if !v.secret {
		ce.Value = e.vals[name]
	}
	return ce
}

// secrets lists every secret given, for the log redactor.
func (e environ) secrets() []string {
	var out []string
	for _, name := range e.names() {
		if e.vars[name].secret && e.vals[name] != "" {
			out = append(out, e.vals[name])
		}
	}
	return out
}

// names lists every variable of the table.
func (e environ) names() []string {
	var out []string
	for _, v := range allVars() {
		out = append(out, v.name)
	}
	return out
}

// hubSettings is HF_ENDPOINT (default the public Hub), checked, and
// HF_TOKEN: the Hugging Face tools' own variables, for every command
// that reaches the Hub.
func (e environ) hubSettings() (endpoint string, token secret, err error) {
	if errs := e.check("HF_ENDPOINT"); len(errs) > 0 {
		return "", "", errs[0]
	}
	return e.get("HF_ENDPOINT"), secret(e.get("HF_TOKEN")), nil
}

// providerSettings is what pricing.Fetchers is told about each provider.
func (e environ) providerSettings() map[string]pricing.ProviderSettings {
	out := map[string]pricing.ProviderSettings{}
	for _, p := range pricing.Providers() {
		s := pricing.ProviderSettings{URL: e.get(providerURLVar(p))}
		if p.Regional {
			s.Regions = splitList(e.get(providerRegionsVar(p)))
		}
		if p.Keyed || p.KeyTaken {
			s.Key = e.get(providerKeyVar(p))
		}
		out[p.Name] = s
	}
	return out
}

// providerVarNames lists the providers' variables, for their checks.
func providerVarNames() []string {
	var out []string
	for _, v := range providerVars() {
		out = append(out, v.name)
	}
	return out
}

// settingsProblem is a subcommand's one-line problem for the settings
// that failed their checks: the error itself when one did, else a list.
func settingsProblem(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	var b strings.Builder
	b.WriteString("the settings have problems:")
	for _, err := range errs {
		b.WriteString("\n  - " + err.Error())
	}
	return b.String()
}

// The checks of the settings table.

func nonEmpty(hint string) func(string) error {
	return func(v string) error {
		if v == "" {
			return errors.New("is empty: " + hint)
		}
		return nil
	}
}

func checkBotToken(v string) error {
	switch {
	case strings.HasPrefix(v, "xapp-"):
		return errors.New("holds an app-level token (xapp-...); it belongs in SLACK_APP_TOKEN, and SLACK_BOT_TOKEN takes the bot token (xoxb-...)")
	case !strings.HasPrefix(v, "xoxb-"):
		return errors.New("is not a bot token: it should start with xoxb-")
	}
	return nil
}

func checkAppToken(v string) error {
	if !strings.HasPrefix(v, "xapp-") {
		return errors.New("is not an app-level token: it should start with xapp- (Basic Information > App-Level Tokens, scope connections:write)")
	}
	return nil
}

func checkHealthAddr(v string) error {
	if v == "off" {
		return nil
	}
	return checkAddr(v)
}

func checkChannel(v string) error {
	if !channelID.MatchString(v) {
		return errors.New("is not a channel id (C0123ABCD; right-click the channel > View channel details)")
	}
	return nil
}

func checkCron(v string) error {
	_, err := parseCronSpec(v)
	return err
}

func checkMaxConns(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 1_000_000 {
		return fmt.Errorf("%q is not a number of connections from 1 to 1000000", v)
	}
	return nil
}

func checkOnOff(v string) error {
	if v != "on" && v != "off" {
		return errors.New("want on or off")
	}
	return nil
}

func checkRateLimit(v string) error {
	if n, err := strconv.Atoi(v); err != nil || n < 0 {
		return errors.New("want a whole number of answers per user per minute (0 for no limit)")
	}
	return nil
}

func checkLogLevel(v string) error {
	var l slog.Level
	if l.UnmarshalText([]byte(v)) != nil {
		return errors.New("want debug, info, warn or error")
	}
	return nil
}

func checkClusterKind(v string) error {
	switch v {
	case "auto", "kubernetes", "slurm", "off":
		return nil
	}
	return errors.New("want kubernetes, slurm, off or auto")
}

var slurmVersion = regexp.MustCompile(`^v0\.0\.[0-9]{2}$`)

func checkSlurmVersion(v string) error {
	if !slurmVersion.MatchString(v) {
		return errors.New("want a data parser version such as v0.0.42 (slurmrestd -d list)")
	}
	return nil
}

func checkLogFormat(v string) error {
	switch v {
	case "auto", "json", "text":
		return nil
	}
	return errors.New("want json, text or auto")
}

func checkPositiveDuration(v string) error {
	if d, err := time.ParseDuration(v); err != nil || d <= 0 {
		return errors.New("want a positive duration such as 20s")
	}
	return nil
}

// checkIDs checks a comma-separated list of Slack ids of one shape.
func checkIDs(shape *regexp.Regexp, example string) func(string) error {
	return func(v string) error {
		var errs []error
		for _, id := range splitList(v) {
			if !shape.MatchString(id) {
				errs = append(errs, fmt.Errorf("%q is not a Slack id like %s", id, example))
			}
		}
		return errors.Join(errs...)
	}
}

// splitList splits a comma-separated setting, dropping blanks.
func splitList(v string) []string {
	var out []string
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// checkTokenKey checks FITBOT_TOKEN_KEY without repeating it.
func checkTokenKey(v string) error {
	_, err := slackoauth.ParseKey(v)
	return err
}
