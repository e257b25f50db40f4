package slackoauth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/store"
)

// Token rotation. Slack's refresh tokens are single-use, so a workspace's
// token is refreshed by one call at a time, everywhere:
//
//   - in a process, the first caller that finds the token due starts one
//     refresh (a flight) and every other caller for that workspace joins
//     it; a caller whose current token is still good waits at most
//     refreshPatience and then uses the current token;
//   - across replicas, the flight runs under the lease slack-refresh:<key>
//     whose holder names the replica and the flight, so a second flight
//     of the same replica can never renew the first one's lease and
//     spend the same refresh token;
//   - the oauth.v2.access call is bounded by refreshCallTimeout, well
//     inside the lease, and the swap is conditional on the spent refresh
//     token (store.RotateInstallationTokens).
//
// A refresh that Slack refuses as spent (its answer was lost, or another
// replica's swap landed first) is followed by a read of the store: new
// tokens there are used; the same dead refresh token marks the workspace
// for reinstalling (store.MarkReinstall), which /readyz and `fitbot
// workspaces` report and askers are told.

// ErrReinstall means Slack refused the workspace's refresh token and its
// bot token has expired: only installing fitbot again helps.
var ErrReinstall = errors.New("fitbot needs to be reinstalled here: Slack refused its refresh token (open /slack/install)")

// ReinstallNote is what an asker is told when fitbot must be installed
// again in their workspace.
const ReinstallNote = "fitbot needs to be reinstalled here: Slack no longer renews its token. Someone who can install apps, please open fitbot's /slack/install page."

// flight is one refresh under way in this process.
type flight struct {
	done chan struct{}
	in   store.Installation // after the refresh; set before done closes
	err  error
}

// flights are the refreshes under way, by installation key.
type flights struct {
	mu  sync.Mutex
	m   map[string]*flight
	seq atomic.Uint64 // numbers flights in lease holders
}

// join returns the flight under way for key, or starts run as one.
func (fs *flights) join(key string, run func(seq uint64) (store.Installation, error)) *flight {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.m[key]; ok {
		return f
	}
	f := &flight{done: make(chan struct{})}
	fs.m[key] = f
	seq := fs.seq.Add(1)
	go func() {
		f.in, f.err = run(seq)
		fs.mu.Lock()
		delete(fs.m, key)
		fs.mu.Unlock()
		close(f.done)
	}()
	return f
}

// due reports whether in's token should be refreshed at now.
func due(in store.Installation, now time.Time) bool {
	return in.RefreshToken != nil && !now.Add(RefreshBefore).Before(in.Expires)
}

// fresh returns in with a token fit to use: in itself when it is not
// due, else after this workspace's refresh (joined or started). A caller
// whose current token is still good never gets an error from a refresh:
// it uses the current token.
func (a *App) fresh(ctx context.Context, in store.Installation) (store.Installation, error) {
	now := a.cfg.Now()
	if !due(in, now) {
		return in, nil
	}
	valid := now.Before(in.Expires)
	if !in.Reinstall.IsZero() {
		if valid {
			return in, nil
		}
		return in, fmt.Errorf("slack installation %s: %w", in.Key(), ErrReinstall)
	}
	f := a.flights.join(in.Key(), func(seq uint64) (store.Installation, error) { return a.refresh(in, seq) })
	var patience <-chan time.Time
	if valid {
		t := time.NewTimer(refreshPatience)
		defer t.Stop()
		patience = t.C
	}
	select {
	case <-f.done:
	case <-patience:
		return in, nil
	case <-ctx.Done():
		if valid {
			return in, nil
		}
		return in, ctx.Err()
	}
	switch {
	case f.err != nil && valid:
		a.cfg.Logger.Warn("slack oauth: token refresh failed; using the current token, good until it expires", "installation", in.Key(),
			"expires", in.Expires, "err", f.err)
		return in, nil
	case f.err != nil:
		return in, f.err
	case !f.in.Reinstall.IsZero() && !a.cfg.Now().Before(f.in.Expires):
		return f.in, fmt.Errorf("slack installation %s: %w", in.Key(), ErrReinstall)
	}
	return f.in, nil
}

