// Package slackoauth distributes fitbot to many Slack workspaces: the
// OAuth v2 install flow (GET /slack/install, GET /slack/oauth_redirect),
// an installation store keyed by Enterprise Grid organisation and
// workspace with the tokens sealed at rest (AES-256-GCM under
// FITBOT_TOKEN_KEY), each workspace's bot token on demand, refreshed
// before it expires when the app rotates tokens, and the installation
// forgotten when Slack says the app was uninstalled or its tokens revoked.
//
// It keeps what slack-go leaves to the application (slack-go/slack#526):
// slack-go makes the oauth.v2.access calls; this package decides where
// tokens live and who may refresh them. Replicas share the store, so a
// refresh runs under a lease (store leases) and swaps the tokens only if
// the refresh token it spent is still the stored one: Slack's refresh
// tokens are single-use, and two replicas refreshing at once would
// otherwise leave one with a dead token.
package slackoauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/store"
)

// Store is where installations live; *store.DB is one.
type Store interface {
	SaveInstallation(ctx context.Context, in store.Installation) error
	FindInstallation(ctx context.Context, enterpriseID, teamID string) (store.Installation, error)
	Installations(ctx context.Context) ([]store.Installation, error)
	RotateInstallationTokens(ctx context.Context, enterpriseID, teamID string, oldRefresh, bot, refresh []byte, expires time.Time) (bool, error)
	MarkReinstall(ctx context.Context, enterpriseID, teamID string, spentRefresh []byte) (bool, error)
	// SeeEvent records id for ttl and reports whether it is new: a used
	// OAuth state is remembered there until it expires (usedState).
	SeeEvent(ctx context.Context, id string, ttl time.Duration) (bool, error)
	DeleteInstallation(ctx context.Context, enterpriseID, teamID string) (bool, error)
	AcquireLease(ctx context.Context, name, holder string, ttl time.Duration) (store.Lease, bool, error)
	ReleaseLease(ctx context.Context, name, holder string) error
}

// DefaultScopes are the bot scopes fitbot asks for: the slash command,
// mentions, direct messages, posting answers and digests, and uploading
// the memory picture (slack-manifest.yaml lists the same).
var DefaultScopes = []string{"commands", "app_mentions:read", "chat:write", "im:history", "channels:history", "groups:history", "files:write"}

// Timing of token refresh.
const (
	// RefreshBefore is how long before a rotating token expires it is
	// refreshed (Slack's tokens last 12 hours).
	RefreshBefore = 30 * time.Minute
	// refreshLeaseTTL bounds one refresh: the oauth.v2.access call and the
	// write. A replica that died holding it frees it after this.
	refreshLeaseTTL = 30 * time.Second
	// refreshCallTimeout bounds the oauth.v2.access call of a refresh, well
	// inside the lease: the call has ended, one way or the other, long
	// before another replica may take the lease and spend the same
	// single-use refresh token.
	refreshCallTimeout = 10 * time.Second
	// refreshPatience is how long a caller whose current token is still
	// good waits for a refresh under way before using the current token.
	refreshPatience = time.Second
	// refreshPoll is how often a replica that lost the lease reads the
	// store for the winner's tokens.
	refreshPoll = 100 * time.Millisecond
)

// Config configures an App. ClientID, ClientSecret, Key and Store are
// required.
type Config struct {
	ClientID     string // SLACK_CLIENT_ID
	ClientSecret string // SLACK_CLIENT_SECRET
	Key          []byte // FITBOT_TOKEN_KEY, decoded (ParseKey)
	// RedirectURL is this app's /slack/oauth_redirect as Slack's app
	// settings list it; "" leaves it to the app settings' only one.
	RedirectURL  string
	Scopes       []string // nil: DefaultScopes
	APIURL       string   // SLACK_API_URL: oauth.v2.access lives here; "" is https://slack.com/api/
	AuthorizeURL string   // "" is https://slack.com/oauth/v2/authorize
	HTTP         *http.Client
	Store        Store
	Holder       string // this replica's name in refresh leases
	Now          func() time.Time
	Logger       *slog.Logger
	// Installed, when set, is called after a workspace is installed.
	Installed func(ctx context.Context, in store.Installation)
}

// App is the install flow and the token source of a distributed app.
type App struct {
	cfg      Config
	seal     *sealer
	stateKey []byte
	flights  flights // the refreshes under way in this process
	// callTimeout bounds a refresh's oauth.v2.access call
	// (refreshCallTimeout; tests shorten it).
	callTimeout time.Duration
}

