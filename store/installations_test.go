package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestInstallations: a workspace's own install, an org-wide install that
// answers the organisation's other workspaces, a re-install keeping the
// digest channel, rotation that only the holder of the current refresh
// token wins, and deletion.
func TestInstallations(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	plain := Installation{TeamID: "T1", AppID: "A1", BotUserID: "UB1", Scope: "commands,chat:write", BotToken: []byte("sealed-1")}
	grid := Installation{EnterpriseID: "E1", EnterpriseInstall: true, AppID: "A1", BotUserID: "UB2", Scope: "commands",
		BotToken: []byte("sealed-2"), RefreshToken: []byte("refresh-2"), Expires: testNow.Add(12 * time.Hour)}
	own := Installation{EnterpriseID: "E1", TeamID: "T3", AppID: "A1", BotUserID: "UB3", Scope: "commands", BotToken: []byte("sealed-3")}
	for _, in := range []Installation{plain, grid, own} {
		if err := db.SaveInstallation(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ enterprise, team, wantBot string }{
		{"", "T1", "UB1"},
		{"E1", "T2", "UB2"}, // no install of its own: the org-wide one
		{"E1", "T3", "UB3"}, // its own install wins
	} {
		got, err := db.FindInstallation(ctx, tc.enterprise, tc.team)
		if err != nil || got.BotUserID != tc.wantBot {
			t.Errorf("FindInstallation(%q, %q) = %s, %v; want bot %s", tc.enterprise, tc.team, got.BotUserID, err, tc.wantBot)
		}
	}
	if _, err := db.FindInstallation(ctx, "", "T9"); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindInstallation of a stranger = %v, want ErrNotFound", err)
	}
	if _, err := db.FindInstallation(ctx, "E9", "T2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("FindInstallation in another organisation = %v, want ErrNotFound", err)
	}

	if err := db.SetDigestChannel(ctx, "", "T1", "C0DIGEST"); err != nil {
		t.Fatal(err)
	}
	plain.BotToken = []byte("sealed-1b")
	if err := db.SaveInstallation(ctx, plain); err != nil {
		t.Fatal(err)
	}
	got, err := db.FindInstallation(ctx, "", "T1")
	if err != nil || got.DigestChannel != "C0DIGEST" || string(got.BotToken) != "sealed-1b" {
		t.Errorf("after a re-install: %+v, %v; want the new token and the old digest channel", got, err)
	}

	exp := testNow.Add(24 * time.Hour)
	won, err := db.RotateInstallationTokens(ctx, "E1", "", []byte("refresh-2"), []byte("sealed-2b"), []byte("refresh-2b"), exp)
	if err != nil || !won {
		t.Fatalf("first rotation = %v, %v; want won", won, err)
	}
	won, err = db.RotateInstallationTokens(ctx, "E1", "", []byte("refresh-2"), []byte("sealed-2c"), []byte("refresh-2c"), exp)
	if err != nil || won {
		t.Errorf("rotation with a spent refresh token = %v, %v; want lost", won, err)
	}
	got, _ = db.FindInstallation(ctx, "E1", "T2")
	if string(got.BotToken) != "sealed-2b" || string(got.RefreshToken) != "refresh-2b" || !got.Expires.Equal(exp) {
		t.Errorf("after rotation: %+v", got)
	}

	if gone, err := db.DeleteInstallation(ctx, "E1", "T3"); err != nil || !gone {
		t.Fatalf("DeleteInstallation = %v, %v", gone, err)
	}
	if got, err := db.FindInstallation(ctx, "E1", "T3"); err != nil || got.BotUserID != "UB2" {
		t.Errorf("after the workspace's own install went: %s, %v; want the org-wide one", got.BotUserID, err)
	}
	if gone, _ := db.DeleteInstallation(ctx, "E1", "T3"); gone {
		t.Error("a second delete found a row")
	}
	all, err := db.Installations(ctx)
	if err != nil || len(all) != 2 {
		t.Errorf("Installations = %d, %v; want 2", len(all), err)
	}
	if err := db.SaveInstallation(ctx, Installation{BotUserID: "U", BotToken: []byte("x")}); err == nil {
		t.Error("an installation without enterprise or team was saved")
	}
}
