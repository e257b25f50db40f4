package bot

import (
	"context"
	"strings"
	"testing"
)

// TestRefusalNamesNothingOfAPrivatePlan: someone asks in a public channel
// for a plan kept from another person's DM. The refusal reads as for a
// plan that does not exist, and neither it nor its Try line names
// anything of that plan: not its model, not its question.
func TestRefusalNamesNothingOfAPrivatePlan(t *testing.T) {
	h, _ := newRealHandler(t)
	ctx := context.Background()
	kept := h.Command(ctx, from("TA0000001", "D0ASKER", "directmessage", "UASKER", "mistral-7b qlora 4090 seq 3072"))
	if got := messageJSON(t, kept); !strings.Contains(got, "as plan 1") {
		t.Fatalf("the DM question was not kept as plan 1:\n%s", got)
	}
	got := messageJSON(t, h.Command(ctx, from("TA0000001", "C0PUBLIC", "general", "UOTHER", "plan 1")))
	if !strings.Contains(got, "There is no plan #1.") || !strings.Contains(got, "Try:") {
		t.Fatalf("refusal:\n%s", got)
	}
	for _, secret := range []string{"mistral", "Mistral", "qlora", "3072"} {
		if strings.Contains(got, secret) {
			t.Errorf("the refusal names %q of the private plan:\n%s", secret, got)
		}
	}
}
