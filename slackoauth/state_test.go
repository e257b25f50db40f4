package slackoauth

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/store"
)

// TestStateInstallsOnce: an install link's state and its cookie, replayed
// within their 10 minutes with another code, do not install a second
// workspace.
func TestStateInstallsOnce(t *testing.T) {
	f := newFixture(t, 1)
	state, cookie := f.startInstall(t)
	if rec := f.finish("code-plain", state, cookie); rec.Code != 200 {
		t.Fatalf("first use: %d %s", rec.Code, rec.Body)
	}
	rec := f.finish("code-grid", state, cookie)
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "used already") {
		t.Errorf("second use: %d %s", rec.Code, rec.Body)
	}
	if _, err := f.db.FindInstallation(context.Background(), "E12345678", ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the replayed state installed the organisation: %v", err)
	}
}
