package bot

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers Slack signs every request with.
const (
	headerSignature = "X-Slack-Signature"
	headerTimestamp = "X-Slack-Request-Timestamp"
)

// SignatureWindow is how far a request's timestamp may lie from the local
// clock, in either direction, before the request is refused as a replay.
const SignatureWindow = 5 * time.Minute

// The reasons a request's signature is refused. They are logged, never
// shown to the caller, and never carry the secret or the signature.
var (
	ErrMissingSignature = errors.New("signature or timestamp header missing")
	ErrBadTimestamp     = errors.New("timestamp is not a unix time")
	ErrStaleTimestamp   = errors.New("timestamp outside the 5-minute window")
	ErrBadSignature     = errors.New("signature does not match the body")
	ErrNoSigningSecret  = errors.New("no signing secret configured")
)

// ComputeSignature returns Slack's v0 signature of a request: "v0=" and
// the lower-case hex HMAC-SHA256, keyed with the signing secret, of
// "v0:" + timestamp + ":" + the raw body.
func ComputeSignature(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + timestamp + ":"))
	mac.Write(body)
	return "v0=" + hex.EncodeToString(mac.Sum(nil))
}

// VerifySignature checks a request's v0 signature against its raw body
// and refuses a timestamp more than SignatureWindow away from now, past or
// future. The comparison is constant-time.
//
// A valid request replayed within the window passes again: that is
// Slack's semantics (retries carry the same signature), and deduplication
// belongs to whoever has a stable id (events by event_id).
func VerifySignature(secret string, header http.Header, body []byte, now time.Time) error {
	if secret == "" {
		return ErrNoSigningSecret
	}
	sig, ts := header.Get(headerSignature), header.Get(headerTimestamp)
	if sig == "" || ts == "" {
		return ErrMissingSignature
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrBadTimestamp
	}
	if d := now.Sub(time.Unix(unix, 0)); d > SignatureWindow || d < -SignatureWindow {
		return ErrStaleTimestamp
	}
	hexSig, ok := strings.CutPrefix(sig, "v0=")
	if !ok {
		return ErrBadSignature
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return ErrBadSignature
	}
	want, _ := hex.DecodeString(strings.TrimPrefix(ComputeSignature(secret, ts, body), "v0="))
	if !hmac.Equal(got, want) {
		return ErrBadSignature
	}
	return nil
}
