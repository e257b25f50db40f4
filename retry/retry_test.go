package retry

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"
)

func TestAfter(t *testing.T) {
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name   string
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second, true},
		{"zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"spaces", map[string]string{"Retry-After": " 3 "}, 3 * time.Second, true},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{"milliseconds win", map[string]string{"Retry-After": "2", "Retry-After-Ms": "120"}, 120 * time.Millisecond, true},
		{"HTTP date", map[string]string{"Retry-After": now.Add(3 * time.Second).Format(http.TimeFormat)}, 3 * time.Second, true},
		{"date in the past", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{"absurd", map[string]string{"Retry-After": "1e300"}, maxAfter, true},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0, false},
		{"negative", map[string]string{"Retry-After": "-3"}, 0, false},
		{"absent", nil, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got, ok := After(h, now); got != tt.want || ok != tt.ok {
				t.Errorf("After(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestDo: the waits between tries, and when Do gives up.
func TestDo(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name      string
		policy    Policy
		deadline  time.Duration // 0: none
		answers   []time.Duration
		again     bool
		wantTries int
		wantWaits []time.Duration
		wantLong  bool
	}{
		{name: "backoff doubles", policy: Policy{Attempts: 4, Backoff: time.Second}, answers: []time.Duration{-1, -1, -1, -1}, again: true,
			wantTries: 4, wantWaits: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "server's wait wins", policy: Policy{Attempts: 3, Backoff: time.Second}, answers: []time.Duration{5 * time.Second, -1, -1}, again: true,
			wantTries: 3, wantWaits: []time.Duration{5 * time.Second, time.Second}},
		{name: "not worth another try", policy: Policy{Attempts: 4, Backoff: time.Second}, answers: []time.Duration{-1}, again: false,
			wantTries: 1},
		{name: "over the cap", policy: Policy{Attempts: 4, Backoff: time.Second, MaxWait: 30 * time.Second}, answers: []time.Duration{time.Minute}, again: true,
			wantTries: 1, wantLong: true},
		{name: "past the deadline", policy: Policy{Attempts: 4, Backoff: time.Second}, deadline: time.Minute, answers: []time.Duration{2 * time.Minute}, again: true,
			wantTries: 1, wantLong: true},
		{name: "one attempt", policy: Policy{}, answers: []time.Duration{-1}, again: true, wantTries: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			var waits []time.Duration
			tt.policy.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			tries := 0
			err := tt.policy.Do(ctx, func(attempt int) (bool, time.Duration, error) {
				tries++
				if attempt != tries {
					t.Errorf("attempt %d on try %d", attempt, tries)
				}
				return tt.again, tt.answers[attempt-1], boom
			})
			var long *WaitTooLongError
			if !errors.Is(err, boom) || errors.As(err, &long) != tt.wantLong {
				t.Errorf("err = %v (%T), want boom, too long %v", err, err, tt.wantLong)
			}
			if tries != tt.wantTries || !slices.Equal(waits, tt.wantWaits) {
				t.Errorf("%d tries with waits %v, want %d with %v", tries, waits, tt.wantTries, tt.wantWaits)
			}
		})
	}
}

func TestDoSucceedsAndStopsOnCancel(t *testing.T) {
	p := Policy{Attempts: 5, Backoff: time.Millisecond}
	n := 0
	if err := p.Do(context.Background(), func(int) (bool, time.Duration, error) {
		if n++; n < 3 {
			return true, 0, errors.New("not yet")
		}
		return false, 0, nil
	}); err != nil || n != 3 {
		t.Fatalf("Do = %v after %d tries, want success on the third", err, n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	boom := errors.New("boom")
	err := Policy{Attempts: 3, Backoff: time.Hour}.Do(ctx, func(int) (bool, time.Duration, error) { return true, -1, boom })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do on a cancelled context = %v, want context.Canceled", err)
	}
}
