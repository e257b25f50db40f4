package main

import (
	"bytes"
	"fmt"
	"io"
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

// BenchmarkRedactorCleanRecord is a line like the one serve logs per
// question, holding no secret, through the redacting JSON logger:
//
//	go test ./cmd/fitbot -run '^$' -bench RedactorCleanRecord -benchmem -benchtime 20000x -count 3
func BenchmarkRedactorCleanRecord(b *testing.B) {
	log := newLogger(io.Discard, slog.LevelInfo, "json", []string{fakeBotToken, fakeOpenAI, "signing-secret-0123456789"})
	b.ReportAllocs()
	for b.Loop() {
		log.Info("bot: answered", "outcome", "answered", "team", "T1DC2JH3J", "user", "U2CERLKJA",
			"question", "llama-3.1-8b qlora rtx-4090", "ms", 1.25, "plan", int64(123456))
	}
}
