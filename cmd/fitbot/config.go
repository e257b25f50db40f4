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
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/bot/llm"
	"github.com/fitbot/fitbot/internal/netcap"
	"github.com/fitbot/fitbot/internal/samehost"
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

// Config is everything `fitbot serve` is told: the settings table
// (settings.go, the names in DESIGN.md), with flags overriding the
// settings that are not secrets. loadServeConfig builds and validates it
// once, at start.
type Config struct {
	DB string // FITBOT_DB, --db

	BotToken      secret // SLACK_BOT_TOKEN (xoxb-)
	AppToken      secret // SLACK_APP_TOKEN (xapp-): Socket Mode when set
	SigningSecret secret // SLACK_SIGNING_SECRET: required with --http
	SlackAPIURL   string // SLACK_API_URL: the Web API root, for tests and proxies

	ClientID     string // SLACK_CLIENT_ID: installed in many workspaces through OAuth when set
	ClientSecret secret // SLACK_CLIENT_SECRET
	TokenKey     secret // FITBOT_TOKEN_KEY: seals the workspaces' tokens at rest
	RedirectURL  string // SLACK_REDIRECT_URL

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
	MaxConns        int      // FITBOT_MAX_CONNS, --max-conns: connections the HTTP listener holds open
	Pprof           bool     // FITBOT_PPROF: /debug/pprof/ on the health listener

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

// OAuth reports whether fitbot is installed in many workspaces (OAuth v2)
// rather than run with one workspace's bot token.
func (c Config) OAuth() bool { return c.ClientID != "" }

// Socket reports whether Socket Mode is on.
func (c Config) Socket() bool { return c.AppToken != "" }

// Defaults of the settings that have one.
const (
	defaultHealthAddr      = ":8081"
	defaultRateLimit       = 20
	defaultShutdownTimeout = 20 * time.Second
	providerHTTPTimeout    = 60 * time.Second
)

// errHelp is loadServeConfig's answer to -h/--help: the usage was printed.
var errHelp = errors.New("help requested")

// loadServeConfig lays the flags in args over the environment and
// validates the result. Every problem is reported, each a ConfigError
// naming its variable; no error ever contains a secret's value. With
// -h/--help it prints the usage to help and returns errHelp.
func loadServeConfig(e environ, args []string, help io.Writer) (Config, error) {
	e.flags = true
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, v := range envVars {
		if v.flag != "" {
			fs.Func(v.flag, "", func(s string) error { e.set(v.name, s); return nil })
		}
	}
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

	errs := e.check(e.names()...)
	if e.get("SLACK_CLIENT_ID") == "" {
		errs = append(errs, e.require("fitbot needs the bot token (xoxb-...) from the app's OAuth & Permissions page, or SLACK_CLIENT_ID to be installed in many workspaces", "SLACK_BOT_TOKEN")...)
	} else {
		errs = append(errs, e.require("installing fitbot in many workspaces (SLACK_CLIENT_ID) needs the app's secret and a key to seal tokens with", "SLACK_CLIENT_SECRET", "FITBOT_TOKEN_KEY")...)
		if e.get("SLACK_BOT_TOKEN") != "" {
			errs = append(errs, e.invalid("SLACK_BOT_TOKEN", errors.New("is set with SLACK_CLIENT_ID: with OAuth each workspace's token comes from its install; unset one of them")))
		}
	}
	c := Config{
		DB:            e.get("FITBOT_DB"),
		BotToken:      secret(e.get("SLACK_BOT_TOKEN")),
		AppToken:      secret(e.get("SLACK_APP_TOKEN")),
		SigningSecret: secret(e.get("SLACK_SIGNING_SECRET")),
		SlackAPIURL:   e.get("SLACK_API_URL"),
		ClientID:      e.get("SLACK_CLIENT_ID"),
		ClientSecret:  secret(e.get("SLACK_CLIENT_SECRET")),
		TokenKey:      secret(e.get("FITBOT_TOKEN_KEY")),
		RedirectURL:   e.get("SLACK_REDIRECT_URL"),
		HTTPAddr:      e.get("FITBOT_HTTP_ADDR"),
		HealthAddr:    e.get("FITBOT_HEALTH_ADDR"),
		DigestChannel: e.get("FITBOT_DIGEST_CHANNEL"),
		DigestCron:    e.get("FITBOT_DIGEST_CRON"),
		RefreshCron:   e.get("FITBOT_REFRESH_CRON"),
		Instance:      e.get("FITBOT_INSTANCE"),
		LLM:           llm.Config{BaseURL: e.get("OPENAI_BASE_URL"), Model: e.get("OPENAI_MODEL")},
		LLMKey:        secret(e.get("OPENAI_API_KEY")),
		HFEndpoint:    e.get("HF_ENDPOINT"),
		HFToken:       secret(e.get("HF_TOKEN")),
		LogFormat:     e.get("FITBOT_LOG_FORMAT"),

		AllowedTeams:    splitList(e.get("FITBOT_ALLOWED_TEAMS")),
		AllowedChannels: splitList(e.get("FITBOT_ALLOWED_CHANNELS")),
		Admins:          splitList(e.get("FITBOT_ADMINS")),
	}
	if c.HealthAddr == "off" {
		c.HealthAddr = ""
	}
	// The checks above passed or were reported: these parse what they checked.
	c.RateLimit, _ = strconv.Atoi(e.get("FITBOT_RATE_LIMIT"))
	c.Pprof = e.get("FITBOT_PPROF") == "on"
	if c.MaxConns, _ = strconv.Atoi(e.get("FITBOT_MAX_CONNS")); c.MaxConns == 0 {
		c.MaxConns = netcap.Default()
	}
	_ = c.LogLevel.UnmarshalText([]byte(e.get("FITBOT_LOG_LEVEL")))
	c.ShutdownTimeout, _ = time.ParseDuration(e.get("FITBOT_SHUTDOWN_TIMEOUT"))

	// Settings that depend on each other: which transports, and the
	// credentials each needs.
	if c.HTTPAddr == "" && c.AppToken == "" {
		errs = append(errs, e.invalid("SLACK_APP_TOKEN", errors.New("nothing to serve: set SLACK_APP_TOKEN for Socket Mode, or pass --http ADDR (FITBOT_HTTP_ADDR) for Slack's HTTP endpoints")))
	}
	if c.OAuth() && (c.HTTPAddr == "" || c.AppToken != "") {
		errs = append(errs, e.invalid("SLACK_CLIENT_ID", errors.New("installing fitbot in many workspaces needs --http ADDR and no SLACK_APP_TOKEN: Slack lists only HTTP apps for distribution, not Socket Mode ones")))
	}
	if c.HTTPAddr != "" && c.SigningSecret == "" {
		errs = append(errs, e.invalid("SLACK_SIGNING_SECRET", fmt.Errorf("is not set: --http %s serves Slack's HTTP endpoints, which verify every request with it (Basic Information > Signing Secret)", c.HTTPAddr)))
	}

	fetchers, err := pricing.Fetchers(e.providerSettings(), "", samehost.StripClient(&http.Client{Timeout: providerHTTPTimeout}), nil)
	if err != nil && len(errs) == 0 {
		errs = append(errs, err)
	}
	c.Fetchers = fetchers

	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// Slack id shapes: upper-case letters and digits after a kind letter.
var (
	teamID    = regexp.MustCompile(`^[TE][A-Z0-9]{2,}$`)
	channelID = regexp.MustCompile(`^[CGD][A-Z0-9]{2,}$`)
	userID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
)

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
	for _, s := range allVars() {
		flagName, def := "", cmp.Or(s.defDoc, s.def)
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
