package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/fitbot/fitbot/retry"
	"github.com/slack-go/slack"
)

// NewSlackClient returns a Web API client for the bot token, with the app
// token for Socket Mode when appToken is set. apiURL replaces
// https://slack.com/api/ when set (SLACK_API_URL; tests, proxies); the
// trailing slash slack-go needs is added when missing.
func NewSlackClient(botToken, appToken, apiURL string, hc *http.Client) *slack.Client {
	opts := []slack.Option{slack.OptionHTTPClient(hc)}
	if apiURL != "" {
		if !strings.HasSuffix(apiURL, "/") {
			apiURL += "/"
		}
		opts = append(opts, slack.OptionAPIURL(apiURL))
	}
	if appToken != "" {
		opts = append(opts, slack.OptionAppLevelToken(appToken))
	}
	return slack.New(botToken, opts...)
}

// MessagePoster is the Web API call the poster makes; *slack.Client is one.
type MessagePoster interface {
	PostMessageContext(ctx context.Context, channelID string, options ...slack.MsgOption) (string, string, error)
}

// WebAPI posts messages through Slack's Web API (chat.postMessage) and
// rides out Slack's bad moments: a 429 waits the Retry-After Slack sent
// and tries again; a 5xx or a network error backs off (1 s, 2 s, 4 s) and
// tries again; anything else (channel_not_found, not_in_channel,
// invalid_blocks) fails at once, since asking again cannot help. It gives
// up after MaxRetries retries, or when a wait would outlast the context
// or MaxWait.
type WebAPI struct {
	api     MessagePoster
	metrics *Metrics
	log     *slog.Logger
	retries int
	backoff time.Duration
	maxWait time.Duration
	sleep   func(ctx context.Context, d time.Duration) error
}

// WebAPIConfig configures a WebAPI. API is required.
type WebAPIConfig struct {
	API        MessagePoster
	Metrics    *Metrics      // nil: not counted
	Logger     *slog.Logger  // nil: slog.Default()
	MaxRetries int           // retries after the first try; 0 means 3
	Backoff    time.Duration // first wait after a 5xx; 0 means 1 s
	MaxWait    time.Duration // the longest single wait fitbot accepts; 0 means 30 s
}

