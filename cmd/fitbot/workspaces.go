package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/store"
)

const workspacesUsage = `Usage: fitbot workspaces
       fitbot workspaces digest WORKSPACE CHANNEL

Lists the Slack workspaces fitbot was installed into through OAuth
(/slack/install; serve with SLACK_CLIENT_ID), or sets where one
workspace's weekly digest goes ("" for none). WORKSPACE is its team id
(T...), E.../T... inside an Enterprise Grid organisation, or E... for an
organisation's org-wide install. Tokens are never shown.

Example: fitbot workspaces digest T9TK3CUKW C0GPUPRICES
`

// workspaceArg reads WORKSPACE: T..., E.../T... or E... .
var workspaceArg = regexp.MustCompile(`^(?:(E[A-Z0-9]{2,})(?:/(T[A-Z0-9]{2,}))?|(T[A-Z0-9]{2,}))$`)

// workspaces is `fitbot workspaces`.
func (a *app) workspaces(ctx context.Context, args []string) error {
	const try = "fitbot workspaces digest T9TK3CUKW C0GPUPRICES"
	switch {
	case len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		fmt.Fprint(a.stdout, workspacesUsage)
		return nil
	case len(args) == 0:
	case args[0] != "digest":
		return usageError(fmt.Sprintf("unknown workspaces command %q", args[0]), try)
	case len(args) != 3:
		return usageError("workspaces digest needs a WORKSPACE and a CHANNEL (\"\" for none)", try)
	}
	if len(args) == 3 {
		m := workspaceArg.FindStringSubmatch(args[1])
		if m == nil {
			return usageError(fmt.Sprintf("%q is not a workspace (T..., E.../T... or E...)", args[1]), try)
		}
		if args[2] != "" && !channelID.MatchString(args[2]) {
			return usageError(fmt.Sprintf("%q is not a channel id (C...)", args[2]), try)
		}
		enterprise, team := m[1], m[2]+m[3]
		db, err := a.openStore(ctx)
		if err != nil {
			return err
		}
		defer a.closeStore(db)
		if err := db.SetDigestChannel(ctx, enterprise, team, args[2]); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return failure(err.Error(), "fitbot workspaces (lists the installed ones)")
			}
			return failure(err.Error(), "")
		}
		fmt.Fprintf(a.stdout, "%s: weekly digest to %s\n", store.InstallationKey(enterprise, team), cmp.Or(args[2], "nowhere"))
		return nil
	}
	if !a.dbExists() {
		fmt.Fprintf(a.stdout, "No workspaces: there is no database at %s.\n", a.dbPath())
		return nil
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(db)
	all, err := db.Installations(ctx)
	if err != nil {
		return failure(err.Error(), "")
	}
	if len(all) == 0 {
		fmt.Fprintln(a.stdout, "No workspaces installed through OAuth yet: open /slack/install on fitbot serve (SLACK_CLIENT_ID).")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE\tBOT USER\tTOKEN\tDIGEST\tINSTALLED (UTC)")
	for _, in := range all {
		token := "does not expire"
		switch {
		case !in.Reinstall.IsZero():
			token = "REINSTALL: Slack refused its refresh token " + in.Reinstall.Format("2006-01-02 15:04") + "; open /slack/install"
		case !in.Expires.IsZero():
			token = "rotates, expires " + in.Expires.Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", in.Key(), in.BotUserID, token, cmp.Or(in.DigestChannel, "-"), in.Installed.Format(time.DateTime))
	}
	return tw.Flush()
}
