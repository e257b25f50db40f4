package fakeclock

import (
	"sync"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	c := New(start)
	now := c.Now // the method value, as components take it
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() { c.Advance(time.Second); _ = now() })
	}
	wg.Wait()
	if got := now(); !got.Equal(start.Add(10 * time.Second)) {
		t.Errorf("Now = %v, want ten seconds after %v", got, start)
	}
}
