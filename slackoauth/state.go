package slackoauth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"strings"
	"time"
)

// StateTTL is how long an install link's state stays good: the time a
// person has between opening /slack/install and approving on Slack.
const StateTTL = 10 * time.Minute

// The OAuth state is stateless and signed: base64url(expiry as 8 bytes
// big-endian Unix seconds, then 16 random bytes), a dot, and
// base64url(HMAC-SHA256 of the first part under a key derived from
// FITBOT_TOKEN_KEY). Any replica can check a state another replica
// issued; the same value is also set as a cookie on /slack/install and
// must come back with the redirect, so a state cannot be replayed from
// another browser (CSRF).

// Why a state is refused; the messages are shown to the person installing.
var (
	errStateMissing = errors.New("the install link's state is missing; start again from /slack/install")
	errStateBad     = errors.New("the install link's state is not one fitbot issued; start again from /slack/install")
	errStateExpired = errors.New("the install link expired (it lasts 10 minutes); start again from /slack/install")
	errStateCookie  = errors.New("the install was started in another browser (the state cookie does not match); start again from /slack/install in this one")
	errStateUsed    = errors.New("the install link was used already (each lasts one install); start again from /slack/install")
	errStateStore   = errors.New("fitbot could not check the install link; try again in a minute from /slack/install")
)

// useState records a checked state as used, in the store every replica
// shares, for as long as it could still pass checkState, and refuses one
// used before: a state and its cookie install one workspace, once. The
// record is keyed by a hash of the state, never the state itself.
func (a *App) useState(ctx context.Context, state string) error {
	sum := sha256.Sum256([]byte(state))
	first, err := a.cfg.Store.SeeEvent(ctx, "slack-oauth-state:"+base64.RawURLEncoding.EncodeToString(sum[:]), StateTTL+time.Minute)
	switch {
	case err != nil:
		a.cfg.Logger.Error("slack oauth: recording the used state failed", "err", err)
		return errStateStore
	case !first:
		return errStateUsed
	}
	return nil
}

// stateKey derives the signing key from the token key, so that one secret
// serves both and the state's MAC never doubles as a token key.
func stateKey(tokenKey []byte) []byte {
	m := hmac.New(sha256.New, tokenKey)
	m.Write([]byte("fitbot slack oauth state v1"))
	return m.Sum(nil)
}

// newState issues a state that expires ttl after now.
func newState(key []byte, now time.Time, ttl time.Duration) string {
	body := make([]byte, 8+16)
	binary.BigEndian.PutUint64(body, uint64(now.Add(ttl).Unix()))
	rand.Read(body[8:]) // crypto/rand.Read never fails (Go 1.24+)
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// checkState verifies a state's signature and expiry at now.
func checkState(key []byte, state string, now time.Time) error {
	if state == "" {
		return errStateMissing
	}
	b64body, b64mac, ok := strings.Cut(state, ".")
	if !ok {
		return errStateBad
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64body)
	mac, err2 := base64.RawURLEncoding.DecodeString(b64mac)
	if err1 != nil || err2 != nil || len(body) != 24 {
		return errStateBad
	}
	m := hmac.New(sha256.New, key)
	m.Write(body)
	if !hmac.Equal(mac, m.Sum(nil)) {
		return errStateBad
	}
	if expires := time.Unix(int64(binary.BigEndian.Uint64(body)), 0); !now.Before(expires) {
		return errStateExpired
	}
	return nil
}
