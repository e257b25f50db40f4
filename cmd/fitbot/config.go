package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/bot/llm"
	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/pricing"
)

// secret is a credential read from the environment. Every way of printing
// it (fmt verbs, slog, JSON) shows "[redacted]", so a Config can be
// logged or printed whole; reveal is the one way to the value, used where
// it goes to the service it is for.
type secret string

const redacted = "[redacted]"

func (s secret) reveal() string { return string(s) }

// String implements fmt.Stringer without the value.
func (s secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString implements fmt.GoStringer without the value.
func (s secret) GoString() string { return strconv.Quote(s.String()) }

// Format makes every fmt verb (%d and %x included, which would otherwise
// print a string's bytes) print the redacted form.
func (s secret) Format(f fmt.State, _ rune) { io.WriteString(f, s.String()) }

// LogValue implements slog.LogValuer without the value.
func (s secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON writes the redacted form.
func (s secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(s.String())), nil }

// MarshalText writes the redacted form (for encoders that prefer it).
func (s secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Config is everything `fitbot serve` is told: the environment (the names
// in DESIGN.md), with flags overriding the settings that are not secrets.
// loadServeConfig builds and validates it once, at start.
type Config struct {
	DB string // FITBOT_DB, --db

	BotToken      secret // SLACK_BOT_TOKEN (xoxb-)
	AppToken      secret // SLACK_APP_TOKEN (xapp-): Socket Mode when set
	SigningSecret secret // SLACK_SIGNING_SECRET: required with --http
	SlackAPIURL   string // SLACK_API_URL: the Web API root, for tests and proxies

	HTTPAddr   string // --http, FITBOT_HTTP_ADDR: Slack's HTTP endpoints (and health, metrics)
	HealthAddr string // --health, FITBOT_HEALTH_ADDR: health and metrics alone; "" turns it off

	DigestChannel string // FITBOT_DIGEST_CHANNEL: where the weekly digest goes; "" for none
	DigestCron    string // FITBOT_DIGEST_CRON
	RefreshCron   string // FITBOT_REFRESH_CRON
	Instance      string // FITBOT_INSTANCE: this instance's name in the scheduler lease

	LLM    llm.Config // OPENAI_BASE_URL, OPENAI_MODEL; the key is LLMKey
	LLMKey secret     // OPENAI_API_KEY

	HFEndpoint string // HF_ENDPOINT: the Hugging Face Hub's base URL (a mirror, a test server)
	HFToken    secret // HF_TOKEN: Bearer token for gated and private repos

	AllowedTeams    []string // FITBOT_ALLOWED_TEAMS; empty: any workspace
	AllowedChannels []string // FITBOT_ALLOWED_CHANNELS; empty: any channel
	Admins          []string // FITBOT_ADMINS: may run /fit prices refresh
	RateLimit       int      // FITBOT_RATE_LIMIT: answers per user per minute; 0: unlimited

	LogLevel        slog.Level    // FITBOT_LOG_LEVEL, --log-level
	LogFormat       string        // FITBOT_LOG_FORMAT, --log-format: auto, json or text
	ShutdownTimeout time.Duration // FITBOT_SHUTDOWN_TIMEOUT, --shutdown-timeout

	// Fetchers are the price providers, built from FITBOT_<PROVIDER>_URL,
	// FITBOT_<PROVIDER>_REGIONS and the providers' API keys.
	Fetchers []pricing.Fetcher
}

// llm is the language model's configuration with its key, for llm.New.
func (c Config) llm() llm.Config {
	cfg := c.LLM
	cfg.APIKey = c.LLMKey.reveal()
	return cfg
}

// Socket reports whether Socket Mode is on.
func (c Config) Socket() bool { return c.AppToken != "" }

// secrets lists the configured secret values, for the log redactor.
func (c Config) secrets(getenv func(string) string) []string {
	out := []string{c.BotToken.reveal(), c.AppToken.reveal(), c.SigningSecret.reveal(), c.LLMKey.reveal(), c.HFToken.reveal()}
	for _, p := range pricing.Providers() {
		if p.KeyEnv != "" {
			out = append(out, getenv(p.KeyEnv))
		}
	}
	return out
}

// Defaults of the settings that have one.
const (
	defaultHealthAddr      = ":8081"
	defaultRateLimit       = 20
	defaultShutdownTimeout = 20 * time.Second
	providerHTTPTimeout    = 60 * time.Second
)

// setting is one environment variable of `fitbot serve`, for --help.
type setting struct {
	name, flag, def, doc string
	secret               bool
}

// settings lists every variable serve reads, in the order --help shows them.
func settings() []setting {
	s := []setting{
		{name: "FITBOT_DB", flag: "db", def: defaultDBPath, doc: "SQLite database file; its folder must be writable"},
		{name: "SLACK_BOT_TOKEN", doc: "bot token (xoxb-...); required", secret: true},
		{name: "SLACK_APP_TOKEN", doc: "app-level token (xapp-..., connections:write); turns Socket Mode on", secret: true},
		{name: "SLACK_SIGNING_SECRET", doc: "signing secret; required with --http", secret: true},
		{name: "SLACK_API_URL", def: "https://slack.com/api/", doc: "Slack Web API root (tests, proxies)"},
		{name: "FITBOT_HTTP_ADDR", flag: "http", doc: "serve Slack's HTTP endpoints on this address, e.g. :8080"},
		{name: "FITBOT_HEALTH_ADDR", flag: "health", def: defaultHealthAddr, doc: "/healthz, /readyz and /metrics on their own listener; \"off\" for none"},
		{name: "FITBOT_DIGEST_CHANNEL", flag: "digest-channel", doc: "channel id for the weekly price digest; empty: no digest"},
		{name: "FITBOT_DIGEST_CRON", flag: "digest-cron", def: scheduleDigestDefault, doc: "when the digest is posted"},
		{name: "FITBOT_REFRESH_CRON", flag: "refresh-cron", def: scheduleRefreshDefault, doc: "when prices are refreshed (UTC unless CRON_TZ= is given)"},
		{name: "FITBOT_INSTANCE", flag: "instance", def: "the host name", doc: "this instance's name in the scheduler lease and the logs"},
		{name: "OPENAI_API_KEY", doc: "language-model fallback for free text", secret: true},
		{name: "OPENAI_BASE_URL", def: "https://api.openai.com/v1", doc: "an OpenAI-compatible server (Ollama, vLLM, llama.cpp); setting it turns the fallback on"},
		{name: "OPENAI_MODEL", def: llm.DefaultModel, doc: "model id"},
		{name: "HF_ENDPOINT", def: hub.DefaultEndpoint, doc: "the Hugging Face Hub's base URL (a mirror, a test server)"},
		{name: "HF_TOKEN", doc: "Hugging Face token (read) for gated and private repos", secret: true},
		{name: "FITBOT_ALLOWED_TEAMS", doc: "workspace ids allowed, comma-separated; empty: any"},
		{name: "FITBOT_ALLOWED_CHANNELS", doc: "channel ids allowed, comma-separated; empty: any"},
		{name: "FITBOT_ADMINS", doc: "user ids allowed /fit prices refresh, comma-separated"},
		{name: "FITBOT_RATE_LIMIT", def: strconv.Itoa(defaultRateLimit), doc: "answers per user per minute; 0: unlimited"},
		{name: "FITBOT_LOG_LEVEL", flag: "log-level", def: "info", doc: "debug, info, warn or error"},
		{name: "FITBOT_LOG_FORMAT", flag: "log-format", def: "auto", doc: "json, text, or auto (text on a terminal, JSON otherwise)"},
		{name: "FITBOT_SHUTDOWN_TIMEOUT", flag: "shutdown-timeout", def: defaultShutdownTimeout.String(), doc: "how long a stop waits for work in flight"},
	}
	for _, p := range pricing.Providers() {
		s = append(s, setting{name: p.URLEnv(), def: "the provider's API", doc: p.Name + " price list URL (a mirror, a test server)"})
		if p.Regional {
			s = append(s, setting{name: p.RegionsEnv(), def: "fitbot's list", doc: p.Name + " regions priced, comma-separated"})
		}
		if p.KeyEnv != "" {
			doc := p.Name + " API key; the provider is refreshed only with one"
			if p.KeyOptional {
				doc = p.Name + " API key, sent when set (the provider also answers without one)"
			}
			s = append(s, setting{name: p.KeyEnv, doc: doc, secret: true})
		}
	}
	return s
}

// errHelp is loadServeConfig's answer to -h/--help: the usage was printed.
var errHelp = errors.New("help requested")

// loadServeConfig reads the environment through getenv, then the flags in
// args, and validates the result. Every problem is reported, each naming
// its variable or flag; no error ever contains a secret's value. With
// -h/--help it prints the usage to help and returns errHelp.
func loadServeConfig(getenv func(string) string, args []string, help io.Writer) (Config, error) {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	c := Config{
		DB:            cmp.Or(env("FITBOT_DB"), defaultDBPath),
		BotToken:      secret(env("SLACK_BOT_TOKEN")),
		AppToken:      secret(env("SLACK_APP_TOKEN")),
		SigningSecret: secret(env("SLACK_SIGNING_SECRET")),
		SlackAPIURL:   env("SLACK_API_URL"),
		HTTPAddr:      env("FITBOT_HTTP_ADDR"),
		HealthAddr:    cmp.Or(env("FITBOT_HEALTH_ADDR"), defaultHealthAddr),
		DigestChannel: env("FITBOT_DIGEST_CHANNEL"),
		DigestCron:    cmp.Or(env("FITBOT_DIGEST_CRON"), scheduleDigestDefault),
		RefreshCron:   cmp.Or(env("FITBOT_REFRESH_CRON"), scheduleRefreshDefault),
		Instance:      env("FITBOT_INSTANCE"),
		LLM:           llm.FromEnv(getenv),
		LogFormat:     cmp.Or(env("FITBOT_LOG_FORMAT"), "auto"),
	}
	c.LLMKey, c.LLM.APIKey = secret(c.LLM.APIKey), ""
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	var hubErr error
	if c.HFEndpoint, c.HFToken, hubErr = hubSettings(getenv); hubErr != nil {
		errs = append(errs, hubErr)
	}

	logLevel := cmp.Or(env("FITBOT_LOG_LEVEL"), "info")
	shutdown := cmp.Or(env("FITBOT_SHUTDOWN_TIMEOUT"), defaultShutdownTimeout.String())
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.DB, "db", c.DB, "")
	fs.StringVar(&c.HTTPAddr, "http", c.HTTPAddr, "")
	fs.StringVar(&c.HealthAddr, "health", c.HealthAddr, "")
	fs.StringVar(&c.DigestChannel, "digest-channel", c.DigestChannel, "")
	fs.StringVar(&c.DigestCron, "digest-cron", c.DigestCron, "")
	fs.StringVar(&c.RefreshCron, "refresh-cron", c.RefreshCron, "")
	fs.StringVar(&c.Instance, "instance", c.Instance, "")
	fs.StringVar(&logLevel, "log-level", logLevel, "")
	fs.StringVar(&c.LogFormat, "log-format", c.LogFormat, "")
	fs.StringVar(&shutdown, "shutdown-timeout", shutdown, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeServeUsage(help)
			return Config{}, errHelp
		}
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("serve takes flags only, got %q", fs.Arg(0))
	}

	// The Slack side: which transports, and the credentials each needs.
	switch {
	case c.BotToken == "":
		bad("SLACK_BOT_TOKEN is not set: fitbot needs the bot token (xoxb-...) from the app's OAuth & Permissions page")
	case strings.HasPrefix(c.BotToken.reveal(), "xapp-"):
		bad("SLACK_BOT_TOKEN holds an app-level token (xapp-...); it belongs in SLACK_APP_TOKEN, and SLACK_BOT_TOKEN takes the bot token (xoxb-...)")
	case !strings.HasPrefix(c.BotToken.reveal(), "xoxb-"):
		bad("SLACK_BOT_TOKEN is not a bot token: it should start with xoxb-")
	}
	if c.AppToken != "" && !strings.HasPrefix(c.AppToken.reveal(), "xapp-") {
		bad("SLACK_APP_TOKEN is not an app-level token: it should start with xapp- (Basic Information > App-Level Tokens, scope connections:write)")
	}
	if c.HTTPAddr == "" && c.AppToken == "" {
		bad("nothing to serve: set SLACK_APP_TOKEN for Socket Mode, or pass --http ADDR (FITBOT_HTTP_ADDR) for Slack's HTTP endpoints")
	}
	if c.HTTPAddr != "" {
		if c.SigningSecret == "" {
			bad("SLACK_SIGNING_SECRET is not set: --http %s serves Slack's HTTP endpoints, which verify every request with it (Basic Information > Signing Secret)", c.HTTPAddr)
		}
		if err := checkAddr(c.HTTPAddr); err != nil {
			bad("--http (FITBOT_HTTP_ADDR) %q: %v", c.HTTPAddr, err)
		}
	}
	if c.HealthAddr == "off" {
		c.HealthAddr = ""
	}
	if c.HealthAddr != "" {
		if err := checkAddr(c.HealthAddr); err != nil {
			bad("--health (FITBOT_HEALTH_ADDR) %q: %v", c.HealthAddr, err)
		}
	}
	if c.SlackAPIURL != "" {
		if err := checkURL(c.SlackAPIURL); err != nil {
			bad("SLACK_API_URL %q: %v", c.SlackAPIURL, err)
		}
	}
	if c.LLM.BaseURL != "" {
		if err := checkURL(c.LLM.BaseURL); err != nil {
			bad("OPENAI_BASE_URL %q: %v", c.LLM.BaseURL, err)
		}
	}
	if c.DigestChannel != "" && !channelID.MatchString(c.DigestChannel) {
		bad("FITBOT_DIGEST_CHANNEL %q is not a channel id (C0123ABCD; right-click the channel > View channel details)", c.DigestChannel)
	}

	// Schedules.
	if _, err := parseCronSpec(c.RefreshCron); err != nil {
		bad("FITBOT_REFRESH_CRON: %v", err)
	}
	if _, err := parseCronSpec(c.DigestCron); err != nil {
		bad("FITBOT_DIGEST_CRON: %v", err)
	}

	// Access.
	c.AllowedTeams = idList(env("FITBOT_ALLOWED_TEAMS"), "FITBOT_ALLOWED_TEAMS", teamID, "T0123ABCD", &errs)
	c.AllowedChannels = idList(env("FITBOT_ALLOWED_CHANNELS"), "FITBOT_ALLOWED_CHANNELS", channelID, "C0123ABCD", &errs)
	c.Admins = idList(env("FITBOT_ADMINS"), "FITBOT_ADMINS", userID, "U0123ABCD", &errs)
	c.RateLimit = defaultRateLimit
	if v := env("FITBOT_RATE_LIMIT"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			bad("FITBOT_RATE_LIMIT %q: want a whole number of answers per user per minute (0 for no limit)", v)
		}
		c.RateLimit = n
	}

	// Operations.
	if err := c.LogLevel.UnmarshalText([]byte(logLevel)); err != nil {
		bad("FITBOT_LOG_LEVEL (--log-level) %q: want debug, info, warn or error", logLevel)
	}
	switch c.LogFormat {
	case "auto", "json", "text":
	default:
		bad("FITBOT_LOG_FORMAT (--log-format) %q: want json, text or auto", c.LogFormat)
	}
	d, err := time.ParseDuration(shutdown)
	if err != nil || d <= 0 {
		bad("FITBOT_SHUTDOWN_TIMEOUT (--shutdown-timeout) %q: want a positive duration such as 20s", shutdown)
	}
	c.ShutdownTimeout = d
	if c.DB == "" {
		bad("FITBOT_DB (--db) is empty: give the database file's path")
	}

	// Price providers: URLs, regions and keys.
	fetchers, err := pricing.Fetchers(getenv, "", &http.Client{Timeout: providerHTTPTimeout}, nil)
	if err != nil {
		bad("%v", err)
	}
	c.Fetchers = fetchers

	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// hubSettings reads HF_ENDPOINT (default the public Hub) and HF_TOKEN,
// the Hugging Face tools' own variables; every command that reaches the
// Hub reads them here.
func hubSettings(getenv func(string) string) (endpoint string, token secret, err error) {
	endpoint = cmp.Or(strings.TrimSpace(getenv("HF_ENDPOINT")), hub.DefaultEndpoint)
	if err := checkURL(endpoint); err != nil {
		return "", "", fmt.Errorf("HF_ENDPOINT %q: %v", endpoint, err)
	}
	return endpoint, secret(strings.TrimSpace(getenv("HF_TOKEN"))), nil
}

// Slack id shapes: upper-case letters and digits after a kind letter.
var (
	teamID    = regexp.MustCompile(`^[TE][A-Z0-9]{2,}$`)
	channelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
	userID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
)

// idList reads a comma-separated list of Slack ids, reporting the ones
// that are not of the expected shape.
func idList(v, name string, shape *regexp.Regexp, example string, errs *[]error) []string {
	var out []string
	for id := range strings.SplitSeq(v, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		if !shape.MatchString(id) {
			*errs = append(*errs, fmt.Errorf("%s: %q is not a Slack id like %s", name, id, example))
			continue
		}
		out = append(out, id)
	}
	return out
}

// checkAddr checks a listen address: host:port, the host optional.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port or :port, e.g. :8080")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return errors.New("the port is not a number from 0 to 65535")
	}
	return nil
}

// checkURL checks an absolute http(s) URL without echoing credentials it
// might carry in its user info.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("want an absolute http(s) URL")
	}
	return nil
}

// writeServeUsage prints `fitbot serve --help`: every variable, its flag
// and its default. Secrets are listed by name only.
func writeServeUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: fitbot serve [--http ADDR] [--health ADDR] [flags]

Runs the Slack bot: Socket Mode when SLACK_APP_TOKEN is set (no public URL
needed), Slack's HTTP endpoints (/slack/commands, /slack/events,
/slack/interactions) when --http is given, or both; the price refresh and
weekly digest schedules; /healthz, /readyz and /metrics on --health (and on
--http). SIGTERM or SIGINT stops it after the work in flight.

Settings come from the environment; a flag overrides its variable. Secrets
are read from the environment only and never printed.

`)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VARIABLE\tFLAG\tDEFAULT\tMEANING")
	for _, s := range settings() {
		flagName, def := "", s.def
		if s.flag != "" {
			flagName = "--" + s.flag
		}
		if s.secret {
			def = "(secret)"
		}
		if def == "" {
			def = "-"
		}
		if flagName == "" {
			flagName = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.name, flagName, def, s.doc)
	}
	tw.Flush()
}
