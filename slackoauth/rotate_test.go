package slackoauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/internal/fakeclock"
	"github.com/fitbot/fitbot/store"
)

// rotatingSlack is Slack with token rotation on (testdata/SOURCES.md):
// oauth.v2.access exchanges code-rotating for the recorded install and a
// refresh token for a new pair exactly once (a second use is answered
// invalid_refresh_token, Slack's error body), each refresh taking delay;
// chat.postMessage accepts an access token until it expires (token_expired
// after, invalid_auth for one never issued) and records every post.
type rotatingSlack struct {
	t        *testing.T
	clock    *fakeclock.Clock
	delay    time.Duration
	mu       sync.Mutex
	refresh  string               // the one refresh token still good
	access   map[string]time.Time // issued access token -> expiry
	gen      int
	spends   int // refreshes that spent a token
	refused  int // refreshes answered invalid_refresh_token
	posts    []url2text
	template map[string]any // oauth_v2_access_refreshed.json
}

type url2text struct{ channel, thread, text, token string }

func newRotatingSlack(t *testing.T, clock *fakeclock.Clock, delay time.Duration) (*rotatingSlack, *httptest.Server) {
	f := &rotatingSlack{t: t, clock: clock, delay: delay, access: map[string]time.Time{},
		refresh: "xoxe-1-My0xLTIyMjIyMjIyMjIyLWZpcnN0LXJlZnJlc2g"}
	b, err := os.ReadFile(filepath.Join("testdata", "oauth_v2_access_refreshed.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f.template); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *rotatingSlack) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/api/oauth.v2.access" && r.PostForm.Get("grant_type") == "refresh_token":
		time.Sleep(f.delay)
		f.mu.Lock()
		defer f.mu.Unlock()
		if r.PostForm.Get("refresh_token") != f.refresh {
			f.refused++
			f.file(w, "oauth_v2_access_invalid_refresh_token.json")
			return
		}
		f.gen++
		f.spends++
		access := fmt.Sprintf("xoxe.xoxb-1-gen%d", f.gen)
		f.refresh = fmt.Sprintf("xoxe-1-gen%d", f.gen)
		f.access[access] = f.clock.Now().Add(12 * time.Hour)
		resp := map[string]any{}
		for k, v := range f.template {
			resp[k] = v
		}
		resp["access_token"], resp["refresh_token"] = access, f.refresh
		json.NewEncoder(w).Encode(resp)
	case r.URL.Path == "/api/oauth.v2.access":
		f.mu.Lock()
		f.access["xoxe.xoxb-1-MS0yLTIyMjIyMjIyMjIyLTMzMzMzMzMzMzMzLWZpcnN0"] = f.clock.Now().Add(12 * time.Hour)
		f.mu.Unlock()
		f.file(w, "oauth_v2_access_rotating.json")
	case r.URL.Path == "/api/chat.postMessage":
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tok == "" {
			tok = r.PostForm.Get("token")
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		exp, ok := f.access[tok]
		switch {
		case !ok:
			w.Write([]byte(`{"ok":false,"error":"invalid_auth"}`))
		case !f.clock.Now().Before(exp):
			w.Write([]byte(`{"ok":false,"error":"token_expired"}`))
		default:
			f.posts = append(f.posts, url2text{r.PostForm.Get("channel"), r.PostForm.Get("thread_ts"), r.PostForm.Get("text"), tok})
			b, err := os.ReadFile(filepath.Join("..", "bot", "testdata", "slack", "chat_postMessage_ok.json"))
			if err != nil {
				f.t.Error(err)
			}
			w.Write(b)
		}
	default:
		http.NotFound(w, r)
	}
}

func (f *rotatingSlack) file(w http.ResponseWriter, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.t.Error(err)
	}
	w.Write(b)
}

func (f *rotatingSlack) counts() (spends, refused, posts int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.spends, f.refused, len(f.posts)
}

// rotatingReplicas installs the rotating workspace and returns n replicas
// sharing one database, each with its Web API client.
func rotatingReplicas(t *testing.T, n int, delay time.Duration) (*rotatingSlack, *fakeclock.Clock, *store.DB, []*App, []*Client) {
	t.Helper()
	clock := fakeclock.New(time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC))
	fake, srv := newRotatingSlack(t, clock, delay)
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.Now = clock.Now
	var (
		apps    []*App
		clients []*Client
	)
	for i := range n {
		app, err := New(Config{ClientID: "111.222", ClientSecret: "shh", Key: testKey, APIURL: srv.URL + "/api", HTTP: srv.Client(),
			Store: db, Holder: fmt.Sprintf("replica-%d", i), Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		apps = append(apps, app)
		clients = append(clients, app.Client(srv.URL+"/api/", srv.Client()))
	}
	mux := http.NewServeMux()
	apps[0].Register(mux)
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest("GET", "/slack/install", nil))
	state := rec.Result().Cookies()[0]
	req := httptest.NewRequest("GET", "/slack/oauth_redirect?code=code-rotating&state="+state.Value, nil)
	req.AddCookie(state)
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("install: %d %s", rec.Code, rec.Body)
	}
	return fake, clock, db, apps, clients
}

