package slackoauth

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fitbot/fitbot/internal/fakeclock"
	"github.com/fitbot/fitbot/store"
)

var testKey = bytes.Repeat([]byte{7}, KeySize)

// fakeSlack is oauth.v2.access as Slack answers it (testdata/SOURCES.md):
// codes exchange for the recorded payloads, and a refresh token works
// once, as Slack's single-use refresh tokens do.
type fakeSlack struct {
	t         *testing.T
	mu        sync.Mutex
	refreshOK string // the one refresh token Slack still accepts
	refreshes atomic.Int32
}

func (f *fakeSlack) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/oauth.v2.access" || r.ParseForm() != nil {
		http.NotFound(w, r)
		return
	}
	if r.PostForm.Get("client_id") != "111.222" || r.PostForm.Get("client_secret") != "shh" {
		f.t.Errorf("oauth.v2.access called with client %q", r.PostForm.Get("client_id"))
	}
	file := "oauth_v2_access_invalid_code.json"
	if r.PostForm.Get("grant_type") == "refresh_token" {
		f.refreshes.Add(1)
		time.Sleep(20 * time.Millisecond) // a real round trip, so racing replicas overlap
		f.mu.Lock()
		file = "oauth_v2_access_invalid_refresh_token.json"
		if got := r.PostForm.Get("refresh_token"); got != "" && got == f.refreshOK {
			file, f.refreshOK = "oauth_v2_access_refreshed.json", "xoxe-1-My0xLTIyMjIyMjIyMjIyLXNlY29uZC1yZWZyZXNo"
		}
		f.mu.Unlock()
	} else {
		switch r.PostForm.Get("code") {
		case "code-plain":
			file = "oauth_v2_access.json"
		case "code-grid":
			file = "oauth_v2_access_enterprise.json"
		case "code-rotating":
			file = "oauth_v2_access_rotating.json"
		}
	}
	body, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		f.t.Fatal(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}

type fixture struct {
	db    *store.DB
	slack *fakeSlack
	clock *fakeclock.Clock
	apps  []*App // replicas sharing db
	mux   *http.ServeMux
}

func newFixture(t *testing.T, replicas int) *fixture {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db, slack: &fakeSlack{t: t, refreshOK: "xoxe-1-My0xLTIyMjIyMjIyMjIyLWZpcnN0LXJlZnJlc2g"},
		clock: fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)), mux: http.NewServeMux()}
	db.Now = f.clock.Now
	srv := httptest.NewServer(f.slack)
	t.Cleanup(srv.Close)
	for i := range replicas {
		app, err := New(Config{ClientID: "111.222", ClientSecret: "shh", Key: testKey, RedirectURL: "https://fitbot.example/slack/oauth_redirect",
			APIURL: srv.URL + "/api", HTTP: srv.Client(), Store: db, Holder: string(rune('a' + i)), Now: f.clock.Now, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		f.apps = append(f.apps, app)
	}
	f.apps[0].Register(f.mux)
	return f
}

// startInstall opens /slack/install and returns the state and its cookie.
func (f *fixture) startInstall(t *testing.T) (string, *http.Cookie) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, httptest.NewRequest("GET", "/slack/install", nil))
	if rec.Code != http.StatusFound {
		t.Fatalf("/slack/install: %d", rec.Code)
	}
	loc, err := url.Parse(rec.Header().Get("Location"))
	if err != nil || loc.Host != "slack.com" || loc.Path != "/oauth/v2/authorize" {
		t.Fatalf("redirected to %q", rec.Header().Get("Location"))
	}
	q := loc.Query()
	if q.Get("client_id") != "111.222" || !strings.Contains(q.Get("scope"), "chat:write") ||
		q.Get("redirect_uri") != "https://fitbot.example/slack/oauth_redirect" {
		t.Errorf("authorize query %v", q)
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Value != q.Get("state") || !cookies[0].HttpOnly {
		t.Fatalf("state cookie %v, state %q", cookies, q.Get("state"))
	}
	return q.Get("state"), cookies[0]
}

// finish follows Slack's redirect back with code and state.
func (f *fixture) finish(code, state string, cookie *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", "/slack/oauth_redirect?"+url.Values{"code": {code}, "state": {state}}.Encode(), nil)
	if cookie != nil {
		req.AddCookie(cookie)
	}
	rec := httptest.NewRecorder()
	f.mux.ServeHTTP(rec, req)
	return rec
}

