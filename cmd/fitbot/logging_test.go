package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// TestRedactor logs secrets every way a careless caller might: in the
// message, as strings, errors, groups, With attributes and structs.
func TestRedactor(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		var out bytes.Buffer
		log := newLogger(&out, slog.LevelDebug, format, []string{fakeBotToken, fakeOpenAI, "", "short"})
		log.Info("token " + fakeBotToken)
		log.Warn("call failed", "err", fmt.Errorf("post: Authorization: Bearer %s rejected", fakeBotToken),
			"key", fakeOpenAI, slog.Group("req", "header", "Bearer "+fakeOpenAI), "n", 3)
		log.With("token", fakeBotToken).WithGroup("g").Error("x", "cfg", struct{ Key string }{fakeOpenAI})
		log.Info("ordinary", "word", "short") // too short to redact: ordinary words stay
		s := out.String()
		for _, secret := range []string{fakeBotToken, fakeOpenAI} {
			if strings.Contains(s, secret) {
				t.Errorf("%s log carries a secret (%.8s…):\n%s", format, secret, s)
			}
		}
		if strings.Count(s, redacted) < 6 || !strings.Contains(s, "short") || !strings.Contains(s, "3") {
			t.Errorf("%s log redacted too little or too much:\n%s", format, s)
		}
	}
}

func TestLoggerFormat(t *testing.T) {
	var out bytes.Buffer
	newLogger(&out, slog.LevelInfo, "auto", nil).Info("hello", "k", "v")
	if !strings.HasPrefix(out.String(), "{") {
		t.Errorf("auto format into a buffer = %q, want JSON", out.String())
	}
	out.Reset()
	newLogger(&out, slog.LevelInfo, "text", nil).Debug("hidden")
	if out.Len() != 0 {
		t.Errorf("debug line at info level: %q", out.String())
	}
}