// ask posts perReplica answers at once through every replica's client
// and returns the errors.
func ask(clients []*Client, perReplica int, round string) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for r, c := range clients {
		for i := range perReplica {
			wg.Go(func() {
				ctx := WithWorkspace(context.Background(), "", "T0ROTATE1")
				_, _, err := c.PostMessageContext(ctx, "C0ROTATE1", slack.MsgOptionText(fmt.Sprintf("%s answer %d of replica %d", round, i, r), false))
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("%s, replica %d, question %d: %w", round, r, i, err))
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return errs
}

// TestRotationEveryQuestionAnswered: two replicas, twelve questions each
// at once, Slack taking half a second to refresh a single-use refresh
// token: the token is refreshed once per round, and every question is
// answered, in the round where the token is due (the current one still
// good) and in the round where it has already expired.
func TestRotationEveryQuestionAnswered(t *testing.T) {
	fake, clock, _, _, clients := rotatingReplicas(t, 2, 500*time.Millisecond)
	clock.Advance(12*time.Hour - RefreshBefore + time.Minute) // due, still good for 29 minutes
	for _, err := range ask(clients, 12, "due") {
		t.Error(err)
	}
	clock.Advance(13 * time.Hour) // whatever token a replica holds has expired
	for _, err := range ask(clients, 12, "expired") {
		t.Error(err)
	}
	spends, refused, posts := fake.counts()
	if posts != 48 {
		t.Errorf("%d answers posted, want 48", posts)
	}
	// The first round may answer before its refresh lands; the expired
	// round cannot, so at least one refresh, at most one per round.
	if spends < 1 || spends > 2 || refused != 0 {
		t.Errorf("Slack saw %d refreshes and %d spent refresh tokens; want one per round and none spent twice", spends, refused)
	}
}

// TestRefreshAnswerLost: Slack spends the refresh token but answers after
// fitbot stopped waiting. The asker is answered with the current token;
// the next refresh is refused as spent, the store holds nothing newer, so
// the workspace is marked for reinstalling: answers carry the note while
// the token lasts, and after it expires Token says ErrReinstall. A new
// install clears the mark.
func TestRefreshAnswerLost(t *testing.T) {
	fake, clock, db, apps, clients := rotatingReplicas(t, 1, 0)
	apps[0].callTimeout = 50 * time.Millisecond
	fake.delay = 300 * time.Millisecond
	clock.Advance(12*time.Hour - RefreshBefore + time.Minute)
	for _, err := range ask(clients, 1, "lost") {
		t.Errorf("the asker was not answered with the current token: %v", err)
	}
	waitFlights(t, apps[0])
	for i := 0; i < 100; i++ { // Slack finishes the refresh nobody waits for
		if spends, _, _ := fake.counts(); spends == 1 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if spends, _, _ := fake.counts(); spends != 1 {
		t.Fatalf("Slack spent %d refresh tokens, want 1 (the lost answer)", spends)
	}
	fake.delay = 0
	for _, err := range ask(clients, 1, "marked") {
		t.Error(err)
	}
	waitFlights(t, apps[0])
	ctx := context.Background()
	in, err := db.FindInstallation(ctx, "", "T0ROTATE1")
	if err != nil || in.Reinstall.IsZero() {
		t.Fatalf("after a refused refresh: reinstall %v, %v; want marked", in.Reinstall, err)
	}
	ws, err := apps[0].Token(ctx, "", "T0ROTATE1")
	if err != nil || !ws.ReinstallBy.Equal(in.Expires) {
		t.Errorf("Token while the current token lasts: %v, reinstall by %v", err, ws.ReinstallBy)
	}
	for _, err := range ask(clients, 1, "noted") {
		t.Error(err)
	}
	fake.mu.Lock()
	last := fake.posts[len(fake.posts)-1]
	fake.mu.Unlock()
	if last.text != ReinstallNote {
		t.Errorf("last post %q, want the reinstall note", last.text)
	}
	_, refusedBefore, _ := fake.counts()
	clock.Advance(time.Hour)
	if _, err := apps[0].Token(ctx, "", "T0ROTATE1"); !errors.Is(err, ErrReinstall) {
		t.Errorf("Token after expiry: %v, want ErrReinstall", err)
	}
	if _, refused, _ := fake.counts(); refused != refusedBefore {
		t.Errorf("a dead refresh token was sent to Slack again (%d -> %d)", refusedBefore, refused)
	}
	in.BotToken, in.Reinstall = []byte("sealed"), time.Time{}
	if err := db.SaveInstallation(ctx, in); err != nil {
		t.Fatal(err)
	}
	if in, _ = db.FindInstallation(ctx, "", "T0ROTATE1"); !in.Reinstall.IsZero() {
		t.Errorf("a new install kept the reinstall mark %v", in.Reinstall)
	}
}

// waitFlights waits until app has no refresh under way.
func waitFlights(t *testing.T, app *App) {
	t.Helper()
	for range 200 {
		app.flights.mu.Lock()
		n := len(app.flights.m)
		app.flights.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a refresh is still under way")
}
