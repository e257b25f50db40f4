package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/store"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slacktest"
	"github.com/slack-go/slack/socketmode"
)

// socketFixture is the Socket Mode transport connected to slack-go's fake
// Slack (slacktest): apps.connections.open and the websocket are the
// library's own; chat.postMessage is a recording Binder.
type socketFixture struct {
	server  *slacktest.Server
	socket  *Socket
	h       *Handler
	rec     *postRecorder
	metrics *Metrics
	stop    context.CancelFunc
	done    chan error
}

func newSocketFixture(t *testing.T, change func(*Config)) *socketFixture {
	t.Helper()
	f := &socketFixture{rec: newPostRecorder(), metrics: NewMetrics(), done: make(chan error, 1)}
	f.server = slacktest.NewTestServer(func(c slacktest.Customize) {
		c.Handle("/chat.postMessage", f.rec.ServeHTTP)
	})
	f.server.Start()
	t.Cleanup(f.server.Stop)
	// The fake's websocket reader hands every inbound message to the
	// unbuffered SeenFeed and stops until someone takes it.
	feedDone := make(chan struct{})
	t.Cleanup(func() { close(feedDone) })
	go func() {
		for {
			select {
			case <-f.server.SeenFeed:
			case <-feedDone:
				return
			}
		}
	}()

	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.h = newTestHandler(t, change)
	api := NewSlackClient("xoxb-test-bot-token", "xapp-test-app-token", f.server.GetAPIURL(), http.DefaultClient)
	web, err := NewWebAPI(WebAPIConfig{API: api, Metrics: f.metrics, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	events, err := NewEvents(EventsConfig{Handler: f.h, Seen: db, Post: web, BotUserID: testBotUser, Metrics: f.metrics, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	f.socket, err = NewSocket(SocketConfig{Client: socketmode.New(api), Handler: f.h, Events: events, Metrics: f.metrics, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.stop = cancel
	go func() { f.done <- f.socket.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-f.done
	})
	eventually(t, f.socket.Connected)
	return f
}

// ackFor waits for the acknowledgement of an envelope among the messages
// the fake Slack received on the websocket and returns its payload.
func (f *socketFixture) ackFor(t *testing.T, envelope string) json.RawMessage {
	t.Helper()
	var payload json.RawMessage
	eventually(t, func() bool {
		for _, m := range f.server.GetSeenInboundMessages() {
			var ack struct {
				EnvelopeID string          `json:"envelope_id"`
				Payload    json.RawMessage `json:"payload"`
			}
			if json.Unmarshal([]byte(m), &ack) == nil && ack.EnvelopeID == envelope {
				payload = ack.Payload
				return true
			}
		}
		return false
	})
	return payload
}

// TestSocketSlashCommand sends a /fit slash command envelope over the
// websocket and reads the answer back from its acknowledgement.
func TestSocketSlashCommand(t *testing.T) {
	f := newSocketFixture(t, nil)
	f.server.SendToWebsocket(string(readTestdata(t, "socket_slash_command.json")))
	payload := f.ackFor(t, "1d7a4f6e-3c2b-4a19-8f5e-0c9b8a7d6e5f")
	var msg postedMessage
	if err := json.Unmarshal(payload, &msg); err != nil {
		t.Fatalf("ack payload %s: %v", payload, err)
	}
	if msg.ResponseType != slack.ResponseTypeEphemeral || !strings.Contains(msg.Text, "Fits") || len(msg.Blocks) == 0 {
		t.Errorf("ack payload = %+v, want the ephemeral answer with blocks", msg)
	}
	eventually(t, func() bool {
		return testutil.ToFloat64(f.metrics.questions.WithLabelValues(KindSlash, OutcomeAnswered)) == 1
	})
}

// TestSocketEventAnsweredOnce sends an app_mention envelope and Slack's
// retry of it: both are acknowledged, one answer is posted in the thread.
func TestSocketEventAnsweredOnce(t *testing.T) {
	f := newSocketFixture(t, nil)
	f.server.SendToWebsocket(string(readTestdata(t, "socket_events_api.json")))
	f.ackFor(t, "6b5a4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d")
	posts := f.rec.waitPosts(t, 1)
	f.server.SendToWebsocket(string(readTestdata(t, "socket_events_api_retry.json")))
	f.ackFor(t, "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0")
	eventually(t, func() bool { return testutil.ToFloat64(f.metrics.events.WithLabelValues("duplicate")) == 1 })
	f.h.Wait()
	if got := len(f.rec.posted()); got != 1 {
		t.Errorf("%d posts for an event and its retry, want 1", got)
	}
	if p := posts[0]; p.Channel != "C0FITBOT" || p.ThreadTS != "1764464400.000200" || !strings.Contains(p.Text, "Fits") {
		t.Errorf("posted %+v, want the answer in thread 1764464400.000200 of C0FITBOT", p)
	}
}

// TestSocketLargeAnswer: an answer over Slack's 20 KB acknowledgement
// limit is acknowledged empty and posted to the response_url.
func TestSocketLargeAnswer(t *testing.T) {
	f := newSocketFixture(t, nil)
	respond := newResponseURL(t)
	var blocks []slack.Block
	for range 10 {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(strings.Repeat("memory ", 420)), nil, nil))
	}
	big := ephemeral("a long answer", blocks...)
	if b, _ := big.encode(); len(b) <= maxAckBytes {
		t.Fatalf("test message is %d bytes, not over the limit", len(b))
	}
	req := socketmode.Request{Type: socketmode.RequestTypeSlashCommands, EnvelopeID: "env-large"}
	f.socket.ack(context.Background(), req, slack.SlashCommand{ResponseURL: respond.URL}, big)
	if payload := f.ackFor(t, "env-large"); len(payload) != 0 && string(payload) != "null" {
		t.Errorf("large answer acknowledged with payload %.80s…, want an empty ack", payload)
	}
	f.h.Wait()
	got := respond.posted(t)
	if len(got) != 1 || got[0].Text != "a long answer" || len(got[0].Blocks) != 10 {
		t.Errorf("response_url got %d messages, want the large answer once", len(got))
	}
}

// TestSocketStopsCleanly cancels Run while a command is in flight: the
// command is acknowledged with its answer before Run returns nil.
func TestSocketStopsCleanly(t *testing.T) {
	slow, entered := make(chan struct{}), make(chan struct{}, 1)
	f := newSocketFixture(t, func(c *Config) {
		c.Parse = func(q string) (reading.Request, error) {
			entered <- struct{}{}
			<-slow
			return fakeParser(q)
		}
	})
	f.server.SendToWebsocket(string(readTestdata(t, "socket_slash_command.json")))
	select {
	case <-entered: // the command is in the handler
	case <-time.After(10 * time.Second):
		t.Fatal("the command never reached the handler")
	}
	f.stop()
	select {
	case err := <-f.done:
		t.Fatalf("Run returned %v with a command in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(slow)
	select {
	case err := <-f.done:
		if err != nil {
			t.Errorf("Run after stop = %v, want nil", err)
		}
		f.done <- nil // for the cleanup
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the command finished")
	}
	payload := f.ackFor(t, "1d7a4f6e-3c2b-4a19-8f5e-0c9b8a7d6e5f")
	if !strings.Contains(string(payload), "Fits") {
		t.Errorf("in-flight command acknowledged with %s, want its answer", payload)
	}
	if f.socket.Connected() {
		t.Error("Connected after Run returned")
	}
}

// TestSocketInteraction presses "Show details" over Socket Mode: the
// envelope is acknowledged at once, and the detailed answer replaces the
// private one through the response_url.
func TestSocketInteraction(t *testing.T) {
	f := newSocketFixture(t, nil)
	respond := newResponseURL(t)
	payload := strings.NewReplacer("RESPONSE_URL", respond.URL, "ACTION_ID", ActionDetails, "ACTION_VALUE", "q:llama-3.1-8b qlora rtx-4090").
		Replace(string(readTestdata(t, "block_actions.json")))
	envelope := `{"envelope_id":"2c3d4e5f-6a7b-4c8d-9e0f-a1b2c3d4e5f6","payload":` + payload + `,"type":"interactive","accepts_response_payload":false}`
	f.server.SendToWebsocket(envelope)
	f.ackFor(t, "2c3d4e5f-6a7b-4c8d-9e0f-a1b2c3d4e5f6")
	eventually(t, func() bool { return len(respond.posted(t)) == 1 })
	f.h.Wait()
	got := respond.posted(t)[0]
	if !got.ReplaceOriginal || !strings.Contains(got.Text, "Fits") {
		t.Errorf("response_url got %+v, want the detailed answer replacing the original", got)
	}
}