// New returns an App, or an error naming what is missing.
func New(cfg Config) (*App, error) {
	switch {
	case cfg.ClientID == "" || cfg.ClientSecret == "":
		return nil, errors.New("slack oauth: SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are required")
	case len(cfg.Key) != KeySize:
		return nil, fmt.Errorf("slack oauth: FITBOT_TOKEN_KEY must be %d bytes", KeySize)
	case cfg.Store == nil:
		return nil, errors.New("slack oauth: a store is required")
	}
	s, err := newSealer(cfg.Key)
	if err != nil {
		return nil, err
	}
	if cfg.Scopes == nil {
		cfg.Scopes = DefaultScopes
	}
	if cfg.APIURL == "" {
		cfg.APIURL = slack.APIURL
	}
	if !strings.HasSuffix(cfg.APIURL, "/") {
		cfg.APIURL += "/"
	}
	if cfg.AuthorizeURL == "" {
		cfg.AuthorizeURL = "https://slack.com/oauth/v2/authorize"
	}
	if cfg.HTTP == nil {
		cfg.HTTP = samehost.Client(&http.Client{Timeout: 30 * time.Second})
	}
	if cfg.Holder == "" {
		cfg.Holder = "fitbot"
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &App{cfg: cfg, seal: s, stateKey: stateKey(cfg.Key), flights: flights{m: map[string]*flight{}},
		callTimeout: refreshCallTimeout}, nil
}

// stateCookie carries the state from /slack/install to the redirect.
const stateCookie = "fitbot_slack_oauth_state"

// Register adds GET /slack/install and GET /slack/oauth_redirect to mux.
func (a *App) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /slack/install", a.install)
	mux.HandleFunc("GET /slack/oauth_redirect", a.redirect)
}

// install sends the browser to Slack's consent page with a fresh signed
// state, also set as a short-lived cookie.
func (a *App) install(w http.ResponseWriter, r *http.Request) {
	state := newState(a.stateKey, a.cfg.Now(), StateTTL)
	q := url.Values{"client_id": {a.cfg.ClientID}, "scope": {strings.Join(a.cfg.Scopes, ",")}, "state": {state}}
	if a.cfg.RedirectURL != "" {
		q.Set("redirect_uri", a.cfg.RedirectURL)
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Value: state, Path: "/slack/", MaxAge: int(StateTTL / time.Second),
		HttpOnly: true, Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https", SameSite: http.SameSiteLaxMode})
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, a.cfg.AuthorizeURL+"?"+q.Encode(), http.StatusFound)
}

// redirect checks the state, exchanges the code at oauth.v2.access and
// stores the installation.
func (a *App) redirect(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	q := r.URL.Query()
	if e := q.Get("error"); e != "" {
		// The person cancelled on Slack's page (error=access_denied).
		page(w, http.StatusOK, "fitbot was not installed", "Slack said: "+e+". Start again from /slack/install when you are ready.")
		return
	}
	state := q.Get("state")
	err := checkState(a.stateKey, state, a.cfg.Now())
	if err == nil {
		if c, cerr := r.Cookie(stateCookie); cerr != nil || c.Value != state {
			err = errStateCookie
		}
	}
	if err == nil {
		err = a.useState(r.Context(), state)
	}
	if err != nil {
		a.cfg.Logger.Warn("slack oauth: install refused", "why", err)
		page(w, http.StatusBadRequest, "fitbot was not installed", err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie, Path: "/slack/", MaxAge: -1})
	code := q.Get("code")
	if code == "" {
		page(w, http.StatusBadRequest, "fitbot was not installed", "Slack sent no code; start again from /slack/install.")
		return
	}
	resp, err := slack.GetOAuthV2ResponseContext(r.Context(), a.cfg.HTTP, a.cfg.ClientID, a.cfg.ClientSecret, code, a.cfg.RedirectURL,
		slack.OAuthOptionAPIURL(a.cfg.APIURL))
	if err != nil {
		a.cfg.Logger.Error("slack oauth: oauth.v2.access failed", "err", err)
		page(w, http.StatusBadGateway, "fitbot was not installed", "Slack refused the install code ("+err.Error()+"); start again from /slack/install.")
		return
	}
	in, err := a.installation(resp)
	if err == nil {
		err = a.cfg.Store.SaveInstallation(r.Context(), in)
	}
	if err != nil {
		a.cfg.Logger.Error("slack oauth: install not stored", "err", err)
		page(w, http.StatusInternalServerError, "fitbot was not installed", "fitbot could not keep the installation; try again in a minute.")
		return
	}
	name := resp.Team.Name
	if in.EnterpriseInstall {
		name = resp.Enterprise.Name + " (every workspace of the organisation)"
	}
	a.cfg.Logger.Info("slack oauth: installed", "installation", in.Key(), "app_id", in.AppID, "bot_user", in.BotUserID,
		"rotating", in.RefreshToken != nil)
	if a.cfg.Installed != nil {
		a.cfg.Installed(r.Context(), in)
	}
	page(w, http.StatusOK, "fitbot is installed", "fitbot now answers in "+name+". Try /fit 13B lora 4090, or mention @fitbot.")
}

