package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// validEnv is a complete Socket Mode configuration with fake secrets.
func validEnv() map[string]string {
	return map[string]string{
		"SLACK_BOT_TOKEN": fakeBotToken,
		"SLACK_APP_TOKEN": fakeAppToken,
		"OPENAI_API_KEY":  fakeOpenAI,
		"GCP_API_KEY":     fakeGCPKey,
	}
}

// environOf is the settings table read from env.
func environOf(env map[string]string) environ {
	return readEnviron(func(k string) string { return env[k] })
}

// TestConfigErrors checks that each configuration mistake is refused with
// an error naming its variable (or flag), and that no error carries a
// secret's value.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		env   map[string]string // changes to validEnv; "" deletes
		args  []string
		names []string // every one must appear in the error
	}{
		{"no bot token", map[string]string{"SLACK_BOT_TOKEN": ""}, nil, []string{"SLACK_BOT_TOKEN"}},
		{"app token as bot token", map[string]string{"SLACK_BOT_TOKEN": fakeAppToken}, nil, []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"}},
		{"user token as bot token", map[string]string{"SLACK_BOT_TOKEN": "xoxp-1-2-3-userfaketoken"}, nil, []string{"SLACK_BOT_TOKEN", "xoxb-"}},
		{"bad app token", map[string]string{"SLACK_APP_TOKEN": "xoxb-not-an-app-token-9999"}, nil, []string{"SLACK_APP_TOKEN", "xapp-"}},
		{"nothing to serve", map[string]string{"SLACK_APP_TOKEN": ""}, nil, []string{"SLACK_APP_TOKEN", "--http"}},
		{"http without signing secret", nil, []string{"--http", ":8080"}, []string{"SLACK_SIGNING_SECRET", "--http"}},
		{"bad http address", map[string]string{"SLACK_SIGNING_SECRET": fakeSigning}, []string{"--http", "8080"}, []string{"--http", "FITBOT_HTTP_ADDR"}},
		{"bad health address", map[string]string{"FITBOT_HEALTH_ADDR": "localhost"}, nil, []string{"FITBOT_HEALTH_ADDR"}},
		{"TZ alone (robfig panics)", map[string]string{"FITBOT_REFRESH_CRON": "TZ=UTC"}, nil, []string{"FITBOT_REFRESH_CRON"}},
		{"CRON_TZ alone", map[string]string{"FITBOT_DIGEST_CRON": "CRON_TZ=UTC"}, nil, []string{"FITBOT_DIGEST_CRON"}},
		{"four fields", map[string]string{"FITBOT_DIGEST_CRON": "0 9 * *"}, nil, []string{"FITBOT_DIGEST_CRON"}},
		{"unknown zone", map[string]string{"FITBOT_DIGEST_CRON": "CRON_TZ=Mars/Olympus 0 9 * * MON"}, nil, []string{"FITBOT_DIGEST_CRON"}},
		{"cron flag", nil, []string{"--refresh-cron", "every six hours"}, []string{"FITBOT_REFRESH_CRON"}},
		{"slack api url", map[string]string{"SLACK_API_URL": "slack.local/api"}, nil, []string{"SLACK_API_URL"}},
		{"openai base url", map[string]string{"OPENAI_BASE_URL": "localhost:11434"}, nil, []string{"OPENAI_BASE_URL"}},
		{"provider url", map[string]string{"FITBOT_RUNPOD_URL": "not a url"}, nil, []string{"FITBOT_RUNPOD_URL"}},
		{"provider regions", map[string]string{"FITBOT_AWS_REGIONS": "mars-north-1"}, nil, []string{"FITBOT_AWS_REGIONS"}},
		{"allowed teams", map[string]string{"FITBOT_ALLOWED_TEAMS": "T1DC2JH3J,acme"}, nil, []string{"FITBOT_ALLOWED_TEAMS", "acme"}},
		{"allowed channels", map[string]string{"FITBOT_ALLOWED_CHANNELS": "#ml-capacity"}, nil, []string{"FITBOT_ALLOWED_CHANNELS"}},
		{"admins", map[string]string{"FITBOT_ADMINS": "@ana"}, nil, []string{"FITBOT_ADMINS"}},
		{"digest channel", map[string]string{"FITBOT_DIGEST_CHANNEL": "#gpu-prices"}, nil, []string{"FITBOT_DIGEST_CHANNEL"}},
		{"rate limit", map[string]string{"FITBOT_RATE_LIMIT": "-1"}, nil, []string{"FITBOT_RATE_LIMIT"}},
		{"log level", map[string]string{"FITBOT_LOG_LEVEL": "verbose"}, nil, []string{"FITBOT_LOG_LEVEL"}},
		{"log format", nil, []string{"--log-format", "xml"}, []string{"FITBOT_LOG_FORMAT"}},
		{"shutdown timeout", map[string]string{"FITBOT_SHUTDOWN_TIMEOUT": "soon"}, nil, []string{"FITBOT_SHUTDOWN_TIMEOUT"}},
		{"empty db", nil, []string{"--db", ""}, []string{"FITBOT_DB"}},
		{"oauth without its secret and key", map[string]string{"SLACK_BOT_TOKEN": "", "SLACK_CLIENT_ID": "111.222", "SLACK_APP_TOKEN": "", "SLACK_SIGNING_SECRET": fakeSigning},
			[]string{"--http", ":8080"}, []string{"SLACK_CLIENT_SECRET", "FITBOT_TOKEN_KEY"}},
		{"oauth with a bot token", map[string]string{"SLACK_CLIENT_ID": "111.222", "SLACK_CLIENT_SECRET": "s", "FITBOT_TOKEN_KEY": "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=", "SLACK_APP_TOKEN": "", "SLACK_SIGNING_SECRET": fakeSigning},
			[]string{"--http", ":8080"}, []string{"SLACK_BOT_TOKEN", "SLACK_CLIENT_ID"}},
		{"oauth in socket mode", map[string]string{"SLACK_BOT_TOKEN": "", "SLACK_CLIENT_ID": "111.222", "SLACK_CLIENT_SECRET": "s", "FITBOT_TOKEN_KEY": "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="},
			nil, []string{"SLACK_CLIENT_ID", "Socket Mode"}},
		{"short token key", map[string]string{"FITBOT_TOKEN_KEY": "c2hvcnQ="}, nil, []string{"FITBOT_TOKEN_KEY", "32"}},
		{"several at once", map[string]string{"SLACK_BOT_TOKEN": "", "FITBOT_RATE_LIMIT": "many"}, nil, []string{"SLACK_BOT_TOKEN", "FITBOT_RATE_LIMIT"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := validEnv()
			for k, v := range tt.env {
				if v == "" {
					delete(env, k)
				} else {
					env[k] = v
				}
			}
			_, err := loadServeConfig(environOf(env), tt.args, &bytes.Buffer{})
			if err == nil {
				t.Fatal("loadServeConfig succeeded")
			}
			for _, name := range tt.names {
				if !strings.Contains(err.Error(), name) {
					t.Errorf("error does not name %s:\n%v", name, err)
				}
			}
			for _, s := range []string{fakeBotToken, fakeAppToken, fakeOpenAI, fakeGCPKey, fakeSigning, "xoxp-1-2-3-userfaketoken", "xoxb-not-an-app-token-9999"} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error carries a secret (%.8s…):\n%v", s, err)
				}
			}
		})
	}
}

