package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/store"
)

// getReadyz gets serve's /readyz: its status and decoded body.
func getReadyz(t *testing.T, base string) (int, readiness) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var rd readiness
	if err := json.NewDecoder(resp.Body).Decode(&rd); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, rd
}

// TestServeTokensThatCannotWork: a workspace installed through serve and
// one whose refresh token Slack refused. With the key that sealed them,
// /readyz is ready and says one workspace needs fitbot installed again,
// as `fitbot workspaces` does; started with another FITBOT_TOKEN_KEY,
// serve says at start-up that the key opens none of the stored tokens,
// and /readyz fails.
func TestServeTokensThatCannotWork(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve")
	}
	slack := newOAuthSlack(t)
	env := baseEnv(t, slack.URL+"/api/")
	delete(env, "SLACK_BOT_TOKEN")
	env["SLACK_CLIENT_ID"] = "111.222"
	env["SLACK_CLIENT_SECRET"] = "client-secret-never-logged"
	env["FITBOT_TOKEN_KEY"] = "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	run := startServe(t, env, "--http", "127.0.0.1:0")
	if status, page := install(t, run.addr(t, "http"), "code-plain", false); status != http.StatusOK {
		t.Fatalf("install: %d %s", status, page)
	}
	run.stop(t)

	ctx := context.Background()
	db, err := store.Open(ctx, env["FITBOT_DB"])
	if err != nil {
		t.Fatal(err)
	}
	plain, err := db.FindInstallation(ctx, "", "T9TK3CUKW")
	if err != nil {
		t.Fatal(err)
	}
	dead := plain
	dead.TeamID, dead.RefreshToken, dead.Expires = "T0ROTATE1", []byte("spent refresh token"), time.Now().Add(time.Hour)
	if err := db.SaveInstallation(ctx, dead); err != nil {
		t.Fatal(err)
	}
	if marked, err := db.MarkReinstall(ctx, "", "T0ROTATE1", dead.RefreshToken); err != nil || !marked {
		t.Fatalf("MarkReinstall = %v, %v", marked, err)
	}
	db.Close()

	run = startServe(t, env, "--http", "127.0.0.1:0")
	code, rd := getReadyz(t, run.addr(t, "health"))
	if c := rd.Checks["slack_tokens"]; code != http.StatusOK || !c.OK || !strings.Contains(c.Detail, "1 of 2 workspaces need fitbot installed again") {
		t.Errorf("/readyz with the right key: %d %+v", code, rd)
	}
	run.stop(t)
	t.Setenv("FITBOT_DB", env["FITBOT_DB"])
	if code, out, _ := runCmd(t, "workspaces"); code != exitOK || !strings.Contains(out, "REINSTALL: Slack refused its refresh token") {
		t.Errorf("fitbot workspaces: exit %d\n%s", code, out)
	}

	env["FITBOT_TOKEN_KEY"] = "CAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAg="
	run = startServe(t, env, "--http", "127.0.0.1:0")
	code, rd = getReadyz(t, run.addr(t, "health"))
	if c := rd.Checks["slack_tokens"]; code != http.StatusServiceUnavailable || c.OK || !strings.Contains(c.Detail, "not the key that sealed them") {
		t.Errorf("/readyz with another key: %d %+v", code, rd)
	}
	if !strings.Contains(run.stderr.String(), "FITBOT_TOKEN_KEY does not open the stored tokens of any workspace") {
		t.Errorf("no start-up line about the key:\n%s", run.stderr.String())
	}
}