// NewWebAPI returns a poster, or an error when the API is missing.
func NewWebAPI(cfg WebAPIConfig) (*WebAPI, error) {
	if cfg.API == nil {
		return nil, errors.New("bot: WebAPIConfig.API is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &WebAPI{api: cfg.API, metrics: cfg.Metrics, log: cfg.Logger, retries: cfg.MaxRetries, backoff: cfg.Backoff, maxWait: cfg.MaxWait, sleep: retry.Sleep}
	if w.retries <= 0 {
		w.retries = 3
	}
	if w.backoff <= 0 {
		w.backoff = time.Second
	}
	if w.maxWait <= 0 {
		w.maxWait = 30 * time.Second
	}
	return w, nil
}

// historyReader reads a channel's history; *slack.Client is one.
type historyReader interface {
	GetConversationHistoryContext(ctx context.Context, params *slack.GetConversationHistoryParameters) (*slack.GetConversationHistoryResponse, error)
}

// postKeyEvent is the metadata event type of a message posted with an
// idempotency key (Message.once).
const postKeyEvent = "fitbot_post"

// historyPage is how many of a channel's newest messages FindPosted reads.
const historyPage = 200

// FindPosted looks in channel's messages since oldest for one this app
// posted with key (Message.once) and returns its timestamp. found is
// false when there is none, or when the client cannot read history.
func (w *WebAPI) FindPosted(ctx context.Context, channel, key string, oldest time.Time) (ts string, found bool, err error) {
	h, ok := w.api.(historyReader)
	if !ok {
		return "", false, nil
	}
	resp, err := h.GetConversationHistoryContext(ctx, &slack.GetConversationHistoryParameters{ChannelID: channel,
		Oldest: fmt.Sprintf("%d.000000", oldest.Unix()), Limit: historyPage, IncludeAllMetadata: true})
	if err != nil {
		kind, _, _ := classifySlackError(err)
		w.metrics.SlackAPIError("conversations.history", kind)
		return "", false, fmt.Errorf("conversations.history of %s: %w", channel, err)
	}
	for _, m := range resp.Messages {
		if m.Metadata.EventType == postKeyEvent && m.Metadata.EventPayload["key"] == key {
			return m.Timestamp, true, nil
		}
	}
	return "", false, nil
}

// Post posts msg to channel, in the thread threadTS when it is set, and
// returns the new message's timestamp. A message with an idempotency key
// (Message.once) carries it in its metadata, and before each retry after
// a failure that may have posted it (a timeout, a 5xx), the channel is
// read for it: a post Slack took but answered too slowly is not repeated.
func (w *WebAPI) Post(ctx context.Context, channel, threadTS string, msg Message) (string, error) {
	opts := []slack.MsgOption{slack.MsgOptionText(msg.Text, false), slack.MsgOptionDisableLinkUnfurl()}
	start := time.Now().Add(-time.Minute) // Slack's clock may run behind ours
	if msg.once != "" {
		opts = append(opts, slack.MsgOptionMetadata(slack.SlackMetadata{EventType: postKeyEvent, EventPayload: map[string]any{"key": msg.once}}))
	}
	if len(msg.Blocks) > 0 {
		opts = append(opts, slack.MsgOptionBlocks(msg.Blocks...))
	}
	if threadTS != "" {
		opts = append(opts, slack.MsgOptionTS(threadTS))
	}
	const method = "chat.postMessage"
	var ts string
	policy := retry.Policy{Attempts: w.retries + 1, Backoff: w.backoff, MaxWait: w.maxWait, Sleep: w.sleep}
	mayHavePosted := false // the last try failed in a way that may have posted (a timeout, a 5xx)
	err := policy.Do(ctx, func(attempt int) (bool, time.Duration, error) {
		var err error
		if mayHavePosted && msg.once != "" {
			found, ok, ferr := w.FindPosted(ctx, channel, msg.once, start)
			if ferr != nil {
				return false, 0, fmt.Errorf("an earlier try may have posted it, and the channel could not be read: %w", ferr)
			}
			if ok {
				ts = found
				w.log.Info("bot: an earlier try had posted the message; not posting it again", "method", method, "ts", ts)
				return false, 0, nil
			}
		}
		if _, ts, err = w.api.PostMessageContext(ctx, channel, opts...); err == nil {
			return false, 0, nil
		}
		kind, wait, again := classifySlackError(err)
		mayHavePosted = kind == "server" || kind == "network"
		w.metrics.SlackAPIError(method, kind)
		if again && attempt <= w.retries {
			w.log.Info("bot: slack call failed, retrying", "method", method, "kind", kind, "attempt", attempt, "err", err)
		}
		return again, wait, err
	})
	if long := (*retry.WaitTooLongError)(nil); errors.As(err, &long) {
		w.log.Warn("bot: slack asks to wait longer than fitbot can", "method", method, "wait", long.Wait)
	}
	if err != nil {
		return "", fmt.Errorf("%s to %s: %w", method, channel, err)
	}
	return ts, nil
}

// classifySlackError names the kind of a failed call, how long Slack
// asked to wait before trying again (negative: it named no wait, so the
// backoff applies) and whether another try could help: not for a client
// error (channel_not_found, invalid_blocks) or a cancelled call.
func classifySlackError(err error) (kind string, wait time.Duration, again bool) {
	var rl *slack.RateLimitedError
	var sc slack.StatusCodeError
	var ne net.Error
	switch {
	case errors.As(err, &rl):
		return "rate_limited", max(rl.RetryAfter, 0), true
	case errors.As(err, &sc) && sc.Code == http.StatusTooManyRequests:
		return "rate_limited", time.Second, true // a 429 without Retry-After
	case errors.As(err, &sc) && sc.Code >= 500:
		return "server", -1, true
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "network", -1, false
	case errors.As(err, &ne):
		return "network", -1, true
	}
	return "client", -1, false
}
