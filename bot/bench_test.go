package bot

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The HTTP slash path against a bare net/http handler on the same
// loopback server and client: run
//
//	go test ./bot -run '^$' -bench 'SlashCommand|BareHandler' -benchtime 2000x
//
// and compare req/s. The slash path is the whole of it: signature check,
// form parse, the real sizing parser and estimator with the embedded
// price sheet, a plan written to a real SQLite file, Block Kit JSON.

// benchmarkServer posts body to handler over loopback HTTP b.N times.
// benchmarkServer posts the i-th request next gives, b.N times.
func benchmarkServer(b *testing.B, handler http.Handler, next func(i int) (http.Header, string)) {
	srv := httptest.NewServer(handler)
	defer srv.Close()
	client := srv.Client()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		header, body := next(i)
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/slack/commands", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header = header
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}

// BenchmarkSlashCommand measures the path with the plan write
// ("saved"), the same question again from the reply cache ("cached",
// the plan still written) and, for the breakdown, without a store
// ("unsaved").
func BenchmarkSlashCommand(b *testing.B) {
	b.Run("saved", func(b *testing.B) { benchmarkSlash(b, true, false) })
	b.Run("cached", func(b *testing.B) { benchmarkSlash(b, true, true) })
	b.Run("unsaved", func(b *testing.B) { benchmarkSlash(b, false, false) })
}

func benchmarkSlash(b *testing.B, save, cache bool) {
	h, _ := newRealHandler(b)
	if !save {
		h.cfg.Plans = nil
	}
	if cache {
		h.cfg.AnswerVersion = func() uint64 { return 1 }
		h.replies = newReplyCache()
	}
	srv, err := NewHTTP(HTTPConfig{SigningSecret: testSecret, Handler: h, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	mux := http.NewServeMux()
	srv.Register(mux)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	benchmarkServer(b, mux, func(i int) (http.Header, string) {
		// Each request its own response_url, as Slack's are: an identical
		// signed body is a replay (replay.go) and answered empty.
		body := url.Values{"team_id": {"T1DC2JH3J"}, "channel_id": {"C0FITBOT"}, "user_id": {"U2CERLKJA"}, "command": {"/fit"},
			"text": {"llama-3.1-8b qlora rtx-4090"}, "response_url": {"https://hooks.slack.com/commands/T1DC2JH3J/" + strconv.Itoa(i) + "/x"}}.Encode()
		return http.Header{"Content-Type": {formType}, headerTimestamp: {ts}, headerSignature: {ComputeSignature(testSecret, ts, []byte(body))}}, body
	})
}

func BenchmarkBareHandler(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/commands", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"response_type":"ephemeral","text":"ok"}`)
	})
	benchmarkServer(b, mux, func(int) (http.Header, string) {
		return http.Header{"Content-Type": {formType}}, "team_id=T1&user_id=U1&command=%2Ffit&text=13B+lora+4090"
	})
}

// BenchmarkCachedMessage is a reply cache hit's own work: the context
// line for this plan and now, and the reply's JSON around it.
//
//	go test ./bot -run '^$' -bench CachedMessage -benchmem
func BenchmarkCachedMessage(b *testing.B) {
	h, _ := newRealHandler(b)
	h.cfg.AnswerVersion = func() uint64 { return 1 }
	h.replies = newReplyCache()
	h.Command(b.Context(), slash("llama-3.1-8b qlora rtx-4090"))
	e := h.replies.getText(1, "llama-3.1-8b qlora rtx-4090")
	if e == nil {
		b.Fatal("not cached")
	}
	view := answerView{now: time.Now(), ref: e.ref, planID: 123456, kept: "llama-3.1-8b"}
	b.ReportAllocs()
	for b.Loop() {
		msg := e.message(view, e.result.Fit.Answer)
		if _, err := msg.encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAskCommand is the largest-model search asked again and again
// through the handler (plan written), with the reply cache on:
//
//	go test ./bot -run '^$' -bench AskCommand -benchmem -benchtime 200x -count 3
func BenchmarkAskCommand(b *testing.B) {
	h, _ := newRealHandler(b)
	h.cfg.AnswerVersion = func() uint64 { return 1 }
	h.replies = newReplyCache()
	b.ReportAllocs()
	for b.Loop() {
		if msg := h.Command(b.Context(), slash("what 2x rtx-4090 lora")); msg.Outcome != OutcomeAnswered {
			b.Fatalf("outcome %q", msg.Outcome)
		}
	}
}

// BenchmarkCachedCommand is a reply cache hit through the handler, the
// plan written, without HTTP (the parse is skipped: the words are known):
//
//	go test ./bot -run '^$' -bench CachedCommand -benchmem -benchtime 2000x -count 3
func BenchmarkCachedCommand(b *testing.B) {
	h, _ := newRealHandler(b)
	h.cfg.AnswerVersion = func() uint64 { return 1 }
	h.replies = newReplyCache()
	const text = "llama-3.1-8b qlora rtx-4090"
	h.Command(b.Context(), slash(text))
	b.ReportAllocs()
	for b.Loop() {
		if msg := h.Command(b.Context(), slash(text)); msg.pre == nil {
			b.Fatal("not served from the cache")
		}
	}
}
