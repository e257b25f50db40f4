package bot

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// newRealHandler wires the handler to the real parser, the real estimator
// with the embedded default price sheet, and a real SQLite store in a
// temporary folder, as fitbot serve does.
func newRealHandler(tb testing.TB) (*Handler, *store.DB) {
	tb.Helper()
	db, err := store.Open(context.Background(), filepath.Join(tb.TempDir(), "fitbot.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	h, err := New(Config{
		Parse:   reading.Parse,
		Answer:  Fixed{Estimator: &sizing.Estimator{Prices: pricing.DefaultSheet()}},
		Ask:     Fixed{Estimator: &sizing.Estimator{Prices: pricing.DefaultSheet()}},
		Respond: NewResponseURLPoster(http.DefaultClient),
		Plans:   db,
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.Wait)
	return h, db
}

// Compile-time checks that the real pieces fit the interfaces bot declares.
var (
	_ Parser    = reading.Parse
	_ Answerer  = Fixed{}
	_ Asker     = Fixed{}
	_ PlanStore = (*store.DB)(nil)
	_ PriceBook = (*store.DB)(nil)
)

// TestHelpExamplesAnswer checks that every example `/fit help` shows is
// read by the real parser and answered by the real estimator within
// Slack's limits: a fit question with its verdict, an ask question with
// its own kind of answer.
func TestHelpExamplesAnswer(t *testing.T) {
	h, _ := newRealHandler(t)
	heads := map[sizing.Intent][]string{
		sizing.IntentFit:        {"Fits", "Does not fit"},
		sizing.IntentLargest:    {"🔎 Largest models that fit "},
		sizing.IntentMaxContext: {"📏 Longest context: "},
		sizing.IntentWhichGPU:   {"🧮 "},
		sizing.IntentBuyRent:    {"☁️ Rent: ", "🖥️ Buy: "},
	}
	asks := map[sizing.Intent]bool{}
	for _, g := range helpGroups {
		for _, ex := range g.examples {
			t.Run(ex, func(t *testing.T) {
				p, err := reading.Parse(ex)
				if err != nil {
					t.Fatalf("the parser cannot read it: %v", err)
				}
				asks[p.Intent] = true
				msg := h.Command(context.Background(), slash(ex))
				checkLimits(t, msg)
				if !slices.ContainsFunc(heads[p.Intent], func(w string) bool { return strings.Contains(msg.Text, w) }) {
					t.Errorf("/fit %s (%s) is not answered: %s", ex, p.Intent, msg.Text)
				}
				if p.Intent == sizing.IntentBuyRent {
					// The default sheet has spot prices for the card (pricing.Snapshot is a SpotPriceSource).
					if got := messageJSON(t, msg); strings.Contains(got, "no price known") {
						t.Errorf("/fit %s has a rent price missing:\n%s", ex, got)
					}
				}
			})
		}
	}
	for i := range heads {
		if !asks[i] {
			t.Errorf("no help example asks a %s question", i)
		}
	}
}

// TestRealPlansRoundTrip asks through HTTP, finds the plan by an alias of
// the model, and re-answers it, all against the real store.
func TestRealPlansRoundTrip(t *testing.T) {
	h, db := newRealHandler(t)
	srv, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s := &testServer{mux: http.NewServeMux()}
	srv.Register(s.mux)
	ask := func(text string) string {
		form := url.Values{"team_id": {"T1DC2JH3J"}, "channel_id": {"C0FITBOT"}, "user_id": {"U2CERLKJA"}, "command": {"/fit"}, "text": {text}}.Encode()
		w := s.do("/slack/commands", formType, []byte(form), time.Now(), nil)
		if w.Code != http.StatusOK {
			t.Fatalf("/fit %s: status %d", text, w.Code)
		}
		return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">").Replace(w.Body.String())
	}
	if got := ask("mistral 7b lora 4090"); !strings.Contains(got, "Kept in the team's plans") {
		t.Fatalf("answer does not say it is kept:\n%s", got)
	}
	h.Wait()
	p, err := db.Plan(context.Background(), store.AllPlans(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Team != "T1DC2JH3J" || p.Channel != "C0FITBOT" || p.User != "U2CERLKJA" || p.Source != store.SourceSlack || p.Canonical == "" {
		t.Errorf("saved plan %+v lacks who asked or the canonical question", p)
	}
	if got := ask("plans Mistral-7B-v0.1"); !strings.Contains(got, "*#1*") {
		t.Errorf("/fit plans by another alias does not find plan 1:\n%s", got)
	}
	if got := ask("plan 1"); !strings.Contains(got, "*Plan #1* from") {
		t.Errorf("/fit plan 1 does not re-answer it:\n%s", got)
	}
	if got := ask("plan 2"); !strings.Contains(got, "There is no plan #2") {
		t.Errorf("/fit plan 2: %s", got)
	}
}

func TestCatalogCommands(t *testing.T) {
	h, _ := newRealHandler(t)
	for _, tt := range []struct{ text, want string }{
		{"gpus", "rtx-4090"},
		{"models", "llama-3.1-8b"},
		{"gpus for 200 users of llama 3 8b", "Serving Llama 3 8B"}, // a question, not the subcommand
	} {
		msg := h.Command(context.Background(), slash(tt.text))
		checkLimits(t, msg)
		if got := messageJSON(t, msg); !strings.Contains(got, tt.want) {
			t.Errorf("/fit %s lacks %s:\n%s", tt.text, tt.want, got)
		}
	}
}

// TestPricesFromAnEmptyStore: a fresh install shows the built-in sheet,
// with its dates and age, not "no offers"; so does a fitbot without a
// store.
func TestPricesFromAnEmptyStore(t *testing.T) {
	h, db := newRealHandler(t)
	h.cfg.Prices = db
	for _, text := range []string{"prices", "prices 4090", "prices a100"} {
		msg := h.Command(context.Background(), slash(text))
		got := messageJSON(t, msg)
		for _, want := range []string{"(built-in sheet)", "built-in price sheet, dated 2026-01-01 to 2026-11-09", "days old", "/fit prices refresh"} {
			if !strings.Contains(got, want) {
				t.Errorf("/fit %s on an empty store lacks %q:\n%s", text, want, got)
			}
		}
	}
	got := messageJSON(t, h.Command(context.Background(), slash("prices a100")))
	for _, want := range []string{"A100 SXM 80 GB", "A100 PCIe 80 GB", "A100 SXM 40 GB"} {
		if !strings.Contains(got, want) {
			t.Errorf("/fit prices a100 lacks the variant %q:\n%s", want, got)
		}
	}
	h.cfg.Prices = nil
	if got := messageJSON(t, h.Command(context.Background(), slash("prices"))); !strings.Contains(got, "built-in price sheet") {
		t.Errorf("/fit prices without a store: %s", got)
	}
	if got := h.Command(context.Background(), slash("prices rtx 9999")).Text; !strings.Contains(got, "I couldn't use that") {
		t.Errorf("/fit prices for an unknown GPU: %q", got)
	}
}