// TestTwoWorkspacesInstalled installs a workspace and an Enterprise Grid
// organisation through the whole flow: each is answered with its own
// token, the org-wide token serves any workspace of the organisation,
// and no token is stored in clear.
func TestTwoWorkspacesInstalled(t *testing.T) {
	f := newFixture(t, 1)
	ctx := context.Background()
	for _, code := range []string{"code-plain", "code-grid"} {
		state, cookie := f.startInstall(t)
		if rec := f.finish(code, state, cookie); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "fitbot is installed") {
			t.Fatalf("%s: %d %s", code, rec.Code, rec.Body)
		}
	}
	for _, tc := range []struct{ enterprise, team, token, bot string }{
		{"", "T9TK3CUKW", "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy", "U0KRQLJ9H"},
		{"E12345678", "T0ANYWS01", "xoxb-2712345678-2798765432-orgWideTokenAbCdEfGh12", "U0ORGBOT1"},
	} {
		ws, err := f.apps[0].Token(ctx, tc.enterprise, tc.team)
		if err != nil || ws.Token != tc.token || ws.BotUserID != tc.bot || ws.TeamID != tc.team {
			t.Errorf("Token(%q, %q) = %+v, %v; want %s of %s", tc.enterprise, tc.team, ws.BotUserID, err, tc.token[:12], tc.bot)
		}
	}
	if _, err := f.apps[0].Token(ctx, "", "T0STRANGER"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Token of a workspace never installed = %v, want store.ErrNotFound", err)
	}
	// At rest: the database file holds no token, nor any part of one.
	f.db.Close()
	raw, err := os.ReadFile(f.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"xoxb-", "pdFZKVeTuE8sk7oOcBrzbqgy", "orgWideToken"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the database file contains %q in clear", secret)
		}
	}
}

// TestInstallRefused: a forged, expired, cookie-less or absent state is
// refused before Slack is asked, and so is a code Slack does not know.
func TestInstallRefused(t *testing.T) {
	f := newFixture(t, 1)
	state, cookie := f.startInstall(t)
	other := newState(stateKey(bytes.Repeat([]byte{9}, KeySize)), f.clock.Now(), StateTTL)
	for _, tc := range []struct {
		name, code, state string
		cookie            *http.Cookie
		status            int
		say               string
	}{
		{"no state", "code-plain", "", cookie, 400, "state is missing"},
		{"another key's state", "code-plain", other, &http.Cookie{Name: stateCookie, Value: other}, 400, "not one fitbot issued"},
		{"tampered", "code-plain", state[:len(state)-2] + "AA", cookie, 400, "not one fitbot issued"},
		{"no cookie", "code-plain", state, nil, 400, "another browser"},
		{"bad code", "code-nope", state, cookie, 502, "invalid_code"},
	} {
		rec := f.finish(tc.code, tc.state, tc.cookie)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.say) {
			t.Errorf("%s: %d %q; want %d saying %q", tc.name, rec.Code, rec.Body, tc.status, tc.say)
		}
	}
	f.clock.Advance(StateTTL)
	if rec := f.finish("code-plain", state, cookie); rec.Code != 400 || !strings.Contains(rec.Body.String(), "expired") {
		t.Errorf("expired state: %d %q", rec.Code, rec.Body)
	}
	if all, _ := f.db.Installations(context.Background()); len(all) != 0 {
		t.Errorf("%d installations stored from refused installs", len(all))
	}
}

