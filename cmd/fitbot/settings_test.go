package main

import (
	"errors"
	"testing"
)

// TestSettingsTable checks the table itself: one row per variable, and
// every default passes its own check.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range allVars() {
		if seen[v.name] {
			t.Errorf("%s is in the table twice", v.name)
		}
		seen[v.name] = true
		if v.def != "" && v.check != nil {
			if err := v.check(v.def); err != nil {
				t.Errorf("%s: the default %q fails its own check: %v", v.name, v.def, err)
			}
		}
		if v.secret && v.flag != "" {
			t.Errorf("%s is a secret with a flag: secrets come from the environment only", v.name)
		}
	}
	for _, name := range []string{"LAMBDA_API_KEY", "GCP_API_KEY", "FITBOT_AWS_REGIONS", "FITBOT_VAST_URL"} {
		if !seen[name] {
			t.Errorf("the providers' rows lack %s", name)
		}
	}
}

// TestEnvironTrimming is the one trimming rule: surrounding white space
// goes, and a blank variable is unset (its default applies).
func TestEnvironTrimming(t *testing.T) {
	e := environOf(map[string]string{"FITBOT_DB": " /data/fitbot.db\n", "FITBOT_LOG_LEVEL": "  ", "OPENAI_API_KEY": " sk-abc \n"})
	for name, want := range map[string]string{"FITBOT_DB": "/data/fitbot.db", "FITBOT_LOG_LEVEL": "info", "OPENAI_API_KEY": "sk-abc", "FITBOT_HTTP_ADDR": ""} {
		if got := e.get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if a := (&app{env: e}); a.dbPath() != "/data/fitbot.db" {
		t.Errorf("dbPath = %q", a.dbPath())
	}
}

// TestConfigErrorFields checks that a bad setting is a ConfigError naming
// its variable, with the value shown unless it is a secret.
func TestConfigErrorFields(t *testing.T) {
	e := environOf(map[string]string{"FITBOT_RATE_LIMIT": "many", "SLACK_BOT_TOKEN": "xoxp-1-2-3-userfaketoken"})
	errs := e.check("FITBOT_RATE_LIMIT", "SLACK_BOT_TOKEN", "FITBOT_DB")
	if len(errs) != 2 {
		t.Fatalf("%d errors, want 2: %v", len(errs), errs)
	}
	var rate, token *ConfigError
	if !errors.As(errs[0], &rate) || !errors.As(errs[1], &token) {
		t.Fatalf("not ConfigErrors: %v", errs)
	}
	if rate.Field != "FITBOT_RATE_LIMIT" || rate.Value != "many" {
		t.Errorf("rate limit error %+v", rate)
	}
	if token.Field != "SLACK_BOT_TOKEN" || token.Value != "" {
		t.Errorf("token error %+v: a secret's value must not be kept", token)
	}
	if got := e.require("why", "SLACK_APP_TOKEN", "FITBOT_DB"); len(got) != 1 || got[0].Error() != "SLACK_APP_TOKEN: is not set: why" {
		t.Errorf("require = %v", got)
	}
}