// installation turns an oauth.v2.access answer into a row, tokens sealed.
func (a *App) installation(resp *slack.OAuthV2Response) (store.Installation, error) {
	in := store.Installation{EnterpriseID: resp.Enterprise.ID, TeamID: resp.Team.ID, EnterpriseInstall: resp.IsEnterpriseInstall,
		AppID: resp.AppID, BotUserID: resp.BotUserID, Scope: resp.Scope}
	if in.EnterpriseInstall {
		in.TeamID = "" // an org-wide install answers every workspace of the organisation
	}
	switch {
	case resp.AccessToken == "" || resp.TokenType != "bot":
		return in, fmt.Errorf("oauth.v2.access for %s gave no bot token (token_type %q)", in.Key(), resp.TokenType)
	case in.EnterpriseID == "" && in.TeamID == "":
		return in, errors.New("oauth.v2.access named neither a workspace nor an organisation")
	}
	in.BotToken = a.seal.seal(resp.AccessToken, in.Key())
	if resp.RefreshToken != "" {
		in.RefreshToken = a.seal.seal(resp.RefreshToken, in.Key())
		in.Expires = a.cfg.Now().Add(time.Duration(resp.ExpiresIn) * time.Second).UTC()
	}
	return in, nil
}

// Workspace is what a Slack call for one workspace needs.
type Workspace struct {
	EnterpriseID, TeamID string
	Token                string // the bot token, in clear: never log it
	BotUserID            string
	DigestChannel        string
	// ReinstallBy, when set, is when Token stops working for good: Slack
	// refused the refresh token, and fitbot must be installed again.
	ReinstallBy time.Time
}

// Token returns the bot token of the workspace teamID of enterpriseID
// (its own install, else its organisation's org-wide one), refreshed
// first when it expires within RefreshBefore (rotate.go). An unknown
// workspace wraps store.ErrNotFound; a workspace whose refresh token
// Slack refused and whose bot token has expired wraps ErrReinstall.
func (a *App) Token(ctx context.Context, enterpriseID, teamID string) (Workspace, error) {
	in, err := a.cfg.Store.FindInstallation(ctx, enterpriseID, teamID)
	if err != nil {
		return Workspace{}, err
	}
	if in, err = a.fresh(ctx, in); err != nil {
		return Workspace{}, err
	}
	tok, err := a.seal.open(in.BotToken, in.Key())
	if err != nil {
		return Workspace{}, fmt.Errorf("slack installation %s: %w", in.Key(), err)
	}
	ws := Workspace{EnterpriseID: in.EnterpriseID, TeamID: teamID, Token: tok, BotUserID: in.BotUserID, DigestChannel: in.DigestChannel}
	if !in.Reinstall.IsZero() {
		ws.ReinstallBy = in.Expires
	}
	return ws, nil
}

// Forget deletes an installation with its tokens (the app was
// uninstalled, or its bot token revoked) and reports whether there was
// one: the organisation's org-wide install when the event says it was
// for one (its authorization's is_enterprise_install), as Bolt does,
// else the workspace teamID's own.
func (a *App) Forget(ctx context.Context, enterpriseID, teamID string, enterpriseInstall bool) (bool, error) {
	if enterpriseInstall {
		teamID = ""
	}
	gone, err := a.cfg.Store.DeleteInstallation(ctx, enterpriseID, teamID)
	if err != nil {
		return false, err
	}
	if gone {
		a.cfg.Logger.Info("slack oauth: installation deleted with its tokens", "installation", store.InstallationKey(enterpriseID, teamID))
	}
	return gone, nil
}

// Workspaces returns every installed workspace with its token (refreshed
// when due); a workspace whose token cannot be had is logged and left
// out. The digest posts to each one's channel with it.
func (a *App) Workspaces(ctx context.Context) ([]Workspace, error) {
	all, err := a.cfg.Store.Installations(ctx)
	if err != nil {
		return nil, err
	}
	var out []Workspace
	for _, in := range all {
		ws, err := a.Token(ctx, in.EnterpriseID, in.TeamID)
		if err != nil {
			a.cfg.Logger.Error("slack oauth: no token for an installed workspace", "installation", in.Key(), "err", err)
			continue
		}
		out = append(out, ws)
	}
	return out, nil
}

// page writes a small HTML page for the person installing.
func page(w http.ResponseWriter, status int, title, body string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>%s</title><h1>%s</h1><p>%s</p>\n",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(body))
}
