package slackoauth

import (
	"context"
	"net/http"
	"strings"

	"github.com/slack-go/slack"
)

// workspaceKey is the context key of the workspace a request came from.
type workspaceKey struct{}

type workspaceID struct{ enterprise, team string }

// WithWorkspace marks ctx as work for the workspace teamID of
// enterpriseID (enterpriseID "" outside Enterprise Grid): every Slack
// call Client makes under it uses that workspace's token.
func WithWorkspace(ctx context.Context, enterpriseID, teamID string) context.Context {
	return context.WithValue(ctx, workspaceKey{}, workspaceID{enterpriseID, teamID})
}

// WorkspaceOf returns the workspace WithWorkspace put in ctx.
func WorkspaceOf(ctx context.Context) (enterpriseID, teamID string, ok bool) {
	w, ok := ctx.Value(workspaceKey{}).(workspaceID)
	return w.enterprise, w.team, ok
}

// Client is the bot's Slack Web API when fitbot is installed in many
// workspaces: each call takes the token of the workspace its context
// names (WithWorkspace), refreshed when due. It is a bot.MessagePoster
// and a bot.UploadAPI.
type Client struct {
	app    *App
	apiURL string
	http   *http.Client
}

// Client returns the Web API client over a's workspaces; apiURL is
// SLACK_API_URL ("" for Slack's).
func (a *App) Client(apiURL string, hc *http.Client) *Client {
	if apiURL != "" && !strings.HasSuffix(apiURL, "/") {
		apiURL += "/" // slack-go appends method names to it
	}
	return &Client{app: a, apiURL: apiURL, http: hc}
}

// errNoWorkspace means a Slack call was made outside any workspace's
// request: a wiring mistake, reported rather than sent with no token.
type errNoWorkspace struct{}

func (errNoWorkspace) Error() string {
	return "slack call without a workspace: the request's team is unknown"
}

// api is a slack-go client with the token of ctx's workspace, and
// whether that workspace must install fitbot again.
func (c *Client) api(ctx context.Context) (*slack.Client, bool, error) {
	enterprise, team, ok := WorkspaceOf(ctx)
	if !ok {
		return nil, false, errNoWorkspace{}
	}
	ws, err := c.app.Token(ctx, enterprise, team)
	if err != nil {
		return nil, false, err
	}
	opts := []slack.Option{slack.OptionHTTPClient(c.http)}
	if c.apiURL != "" {
		opts = append(opts, slack.OptionAPIURL(c.apiURL))
	}
	return slack.New(ws.Token, opts...), !ws.ReinstallBy.IsZero(), nil
}

// PostMessageContext is chat.postMessage with the workspace's token. In
// a workspace that must install fitbot again (its token still works, but
// Slack will not renew it), the post is followed in the same thread by
// ReinstallNote, while the asker can still be told.
func (c *Client) PostMessageContext(ctx context.Context, channelID string, options ...slack.MsgOption) (string, string, error) {
	api, reinstall, err := c.api(ctx)
	if err != nil {
		return "", "", err
	}
	ch, ts, err := api.PostMessageContext(ctx, channelID, options...)
	if err != nil || !reinstall {
		return ch, ts, err
	}
	note := []slack.MsgOption{slack.MsgOptionText(ReinstallNote, false)}
	endpoint, values, _ := slack.UnsafeApplyMsgOptions("", channelID, "", options...)
	switch endpoint {
	case "chat.postMessage":
	case "chat.postEphemeral":
		note = append(note, slack.MsgOptionPostEphemeral(values.Get("user")))
	default: // an update, or a response_url: the answer is where the asker looks
		return ch, ts, nil
	}
	if values.Get("thread_ts") != "" {
		note = append(note, slack.MsgOptionTS(values.Get("thread_ts")))
	}
	if _, _, nerr := api.PostMessageContext(ctx, channelID, note...); nerr != nil {
		c.app.cfg.Logger.Warn("slack oauth: the reinstall note was not posted", "channel", channelID, "err", nerr)
	}
	return ch, ts, nil
}

// UploadFileContext is Slack's external file upload with the workspace's
// token.
func (c *Client) UploadFileContext(ctx context.Context, params slack.UploadFileParameters) (*slack.FileSummary, error) {
	api, _, err := c.api(ctx)
	if err != nil {
		return nil, err
	}
	return api.UploadFileContext(ctx, params)
}

// GetConversationHistoryContext is conversations.history with the
// workspace's token (the digest looks for its own earlier post).
func (c *Client) GetConversationHistoryContext(ctx context.Context, params *slack.GetConversationHistoryParameters) (*slack.GetConversationHistoryResponse, error) {
	api, _, err := c.api(ctx)
	if err != nil {
		return nil, err
	}
	return api.GetConversationHistoryContext(ctx, params)
}
