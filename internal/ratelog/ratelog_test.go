package ratelog

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestOncePerInterval: 30,000 failures in 12 s (the fault report's disk
// full) write one line per 10 s interval with the count left out, and
// the recovery one more.
func TestOncePerInterval(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	l := &Limiter{Now: func() time.Time { return now }}
	for i := range 30_000 {
		now = now.Add(400 * time.Microsecond) // 12 s in all
		l.Error(log, "save", "saving the plan failed", "err", errors.New("database or disk is full"), "i", i)
	}
	l.OK(log, "save", "plans are saved again")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 2 failures (0 s, 10 s) and the recovery:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[1], "repeated=24999") || !strings.Contains(lines[1], "failing=25001") {
		t.Errorf("second line does not count the failures left out: %s", lines[1])
	}
	if !strings.Contains(lines[2], "level=INFO") || !strings.Contains(lines[2], "failed=30000") {
		t.Errorf("recovery line: %s", lines[2])
	}
	buf.Reset()
	l.OK(log, "save", "plans are saved again")
	l.Error(log, "other", "x")
	if strings.Count(buf.String(), "\n") != 1 || strings.Contains(buf.String(), "repeated") {
		t.Errorf("a new run starts afresh: %q", buf.String())
	}
}
