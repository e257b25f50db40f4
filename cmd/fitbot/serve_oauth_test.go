package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fitbot/fitbot/store"
)

// oauthSlack is Slack for an app installed through OAuth: oauth.v2.access
// exchanges two codes for the recorded installs, and chat.postMessage
// records which token each post was made with.
type oauthSlack struct {
	*httptest.Server
	mu    sync.Mutex
	posts map[string][]string // channel -> the tokens it was posted with
}

func newOAuthSlack(t *testing.T) *oauthSlack {
	f := &oauthSlack{posts: map[string][]string{}}
	posted, err := os.ReadFile(filepath.Join("..", "..", "bot", "testdata", "slack", "chat_postMessage_ok.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/oauth.v2.access":
			file := map[string]string{"code-plain": "oauth_v2_access.json", "code-grid": "oauth_v2_access_enterprise.json"}[r.PostForm.Get("code")]
			body, err := os.ReadFile(filepath.Join("..", "..", "slackoauth", "testdata", file))
			if file == "" || err != nil {
				w.Write([]byte(`{"ok":false,"error":"invalid_code"}`))
				return
			}
			w.Write(body)
		case "/api/chat.postMessage":
			f.mu.Lock()
			// slack-go sends chat.postMessage's token in the form.
			tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			if tok == "" {
				tok = r.PostForm.Get("token")
			}
			f.posts[r.PostForm.Get("channel")] = append(f.posts[r.PostForm.Get("channel")], tok)
			f.mu.Unlock()
			w.Write(posted)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *oauthSlack) tokens(channel string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.posts[channel]...)
}

// install runs the browser's side of the OAuth flow against serve and
// returns the status and page of the redirect.
func install(t *testing.T, base, code string, tamper bool) (int, string) {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(base + "/slack/install")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || err != nil {
		t.Fatalf("/slack/install: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	state := loc.Query().Get("state")
	if tamper {
		state = "x" + state
	}
	req, _ := http.NewRequest("GET", base+"/slack/oauth_redirect?"+url.Values{"code": {code}, "state": {state}}.Encode(), nil)
	for _, c := range resp.Cookies() {
		req.AddCookie(c)
	}
	resp, err = noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// mention is an app_mention event from one workspace's channel.
func mention(enterprise, team, botUser, channel, eventID string) []byte {
	ent := "null"
	if enterprise != "" {
		ent = `"` + enterprise + `"`
	}
	return fmt.Appendf(nil, `{"token":"XXYYZZ","team_id":%q,"enterprise_id":%s,"api_app_id":"A0KRD7HC3","event":{"type":"app_mention","user":"U2CERLKJA","text":"<@%s> 13b lora 4090","ts":"1764464400.000200","channel":%q,"event_ts":"1764464400.000200"},"type":"event_callback","event_id":%q,"event_time":1764464400,"authorizations":[{"enterprise_id":%s,"team_id":%q,"user_id":%q,"is_bot":true,"is_enterprise_install":%v}]}`,
		team, ent, botUser, channel, eventID, ent, team, botUser, enterprise != "")
}

// TestServeManyWorkspaces is the multi-workspace contract end to end:
// two workspaces installed through OAuth (one of them org-wide on
// Enterprise Grid) are each answered with their own token, a tampered
// state is refused, an uninstalled workspace's token is gone, and no
// token is stored in clear.
func TestServeManyWorkspaces(t *testing.T) {
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
	base := run.addr(t, "http")

	if code, page := install(t, base, "code-plain", true); code != http.StatusBadRequest || !strings.Contains(page, "not one fitbot issued") {
		t.Errorf("tampered state: %d %s", code, page)
	}
	for _, code := range []string{"code-plain", "code-grid"} {
		if status, page := install(t, base, code, false); status != http.StatusOK || !strings.Contains(page, "fitbot is installed") {
			t.Fatalf("install %s: %d %s", code, status, page)
		}
	}
	for _, ev := range [][]byte{
		mention("", "T9TK3CUKW", "U0KRQLJ9H", "C0PLAIN01", "Ev0PLAIN01"),
		mention("E12345678", "T0ANYWS01", "U0ORGBOT1", "C0GRID001", "Ev0GRID001"),
	} {
		if code, body := signedPost(t, base+"/slack/events", "application/json", ev); code != http.StatusOK {
			t.Fatalf("event: %d %s", code, body)
		}
	}
	eventually(t, "both answers posted", func() bool { return len(slack.tokens("C0PLAIN01")) > 0 && len(slack.tokens("C0GRID001")) > 0 })
	for channel, want := range map[string]string{
		"C0PLAIN01": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
		"C0GRID001": "xoxb-2712345678-2798765432-orgWideTokenAbCdEfGh12",
	} {
		for _, got := range slack.tokens(channel) {
			if got != want {
				t.Errorf("%s answered with %.20s..., want its own workspace's token %.20s...", channel, got, want)
			}
		}
	}

	if code, _ := signedPost(t, base+"/slack/events", "application/json", readServeTestdata(t, "app_uninstalled.json")); code != http.StatusOK {
		t.Fatalf("app_uninstalled: %d", code)
	}
	db, err := store.Open(context.Background(), run.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the uninstalled workspace forgotten", func() bool {
		_, err := db.FindInstallation(context.Background(), "", "T9TK3CUKW")
		return errors.Is(err, store.ErrNotFound)
	})
	db.Close()
	if code := run.stop(t); code != exitOK {
		t.Errorf("serve exited %d", code)
	}
	raw, err := os.ReadFile(run.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"xoxb-", "orgWideToken", "client-secret-never-logged"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the database holds %q in clear", secret)
		}
		if strings.Contains(run.stderr.String(), secret) {
			t.Errorf("the log holds %q", secret)
		}
	}
}
