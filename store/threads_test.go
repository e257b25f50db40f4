package store

import (
	"context"
	"testing"
	"time"
)

func TestAnswerThreads(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	if _, ok, err := db.ThreadQuestion(ctx, "T1", "C1", "1700000000.000100"); ok || err != nil {
		t.Fatalf("unknown thread: ok %v err %v, want neither", ok, err)
	}
	if err := db.RememberThread(ctx, "T1", "C1", "1700000000.000100", "13b lora rtx-4090"); err != nil {
		t.Fatal(err)
	}
	if err := db.RememberThread(ctx, "T1", "C1", "1700000000.000100", "13b qlora rtx-3090"); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.ThreadQuestion(ctx, "T1", "C1", "1700000000.000100")
	if err != nil || !ok || got != "13b qlora rtx-3090" {
		t.Errorf("ThreadQuestion = %q, %v, %v; want the latest answer's question", got, ok, err)
	}
	// Another team's channel with the same ids is another thread.
	if _, ok, _ := db.ThreadQuestion(ctx, "T2", "C1", "1700000000.000100"); ok {
		t.Error("a thread of team T1 answers for team T2")
	}
	if err := db.RememberThread(ctx, "T1", "", "1", "13b"); err == nil {
		t.Error("RememberThread without a channel: no error")
	}
	n, err := db.ForgetThreads(ctx, time.Now().Add(time.Hour))
	if err != nil || n != 1 {
		t.Errorf("ForgetThreads = %d, %v; want 1", n, err)
	}
	if _, ok, _ := db.ThreadQuestion(ctx, "T1", "C1", "1700000000.000100"); ok {
		t.Error("a forgotten thread is still known")
	}
}
