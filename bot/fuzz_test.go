package bot

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCommand feeds any text to `/fit` over the real parser and
// estimator. Properties: no panic reaches the caller (an apology would
// show in the text), every reply is ephemeral with a fallback text, and
// every reply keeps within Slack's limits.
func FuzzCommand(f *testing.F) {
	for _, seed := range []string{"", "help", "plans mistral 7b", "plan 0", "plan 99999999999999999999", "prices", "prices a1000",
		"gpus", "models", "13B lora 4090", "llama-3.1-70b qlora 2xa100 seq 4k", "plns x", "\x00\xff", strings.Repeat("70b ", 500),
		"<!channel> & <@U123>", "mixtral 8x7b inference int4 2x4090 ctx 128k batch 64"} {
		f.Add(seed)
	}
	h, _ := newRealHandler(f)
	f.Fuzz(func(t *testing.T, text string) {
		msg := h.Command(context.Background(), slash(text))
		if msg.ResponseType != "ephemeral" {
			t.Errorf("response_type %q for %q", msg.ResponseType, text)
		}
		if strings.HasPrefix(msg.Text, "Sorry, something went wrong") {
			t.Errorf("%q: internal failure", text)
		}
		if !utf8.ValidString(msg.Text) {
			t.Errorf("%q: fallback text is not UTF-8", text)
		}
		checkLimits(t, msg)
		if _, err := msg.encode(); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	})
}

// FuzzVerifySignature checks that no header and body pair passes unless
// its signature was computed with the secret over that exact body and
// timestamp, and that the check never panics.
func FuzzVerifySignature(f *testing.F) {
	f.Add("v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503", "1531420618", []byte("token=x&text="))
	f.Add("", "", []byte{})
	f.Add("v0=zz", "-1", []byte("\x00"))
	now := testNow
	f.Fuzz(func(t *testing.T, sig, ts string, body []byte) {
		h := http.Header{}
		h.Set(headerSignature, sig)
		h.Set(headerTimestamp, ts)
		err := VerifySignature(testSecret, h, body, now)
		if err == nil && sig != ComputeSignature(testSecret, ts, body) {
			t.Errorf("accepted signature %q for ts %q, body %q", sig, ts, body)
		}
		// A fresh, correct signature over the same body always passes.
		fresh := strconv.FormatInt(now.Unix(), 10)
		h.Set(headerTimestamp, fresh)
		h.Set(headerSignature, ComputeSignature(testSecret, fresh, body))
		if err := VerifySignature(testSecret, h, body, now); err != nil {
			t.Errorf("refused a correct signature over %q: %v", body, err)
		}
	})
}
