package main

import (
	"context"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/store"
)

func TestWorkspaces(t *testing.T) {
	path := useDB(t)
	code, out, _ := runCmd(t, "workspaces")
	if code != exitOK || !strings.Contains(out, "No workspaces") {
		t.Errorf("no database: exit %d, %q", code, out)
	}
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SaveInstallation(context.Background(), store.Installation{EnterpriseID: "E12345678", EnterpriseInstall: true,
		AppID: "A1", BotUserID: "U0ORGBOT1", BotToken: []byte("sealed")}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if code, out, errOut := runCmd(t, "workspaces", "digest", "E12345678", "C0GPUPRICES"); code != exitOK || !strings.Contains(out, "E12345678/*: weekly digest to C0GPUPRICES") {
		t.Errorf("digest: exit %d, %q %q", code, out, errOut)
	}
	code, out, _ = runCmd(t, "workspaces")
	if code != exitOK || !strings.Contains(out, "E12345678/*") || !strings.Contains(out, "C0GPUPRICES") || strings.Contains(out, "sealed") {
		t.Errorf("list: exit %d, %q", code, out)
	}
	for _, tc := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"workspaces", "digest", "acme", "C0X"}, exitUsage, "is not a workspace"},
		{[]string{"workspaces", "digest", "T9TK3CUKW", "#prices"}, exitUsage, "is not a channel id"},
		{[]string{"workspaces", "digest", "T9TK3CUKW"}, exitUsage, "needs a WORKSPACE and a CHANNEL"},
		{[]string{"workspaces", "digest", "T0NOTHERE", "C0X1"}, exitFailure, "not found"},
		{[]string{"workspaces", "remove"}, exitUsage, "unknown workspaces command"},
	} {
		code, _, errOut := runCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.say) || !strings.Contains(errOut, "Try: ") {
			t.Errorf("%v: exit %d, %q; want %d saying %q", tc.args, code, errOut, tc.code, tc.say)
		}
	}
}
