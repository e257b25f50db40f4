package bot

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// slackExample is Slack's published signing example
// (docs.slack.dev/authentication/verifying-requests-from-slack).
var slackExample = struct {
	secret, timestamp, body, signature string
}{
	secret:    "8f742231b10e8888abcd99yyyzzz85a5",
	timestamp: "1531420618",
	body:      "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
	signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
}

func TestComputeSignatureSlackExample(t *testing.T) {
	got := ComputeSignature(slackExample.secret, slackExample.timestamp, []byte(slackExample.body))
	if got != slackExample.signature {
		t.Errorf("ComputeSignature = %s, want %s", got, slackExample.signature)
	}
}

func TestVerifySignatureSlackExampleAtItsTime(t *testing.T) {
	ts, _ := strconv.ParseInt(slackExample.timestamp, 10, 64)
	h := http.Header{}
	h.Set(headerTimestamp, slackExample.timestamp)
	h.Set(headerSignature, slackExample.signature)
	if err := VerifySignature(slackExample.secret, h, []byte(slackExample.body), time.Unix(ts+30, 0)); err != nil {
		t.Errorf("VerifySignature(example, 30 s later) = %v, want nil", err)
	}
	if err := VerifySignature(slackExample.secret, h, []byte(slackExample.body), time.Now()); !errors.Is(err, ErrStaleTimestamp) {
		t.Errorf("VerifySignature(example, today) = %v, want ErrStaleTimestamp", err)
	}
}

func TestVerifySignature(t *testing.T) {
	const secret = "test-signing-secret"
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	body := []byte("team_id=T1&user_id=U1&command=%2Ffit&text=13B+lora+4090")
	signed := func(at time.Time, b []byte) http.Header {
		ts := strconv.FormatInt(at.Unix(), 10)
		h := http.Header{}
		h.Set(headerTimestamp, ts)
		h.Set(headerSignature, ComputeSignature(secret, ts, b))
		return h
	}
	tests := []struct {
		name   string
		secret string
		header http.Header
		body   []byte
		want   error
	}{
		{"fresh", secret, signed(now, body), body, nil},
		{"replayed within the window (accepted: dedupe is by event id)", secret, signed(now.Add(-4*time.Minute), body), body, nil},
		{"edge of the window", secret, signed(now.Add(-SignatureWindow), body), body, nil},
		{"stale", secret, signed(now.Add(-SignatureWindow-time.Second), body), body, ErrStaleTimestamp},
		{"future", secret, signed(now.Add(SignatureWindow+time.Second), body), body, ErrStaleTimestamp},
		{"tampered body", secret, signed(now, body), append([]byte("x"), body[1:]...), ErrBadSignature},
		{"body with a byte appended", secret, signed(now, body), append(append([]byte{}, body...), '&'), ErrBadSignature},
		{"wrong secret", "other-secret", signed(now, body), body, ErrBadSignature},
		{"no secret configured", "", signed(now, body), body, ErrNoSigningSecret},
		{"missing signature", secret, func() http.Header { h := signed(now, body); h.Del(headerSignature); return h }(), body, ErrMissingSignature},
		{"missing timestamp", secret, func() http.Header { h := signed(now, body); h.Del(headerTimestamp); return h }(), body, ErrMissingSignature},
		{"no headers", secret, http.Header{}, body, ErrMissingSignature},
		{"wrong version prefix", secret, func() http.Header {
			h := signed(now, body)
			h.Set(headerSignature, "v1="+h.Get(headerSignature)[3:])
			return h
		}(), body, ErrBadSignature},
		{"truncated hex", secret, func() http.Header {
			h := signed(now, body)
			h.Set(headerSignature, h.Get(headerSignature)[:40])
			return h
		}(), body, ErrBadSignature},
		{"not hex", secret, func() http.Header { h := signed(now, body); h.Set(headerSignature, "v0=zz"); return h }(), body, ErrBadSignature},
		{"timestamp not a number", secret, func() http.Header { h := signed(now, body); h.Set(headerTimestamp, "yesterday"); return h }(), body, ErrBadTimestamp},
		{"timestamp overflowing", secret, func() http.Header {
			h := signed(now, body)
			h.Set(headerTimestamp, "9223372036854775807")
			return h
		}(), body, ErrStaleTimestamp},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := VerifySignature(tt.secret, tt.header, tt.body, now); !errors.Is(err, tt.want) {
				t.Errorf("VerifySignature = %v, want %v", err, tt.want)
			}
		})
	}
}
