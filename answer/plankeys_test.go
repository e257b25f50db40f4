package answer

import (
	"errors"
	"testing"

	"github.com/fitbot/fitbot/sizing"
)

// TestPlanKey holds that a catalog model's key needs no cache, that words
// no catalog model reads from take the cached repo's key, and that
// without one they are the reading's input error.
func TestPlanKey(t *testing.T) {
	never := func(string) (string, bool) {
		t.Error("the cache was asked for a catalog model")
		return "", false
	}
	catalog, err := PlanKey("mistral 7b", never)
	if err != nil || catalog == "" {
		t.Fatalf("PlanKey(mistral 7b) = %q, %v; want a key", catalog, err)
	}
	cached := func(words string) (string, bool) { return "Acme/Zebrafish-9B", words == "zebrafish" }
	hubKey, err := PlanKey("zebrafish", cached)
	if err != nil || hubKey != "hub:acme/zebrafish-9b" {
		t.Errorf("PlanKey(zebrafish, cached) = %q, %v; want the repo's own key", hubKey, err)
	}
	var in *sizing.InputError
	if _, err := PlanKey("zebrafish", nil); !errors.As(err, &in) {
		t.Errorf("PlanKey(zebrafish, nil) error = %v, want a *sizing.InputError", err)
	}
}
