package bot

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// TestAskAnswersAreKept: every inverse answer is kept as a plan of its
// kind with its canonical question and a summary line, the reply names
// the plan, `/fit plans` lists it (by model, or by kind when it names
// none), `/fit plan N` re-asks it, and the re-asked answer's buttons
// re-ask the plan again. Against the real parser, estimator and store.
func TestAskAnswersAreKept(t *testing.T) {
	h, db := newRealHandler(t)
	ctx := context.Background()
	tests := []struct {
		text      string
		kind      plan.Kind
		canonical string
		list      string // `/fit plans` words that find it
		answer    string // in the kept summary line
	}{
		{"what 2x4090 lora", plan.KindLargest, "what lora 2xrtx-4090", "largest", "2× RTX 4090"},
		{"llama-3.1-8b inference l4 max context", plan.KindContext, "llama-3.1-8b inference l4 max context", "llama 3.1 8b", "longest context"},
		{"which gpu 13b lora on 1B tokens", plan.KindWhichGPU, "which gpu 13b lora 1b tokens", "13B", "cards fit; cheapest"},
		{"13B lora 4090 buy-vs-rent 3 jobs/week 5h", plan.KindBuyRent, "13b lora rtx-4090 buy-vs-rent 3 jobs/week 5h", "13B", "a month to own"},
	}
	for i, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			id := int64(i + 1)
			msg := h.Command(ctx, slash(tt.text))
			want := "Kept in the team's plans as plan " + itoa(id) + ": `/fit plan " + itoa(id) + "` asks it again"
			if got := messageJSON(t, msg); !strings.Contains(got, want) {
				t.Fatalf("/fit %s does not name its plan (%q):\n%s", tt.text, want, got)
			}
			saved, err := db.Plan(ctx, store.AllPlans(), id)
			if err != nil {
				t.Fatal(err)
			}
			if saved.Kind != tt.kind || saved.Question != tt.text || !strings.Contains(saved.Answer, tt.answer) {
				t.Errorf("kept plan = kind %q, question %q, answer %q; want %q, %q, an answer with %q", saved.Kind, saved.Question, saved.Answer, tt.kind, tt.text, tt.answer)
			}
			if tt.canonical != "" && saved.Canonical != tt.canonical {
				t.Errorf("kept canonical = %q; want %q", saved.Canonical, tt.canonical)
			}

			if got := messageJSON(t, h.Command(ctx, slash("plans "+tt.list))); !strings.Contains(got, "*#"+itoa(id)+"*") || !strings.Contains(got, string(tt.kind)+" question") {
				t.Errorf("/fit plans %s does not list plan %d as a %s question:\n%s", tt.list, id, tt.kind, got)
			}

			again := h.Command(ctx, slash("plan "+itoa(id)))
			got := messageJSON(t, again)
			if !strings.Contains(got, "*Plan #"+itoa(id)+"* from 2026") || !strings.Contains(got, "asked again today. Answer unchanged.") {
				t.Errorf("/fit plan %d does not re-ask the plan:\n%s", id, got)
			}
			if !strings.Contains(again.Text, "Plan #"+itoa(id)+" today: ") || strings.Contains(got, "Kept in the team's plans") {
				t.Errorf("/fit plan %d: text %q (a re-ask keeps no new plan)", id, again.Text)
			}
			// Its buttons re-ask the plan, not a new question.
			ref := planRef(id)
			for _, action := range []string{ActionDetails, ActionReprice} {
				if !hasButton(again, action, ref) {
					t.Fatalf("/fit plan %d has no %s button carrying %q:\n%s", id, action, ref, got)
				}
				msgs := h.press(ctx, slashScope, action, ref, "U1")
				if len(msgs) != 1 || !strings.Contains(messageJSON(t, msgs[0]), "asked again today") {
					t.Errorf("pressing %s on plan %d: %+v", action, id, msgs)
				}
			}
		})
	}
	if got := messageJSON(t, h.Command(ctx, slash("plans buy-rent"))); !strings.Contains(got, "No *buy-rent* plans yet that name no model") {
		t.Errorf("/fit plans buy-rent with none kept:\n%s", got)
	}
	// The buttons of a fresh inverse answer re-ask its canonical question
	// and keep no second plan.
	msg := h.Command(ctx, slash("what 2x4090 lora"))
	if !hasButton(msg, ActionReprice, "q:what lora 2xrtx-4090") {
		t.Fatalf("a fresh largest answer's Re-price does not re-ask it:\n%s", messageJSON(t, msg))
	}
	msgs := h.press(ctx, slashScope, ActionReprice, "q:what lora 2xrtx-4090", "U1")
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "Largest models that fit") || strings.Contains(messageJSON(t, msgs[0]), "Kept in the team's plans") {
		t.Errorf("Re-price on a largest answer: %+v", msgs)
	}
	if ps, err := db.PlansForModel(ctx, store.AllPlans(), "ask:largest", 0); err != nil || len(ps) != 2 {
		t.Errorf("largest plans after one more question and a button = %d, %v; want 2", len(ps), err)
	}
}

// hasButton reports whether msg has a button with this action and value.
func hasButton(msg Message, action, value string) bool {
	for _, b := range msg.Blocks {
		a, ok := b.(*slack.ActionBlock)
		if !ok {
			continue
		}
		for _, el := range a.Elements.ElementSet {
			if btn, ok := el.(*slack.ButtonBlockElement); ok && btn.ActionID == action && btn.Value == value {
				return true
			}
		}
	}
	return false
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
