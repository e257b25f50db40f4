package answer

import (
	"context"
	"errors"
	"testing"

	"github.com/fitbot/fitbot/store"
)

// savingBook is a RunBook that counts what it is asked to keep.
type savingBook struct{ saved int }

func (b *savingBook) Plan(context.Context, store.Scope, int64) (store.Plan, error) {
	return store.Plan{}, store.ErrNotFound
}

func (b *savingBook) SaveMeasuredRun(context.Context, store.Scope, *store.PlanRun) error {
	b.saved++
	return nil
}

func (b *savingBook) MeasuredRuns(context.Context, store.Scope, int) ([]store.RunOfPlan, error) {
	return nil, nil
}

// TestRecordRunWords holds that words which do not read as a run are a
// RunWordsError saying why, and that words which do reach the plan.
func TestRecordRunWords(t *testing.T) {
	ctx := context.Background()
	book := &savingBook{}
	s := &Service{Runs: book}
	_, err := s.RecordRunWords(ctx, store.AllPlans(), 1, store.ViaSlack, "U1", "peak 33 lots")
	var bad RunWordsError
	if !errors.As(err, &bad) || bad.Error() != "33 has no unit: say GiB, tok/s or h" {
		t.Errorf("unreadable words: got %v, want a RunWordsError saying 33 has no unit", err)
	}
	_, err = s.RecordRunWords(ctx, store.AllPlans(), 9, store.ViaSlack, "U1", "peak 33 GiB")
	var none NoSuchPlanError
	if !errors.As(err, &none) || none.ID != 9 {
		t.Errorf("readable words, no plan: got %v, want NoSuchPlanError{9}", err)
	}
	if book.saved != 0 {
		t.Errorf("saved %d runs, want none", book.saved)
	}
	if _, err := (&Service{}).RecordRunWords(ctx, store.AllPlans(), 1, "", "", "peak 33 GiB"); !errors.Is(err, ErrNoRunBook) {
		t.Errorf("no run book: got %v, want ErrNoRunBook", err)
	}
}