// TestRotationOnceAcrossReplicas: a rotating token is refreshed before it
// expires; four replicas asking at once spend the single-use refresh
// token once, and all get the new token.
func TestRotationOnceAcrossReplicas(t *testing.T) {
	f := newFixture(t, 4)
	ctx := context.Background()
	state, cookie := f.startInstall(t)
	if rec := f.finish("code-rotating", state, cookie); rec.Code != 200 {
		t.Fatalf("install: %d %s", rec.Code, rec.Body)
	}
	ws, err := f.apps[1].Token(ctx, "", "T0ROTATE1")
	if err != nil || !strings.HasSuffix(ws.Token, "LWZpcnN0") || f.slack.refreshes.Load() != 0 {
		t.Fatalf("fresh token: %v, %d refreshes", err, f.slack.refreshes.Load())
	}
	f.clock.Advance(12*time.Hour - RefreshBefore) // due
	var wg sync.WaitGroup
	tokens := make([]string, len(f.apps))
	for i, app := range f.apps {
		wg.Go(func() {
			ws, err := app.Token(ctx, "", "T0ROTATE1")
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
			tokens[i] = ws.Token
		})
	}
	wg.Wait()
	if n := f.slack.refreshes.Load(); n != 1 {
		t.Errorf("oauth.v2.access refresh called %d times, want once", n)
	}
	for i, tok := range tokens {
		if !strings.HasSuffix(tok, "LXNlY29uZA") {
			t.Errorf("replica %d got %q..., want the refreshed token", i, tok[:min(len(tok), 14)])
		}
	}
	in, err := f.db.FindInstallation(ctx, "", "T0ROTATE1")
	if err != nil || !in.Expires.Equal(f.clock.Now().Add(12*time.Hour)) {
		t.Errorf("stored expiry %v, %v", in.Expires, err)
	}
}

// TestForget: an uninstalled workspace's token is gone; an org-wide
// install goes when the event says it was one.
func TestForget(t *testing.T) {
	f := newFixture(t, 1)
	ctx := context.Background()
	for _, code := range []string{"code-plain", "code-grid"} {
		state, cookie := f.startInstall(t)
		f.finish(code, state, cookie)
	}
	if gone, err := f.apps[0].Forget(ctx, "", "T9TK3CUKW", false); err != nil || !gone {
		t.Fatalf("Forget = %v, %v", gone, err)
	}
	if _, err := f.apps[0].Token(ctx, "", "T9TK3CUKW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("token after uninstall: %v, want ErrNotFound", err)
	}
	if gone, _ := f.apps[0].Forget(ctx, "E12345678", "T0ANYWS01", false); gone {
		t.Error("a workspace's uninstall removed the org-wide install")
	}
	if gone, err := f.apps[0].Forget(ctx, "E12345678", "T0ANYWS01", true); err != nil || !gone {
		t.Errorf("org-wide Forget = %v, %v", gone, err)
	}
}

func TestSealing(t *testing.T) {
	s, err := newSealer(testKey)
	if err != nil {
		t.Fatal(err)
	}
	a, b := s.seal("xoxb-1", "T1"), s.seal("xoxb-1", "T1")
	if bytes.Equal(a, b) {
		t.Error("two seals of one token are equal: the nonce is not fresh")
	}
	if got, err := s.open(a, "T1"); err != nil || got != "xoxb-1" {
		t.Errorf("open = %q, %v", got, err)
	}
	if _, err := s.open(a, "T2"); !errors.Is(err, errUnseal) {
		t.Errorf("a token moved to another row opened: %v", err)
	}
	other, _ := newSealer(bytes.Repeat([]byte{1}, KeySize))
	if _, err := other.open(a, "T1"); !errors.Is(err, errUnseal) || strings.Contains(err.Error(), "xoxb") {
		t.Errorf("another key: %v", err)
	}
	if _, err := s.open([]byte{1, 2}, "T1"); !errors.Is(err, errUnseal) {
		t.Errorf("short bytes: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	good := "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="
	if k, err := ParseKey(good); err != nil || !bytes.Equal(k, testKey) {
		t.Errorf("ParseKey(%q) = %v, %v", good, k, err)
	}
	for _, bad := range []string{"", "not base64 !", "c2hvcnQ="} {
		if _, err := ParseKey(bad); err == nil || (bad != "" && strings.Contains(err.Error(), bad)) {
			t.Errorf("ParseKey(%q) = %v: want an error that does not repeat the value", bad, err)
		}
	}
}

// FuzzCheckState: no state string panics, and none but one signed with
// the key passes.
func FuzzCheckState(f *testing.F) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	key := stateKey(testKey)
	f.Add(newState(key, now, StateTTL))
	f.Add("")
	f.Add(".")
	f.Add("AAAA.BBBB")
	f.Fuzz(func(t *testing.T, s string) {
		if checkState(key, s, now) == nil {
			body, _, _ := strings.Cut(s, ".")
			if len(body) != 32 {
				t.Fatalf("state %q passed with a body of the wrong size", s)
			}
		}
	})
}
