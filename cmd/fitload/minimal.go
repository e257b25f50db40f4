package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// The minimal signed handler is the floor every Slack bot shares: read
// the form, check the v0 signature, reply with the bytes fitbot would.
// Served in its own process (-minimal ADDR), it is what fitbot's
// throughput is compared with: the same kernel, net/http, HMAC, form
// parse and reply bytes, and none of fitbot's own work.

// replies is fitbot's reply to each question of the load mix, as Slack
// receives it (2.4 KB on average, 3.3 KB at most; an answer that is kept
// as a plan adds a line), rendered once with the real parser, estimator,
// built-in price sheet and Block Kit.
type replies map[string][]byte

func renderReplies() (replies, error) {
	est := bot.Fixed{Estimator: &sizing.Estimator{Prices: pricing.DefaultSheet()}}
	h, err := bot.New(bot.Config{
		Parse:   reading.Parse,
		Answer:  est,
		Ask:     est,
		Respond: bot.NewResponseURLPoster(http.DefaultClient),
	})
	if err != nil {
		return nil, err
	}
	r := replies{}
	for _, q := range questions {
		msg := h.Command(context.Background(), slack.SlashCommand{TeamID: "T1DC2JH3J", ChannelID: "C0FITLOAD", UserID: "ULOAD00001",
			Command: "/fit", Text: q})
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(msg); err != nil {
			return nil, err
		}
		r[q] = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	return r, nil
}

// meanSize is the replies' mean length in bytes.
func (r replies) meanSize() int {
	total := 0
	for _, b := range r {
		total += len(b)
	}
	return total / max(len(r), 1)
}

// minimalHandler serves POST /slack/commands the minimal way: at most
// 1 MiB of body, the signature (401 without a valid one), the form (400
// when it is not one), then fitbot's reply to the form's text (the first
// question's for a text outside the mix).
func minimalHandler(secret string, r replies) http.Handler {
	return minimalCounted(secret, r, new(atomic.Int64))
}

// minimalCounted is minimalHandler counting the replies it sends in n.
func minimalCounted(secret string, r replies, n *atomic.Int64) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/commands", func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
		if err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if err := bot.VerifySignature(secret, req.Header, body, time.Now()); err != nil {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		reply, ok := r[form.Get("text")]
		if !ok {
			reply = r[questions[0]]
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
		n.Add(1)
	})
	return mux
}

// serveMinimal serves the minimal signed handler on addr until d has
// passed or ctx ends, then prints how many replies it sent and the heap
// allocations per reply (the figure fitbot's go_memstats_mallocs_total
// gives for it).
func serveMinimal(ctx context.Context, addr, secret string, d time.Duration, log io.Writer) error {
	r, err := renderReplies()
	if err != nil {
		return fmt.Errorf("rendering the replies: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	var served atomic.Int64
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	srv := &http.Server{Handler: minimalCounted(secret, r, &served), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(log, "fitload: minimal signed handler on http://%s/slack/commands for %v (replies of %d bytes on average)\n", ln.Addr(), d, r.meanSize())
	if err := serveFor(ctx, srv, ln, d); err != nil {
		return err
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	n := served.Load()
	fmt.Fprintf(log, "fitload: minimal handler sent %d replies, %.0f heap allocations per reply\n",
		n, float64(after.Mallocs-before.Mallocs)/float64(max(n, 1)))
	return nil
}