// refresh swaps in's expiring tokens for new ones under the lease
// slack-refresh:<key>, held as this replica's flight seq; a replica that
// does not get the lease waits for the holder's tokens (takeLease). It runs apart
// from any request, so a caller giving up never abandons a refresh whose
// answer is on its way.
func (a *App) refresh(in store.Installation, seq uint64) (store.Installation, error) {
	ctx, cancel := context.WithTimeout(context.Background(), refreshLeaseTTL)
	defer cancel()
	lease, holder := "slack-refresh:"+in.Key(), fmt.Sprintf("%s/refresh-%d", a.cfg.Holder, seq)
	if won, err := a.takeLease(ctx, in, lease, holder); err != nil || !won {
		return a.cfg.Store.FindInstallation(context.WithoutCancel(ctx), in.EnterpriseID, in.TeamID)
	}
	defer func() {
		if err := a.cfg.Store.ReleaseLease(context.WithoutCancel(ctx), lease, holder); err != nil {
			a.cfg.Logger.Warn("slack oauth: refresh lease not released; it runs out by itself", "installation", in.Key(), "err", err)
		}
	}()
	// Another replica may have refreshed between the read and the lease.
	cur, err := a.cfg.Store.FindInstallation(ctx, in.EnterpriseID, in.TeamID)
	if err != nil {
		return in, err
	}
	if !due(cur, a.cfg.Now()) || !cur.Reinstall.IsZero() {
		return cur, nil
	}
	old, err := a.seal.open(cur.RefreshToken, cur.Key())
	if err != nil {
		return cur, fmt.Errorf("slack installation %s: %w", cur.Key(), err)
	}
	cctx, ccancel := context.WithTimeout(ctx, a.callTimeout)
	resp, err := slack.RefreshOAuthV2TokenContext(cctx, a.cfg.HTTP, a.cfg.ClientID, a.cfg.ClientSecret, old, slack.OAuthOptionAPIURL(a.cfg.APIURL))
	ccancel()
	if spent(err) {
		return a.refused(ctx, cur)
	}
	if err != nil {
		return cur, fmt.Errorf("refresh the token of %s at oauth.v2.access: %w", cur.Key(), err)
	}
	if resp.AccessToken == "" || resp.RefreshToken == "" {
		return cur, fmt.Errorf("refresh the token of %s: oauth.v2.access gave no new token pair", cur.Key())
	}
	bot, refresh := a.seal.seal(resp.AccessToken, cur.Key()), a.seal.seal(resp.RefreshToken, cur.Key())
	expires := a.cfg.Now().Add(time.Duration(resp.ExpiresIn) * time.Second).UTC()
	swapped, err := a.cfg.Store.RotateInstallationTokens(ctx, cur.EnterpriseID, cur.TeamID, cur.RefreshToken, bot, refresh, expires)
	if err != nil {
		return cur, err
	}
	if !swapped {
		return a.cfg.Store.FindInstallation(ctx, cur.EnterpriseID, cur.TeamID)
	}
	a.cfg.Logger.Info("slack oauth: token refreshed", "installation", cur.Key(), "expires", expires)
	cur.BotToken, cur.RefreshToken, cur.Expires = bot, refresh, expires
	return cur, nil
}

// spent reports whether oauth.v2.access refused a refresh token as no
// longer good: Slack's invalid_refresh_token, or the OAuth invalid_grant.
func spent(err error) bool {
	var se slack.SlackErrorResponse
	return errors.As(err, &se) && (se.Err == "invalid_refresh_token" || se.Err == "invalid_grant")
}

// refused handles Slack refusing cur's refresh token. The store is read
// again: a replica that refreshed meanwhile left new tokens, which are
// used. Otherwise the refresh token is dead (a refresh whose answer never
// arrived spent it, or it was revoked) and the workspace is marked for
// reinstalling.
func (a *App) refused(ctx context.Context, cur store.Installation) (store.Installation, error) {
	now, err := a.cfg.Store.FindInstallation(ctx, cur.EnterpriseID, cur.TeamID)
	if err != nil {
		return cur, err
	}
	if string(now.RefreshToken) != string(cur.RefreshToken) {
		a.cfg.Logger.Info("slack oauth: Slack refused a spent refresh token; the store has newer tokens", "installation", cur.Key())
		return now, nil
	}
	marked, err := a.cfg.Store.MarkReinstall(ctx, cur.EnterpriseID, cur.TeamID, cur.RefreshToken)
	if err != nil {
		return cur, err
	}
	if marked {
		a.cfg.Logger.Error("slack oauth: Slack refused the stored refresh token; fitbot must be installed again in this workspace",
			"installation", cur.Key(), "token_expires", cur.Expires, "install", "/slack/install")
	}
	return a.cfg.Store.FindInstallation(ctx, cur.EnterpriseID, cur.TeamID)
}

// takeLease takes the refresh lease for holder, or waits for it: while
// another replica holds it, the store is read every refreshPoll, and
// takeLease reports false once that replica's tokens are there (or it
// marked the workspace). It gives up when ctx ends.
func (a *App) takeLease(ctx context.Context, in store.Installation, lease, holder string) (bool, error) {
	t := time.NewTicker(refreshPoll)
	defer t.Stop()
	for {
		_, won, err := a.cfg.Store.AcquireLease(ctx, lease, holder, refreshLeaseTTL)
		if err != nil || won {
			if err != nil {
				err = fmt.Errorf("refresh the token of %s: %w", in.Key(), err)
			}
			return won, err
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-t.C:
		}
		cur, err := a.cfg.Store.FindInstallation(ctx, in.EnterpriseID, in.TeamID)
		if err != nil {
			return false, err
		}
		if string(cur.RefreshToken) != string(in.RefreshToken) || !cur.Reinstall.IsZero() {
			return false, nil
		}
	}
}

// TokenHealth is what Check found of the stored installations.
type TokenHealth struct {
	Installations int // stored installations
	Unopened      int // whose bot token does not open with FITBOT_TOKEN_KEY
	Reinstall     int // marked for reinstalling (Slack refused the refresh token)
}

// Check opens every stored bot token with the configured key, without
// calling Slack, and counts what cannot be used: a key that opens none
// of them is not the key that sealed them.
func (a *App) Check(ctx context.Context) (TokenHealth, error) {
	all, err := a.cfg.Store.Installations(ctx)
	if err != nil {
		return TokenHealth{}, err
	}
	h := TokenHealth{Installations: len(all)}
	for _, in := range all {
		if _, err := a.seal.open(in.BotToken, in.Key()); err != nil {
			h.Unopened++
		}
		if !in.Reinstall.IsZero() {
			h.Reinstall++
		}
	}
	return h, nil
}

// WrongKey reports whether the key opens none of the stored tokens.
func (h TokenHealth) WrongKey() bool { return h.Installations > 0 && h.Unopened == h.Installations }
