package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// planted are Slack's control sequences as someone could plant them in
// a text fitbot shows: a machine's name, a plan's question, a cluster's
// error (https://api.slack.com/reference/surfaces/formatting#escaping).
var planted = []string{"<!channel>", "<!here>", "<@U0PLANTED>", "<#C0PLANTED>", "<https://evil.example/x|click>"}

// live reports the first planted control sequence that s still holds as
// one, whatever the case (machine names are kept in lower case).
func live(s string) string {
	low := strings.ToLower(s)
	for _, p := range planted {
		if open, _, _ := strings.Cut(strings.ToLower(p), "|"); strings.Contains(low, strings.TrimSuffix(open, ">")) {
			return p
		}
	}
	return ""
}

// strings walks a decoded JSON value and calls f on every string in it.
func eachString(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			eachString(e, f)
		}
	case map[string]any:
		for _, e := range v {
			eachString(e, f)
		}
	}
}

// TestServeEscapesPlantedText plants each of Slack's control sequences in
// each text from outside that reaches a reply: the names of the team's
// machines (/fit hardware add), a question kept as a plan, and
// slurmrestd's error. Every reply, in blocks and fallback text, in the
// slash command's body and in the answer posted in the channel, shows
// them as text: none mentions, notifies or links.
func TestServeEscapesPlantedText(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve")
	}
	slurmd := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		desc, _ := json.Marshal("controller down " + strings.Join(planted, " "))
		fmt.Fprintf(w, `{"nodes":[],"errors":[{"description":%s,"error_number":1007,"error":"Protocol authentication error","source":"slurm_rest_auth"}],"warnings":[]}`, desc)
	}))
	t.Cleanup(slurmd.Close)
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_SLURM_URL"] = slurmd.URL
	env["FITBOT_SLURM_TOKEN"] = "eyJhbGciOiJIUzI1NiJ9.serve-secret"
	run := startServe(t, env, "--http", "127.0.0.1:0")
	base := run.addr(t, "http")

	check := func(what, body string) {
		t.Helper()
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("%s: not JSON: %q", what, body)
			return
		}
		eachString(v, func(s string) {
			if p := live(s); p != "" {
				t.Errorf("%s: %q is live in %q", what, p, s)
			}
		})
	}
	for _, name := range []string{"<!channel> box", "<!here> box", "<@U0PLANTED> box", "<#C0PLANTED> box"} {
		code, body := signedSlash(t, base, "hardware add "+name+": 2x rtx-4090", "")
		if code != http.StatusOK {
			t.Fatalf("hardware add %s: %d %s", name, code, body)
		}
		check("hardware add "+name, body)
	}
	for _, q := range []string{
		"hardware",
		"13b lora",
		"13b lora on <!channel> box",
		"llama-3.1-8b lora <@U0PLANTED> <#C0PLANTED> <https://evil.example/x|click> 4090",
		"plans",
		"can we run llama-3.1-8b lora on our cluster right now",
		"cluster",
	} {
		code, body := signedSlash(t, base, q, "")
		if code != http.StatusOK {
			t.Fatalf("/fit %s: %d %s", q, code, body)
		}
		check("/fit "+q, body)
	}
	if code, body := signedPost(t, base+"/slack/events", "application/json", []byte(`{"token":"XXYYZZ","team_id":"T1DC2JH3J","api_app_id":"A0FITBOT","event":{"type":"app_mention","user":"U2CERLKJA","text":"<@U0FITBOT> 13b lora","ts":"1764464400.000200","channel":"C0FITBOT","event_ts":"1764464400.000200"},"type":"event_callback","event_id":"Ev0PLANTED1","event_time":1764464400}`)); code != http.StatusOK {
		t.Fatalf("mention: %d %s", code, body)
	}
	var posts []url.Values
	eventually(t, "the mention answered", func() bool {
		slack.mu.Lock()
		posts = append([]url.Values(nil), slack.posts...)
		slack.mu.Unlock()
		return len(posts) > 0
	})
	for _, p := range posts {
		check("posted text", fmt.Sprintf("%q", p.Get("text")))
		check("posted blocks", p.Get("blocks"))
	}
}
