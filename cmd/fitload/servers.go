package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// checkLoopbackURL refuses a target that is not on this machine's loopback.
func checkLoopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("-target %q: want a URL like http://127.0.0.1:8080", raw)
	}
	return checkLoopbackAddr(u.Host)
}

// checkLoopbackAddr refuses a host:port whose host is not a loopback IP
// or "localhost": fitload must never load anyone else's server.
func checkLoopbackAddr(hostport string) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("address %q: %w", hostport, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("address %q is not loopback: fitload only talks to 127.0.0.1, [::1] or localhost", hostport)
}

// server is an HTTP server this process started on loopback.
type server struct {
	url    string
	secret string
	srv    *http.Server
	done   func()
}

func (s *server) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	if s.done != nil {
		s.done()
	}
}

// serveLoopback serves h on a free loopback port.
func serveLoopback(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return &server{url: "http://" + ln.Addr().String(), srv: srv}, nil
}

// bareReply is the bare handler's whole answer.
const bareReply = `{"response_type":"ephemeral","text":"ok"}`

// startBare serves the bare handler: read the body, write a constant
// Slack message. It is the ceiling of net/http on this machine.
func startBare() (*server, error) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/commands", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, bareReply)
	})
	return serveLoopback(mux)
}

// startSink serves the response_url the commands carry: it accepts and
// drops every post, so that a follow-up never leaves the machine.
func startSink() (*server, error) {
	return serveLoopback(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	}))
}

// selfSecret signs requests to the in-process fitbot.
const selfSecret = "fitload-in-process-signing-secret"

// startSelf serves fitbot's HTTP endpoints in this process: the real
// parser, estimator with the built-in price sheet, and plans saved to a
// SQLite file in a temporary folder, removed at close.
func startSelf(ctx context.Context, responseURL string) (*server, error) {
	dir, err := os.MkdirTemp("", "fitload-")
	if err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, filepath.Join(dir, "fitbot.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	est := bot.Fixed{Estimator: &sizing.Estimator{Prices: pricing.DefaultSheet()}}
	h, err := bot.New(bot.Config{
		Parse:   reading.Parse,
		Answer:  est,
		Ask:     est,
		Respond: bot.NewResponseURLPoster(&http.Client{Timeout: 5 * time.Second}),
		Plans:   db,
		Prices:  db,
		Logger:  log,
		// The built-in sheet never changes in this process: one version
		// turns the reply cache on, as serve's price version does.
		AnswerVersion: func() uint64 { return 1 },
	})
	if err == nil {
		var endpoints *bot.HTTP
		endpoints, err = bot.NewHTTP(bot.HTTPConfig{SigningSecret: selfSecret, Handler: h, Logger: log})
		if err == nil {
			mux := http.NewServeMux()
			endpoints.Register(mux)
			var s *server
			if s, err = serveLoopback(mux); err == nil {
				s.secret = selfSecret
				s.done = func() {
					h.Wait()
					db.Close()
					os.RemoveAll(dir)
				}
				return s, nil
			}
		}
	}
	db.Close()
	os.RemoveAll(dir)
	return nil, fmt.Errorf("in-process fitbot: %w", err)
}

// serveFakeSlack serves the Slack Web API calls `fitbot serve` makes
// (auth.test at start, chat.postMessage for answers in threads and the
// digest) on addr, until d has passed or ctx ends.
func serveFakeSlack(ctx context.Context, addr string, d time.Duration, log io.Writer) error {
	mux := http.NewServeMux()
	reply := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}
	}
	mux.HandleFunc("/auth.test", reply(`{"ok":true,"url":"https://fitbot-load.slack.com/","team":"fitbot load","user":"fitbot","team_id":"T1DC2JH3J","user_id":"U0FITBOT","bot_id":"B0FITBOT"}`))
	mux.HandleFunc("/chat.postMessage", reply(`{"ok":true,"channel":"C0FITLOAD","ts":"1764464401.000300"}`))
	mux.HandleFunc("/chat.postEphemeral", reply(`{"ok":true,"message_ts":"1764464401.000300"}`))
	mux.HandleFunc("/", reply(`{"ok":false,"error":"unknown_method"}`))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(log, "fitload: fake Slack Web API on http://%s/ for %v (SLACK_API_URL=http://%s/)\n", ln.Addr(), d, ln.Addr())
	return serveFor(ctx, srv, ln, d)
}

// serveFor runs srv on ln until d has passed or ctx ends, then shuts it
// down, giving requests in flight 5 seconds.
func serveFor(ctx context.Context, srv *http.Server, ln net.Listener, d time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	select {
	case <-ctx.Done():
	case err := <-errc:
		return err
	}
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