// TestConfigValid reads a full configuration, flags over the environment.
func TestConfigValid(t *testing.T) {
	env := validEnv()
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_DB"] = "/data/fitbot.db"
	env["FITBOT_HTTP_ADDR"] = ":9000"
	env["FITBOT_ALLOWED_TEAMS"] = " T1DC2JH3J , T0ACME "
	env["FITBOT_ADMINS"] = "U2CERLKJA"
	env["FITBOT_RATE_LIMIT"] = "5"
	env["FITBOT_LOG_LEVEL"] = "debug"
	env["FITBOT_SHUTDOWN_TIMEOUT"] = "45s"
	env["FITBOT_HEALTH_ADDR"] = "off"
	c, err := loadServeConfig(environOf(env), []string{"--http", ":8080", "--log-level", "warn", "--digest-channel", "C0PRICES"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.DB, c.HTTPAddr, c.HealthAddr, c.AllowedTeams, c.Admins, c.RateLimit, c.LogLevel, c.ShutdownTimeout, c.DigestChannel,
		c.DigestCron, c.RefreshCron, c.Socket(), c.llm().Enabled(), len(c.Fetchers), c.BotToken.reveal()}
	want := []any{"/data/fitbot.db", ":8080", "", []string{"T1DC2JH3J", "T0ACME"}, []string{"U2CERLKJA"}, 5, slog.LevelWarn, 45 * time.Second, "C0PRICES",
		"CRON_TZ=UTC 0 9 * * MON", "0 */6 * * *", true, true, 19, fakeBotToken} // 4 direct + 9 gpuhunt + 5 SkyPilot fetchers, and one keyed
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

// TestServeHelp lists every variable serve reads, with defaults, and no
// secret's value even when the environment holds them.
func TestServeHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := loadServeConfig(environOf(validEnv()), []string{"--help"}, &out)
	if !errors.Is(err, errHelp) {
		t.Fatalf("--help = %v, want errHelp", err)
	}
	help := out.String()
	for _, name := range []string{"FITBOT_DB", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL",
		"FITBOT_DIGEST_CHANNEL", "FITBOT_DIGEST_CRON", "FITBOT_REFRESH_CRON", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL",
		"FITBOT_RUNPOD_URL", "FITBOT_VAST_URL", "FITBOT_AWS_URL", "FITBOT_GCP_URL", "GCP_API_KEY", "FITBOT_ALLOWED_TEAMS",
		"FITBOT_ALLOWED_CHANNELS", "FITBOT_ADMINS", "FITBOT_RATE_LIMIT", "FITBOT_LOG_LEVEL", "FITBOT_LOG_FORMAT",
		"FITBOT_SHUTDOWN_TIMEOUT", "FITBOT_HEALTH_ADDR", "CRON_TZ=UTC 0 9 * * MON", "0 */6 * * *", ":8081", "--http"} {
		if !strings.Contains(help, name) {
			t.Errorf("serve --help does not mention %s", name)
		}
	}
	for _, s := range []string{fakeBotToken, fakeAppToken, fakeOpenAI, fakeGCPKey} {
		if strings.Contains(help, s) {
			t.Errorf("serve --help prints a secret (%.8s…)", s)
		}
	}
}

// TestSecretNeverPrints formats a Config every way a program might.
func TestSecretNeverPrints(t *testing.T) {
	env := validEnv()
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	c, err := loadServeConfig(environOf(env), []string{"--http", ":8080"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "config", c, "token", c.BotToken)
	slog.New(slog.NewTextHandler(&logs, nil)).Info("config", "config", c, "token", c.BotToken)
	js, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"%v": fmt.Sprintf("%v", c), "%+v": fmt.Sprintf("%+v", c), "%#v": fmt.Sprintf("%#v", c), "%s": fmt.Sprintf("%s", c.BotToken),
		"%q": fmt.Sprintf("%q", c.AppToken), "%x": fmt.Sprintf("%x", c.SigningSecret), "%d": fmt.Sprintf("%d", c.BotToken),
		"json": string(js), "slog": logs.String(),
	}
	for how, out := range outputs {
		for _, s := range []string{fakeBotToken, fakeAppToken, fakeSigning, fakeOpenAI, fmt.Sprintf("%x", fakeSigning)} {
			if strings.Contains(out, s) {
				t.Errorf("%s prints a secret (%.8s…): %.300s", how, s, out)
			}
		}
	}
	if !strings.Contains(outputs["%+v"], redacted) {
		t.Errorf("%%+v shows no [redacted] marker: %.300s", outputs["%+v"])
	}
	if secret("").String() != "" {
		t.Error("an empty secret prints as redacted; it should print empty so that 'not set' stays visible")
	}
}

// TestConfigurationDocListsEverySetting: docs/configuration.md has a row
// for every setting in the table serve reads, so a new one is documented.
func TestConfigurationDocListsEverySetting(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range allVars() {
		if !strings.Contains(string(doc), "| `"+v.name+"` |") {
			t.Errorf("docs/configuration.md has no row for %s", v.name)
		}
	}
}
