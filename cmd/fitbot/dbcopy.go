package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/store"
)

const dbUsage = `Usage: fitbot db copy --to postgres://USER:PASSWORD@HOST:5432/DB

Copies the SQLite database (FITBOT_DB, else ./fitbot.db) into an empty
PostgreSQL database: plans, prices and their runs, digests, the Hugging
Face Hub cache, threads, the team's machines and recent Slack event ids.
The PostgreSQL schema is created first; the copy is one transaction, and
every table's rows are counted on both sides afterwards. Stop fitbot serve
first (or copy a backup) so that nothing written during the copy is left
behind; then point FITBOT_DB at the URL.

Example: FITBOT_DB=fitbot.db fitbot db copy --to postgres://fitbot@db:5432/fitbot
`

// db is `fitbot db copy --to URL`.
func (a *app) db(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprint(a.stdout, dbUsage)
		if len(args) == 0 {
			return usageError("db needs a command: copy", "fitbot db copy --to postgres://fitbot@db:5432/fitbot")
		}
		return nil
	}
	const try = "fitbot db copy --to postgres://fitbot@db:5432/fitbot"
	if args[0] != "copy" {
		return usageError(fmt.Sprintf("unknown db command %q", args[0]), try)
	}
	var to string
	switch rest := args[1:]; {
	case len(rest) == 2 && (rest[0] == "--to" || rest[0] == "-to"):
		to = rest[1]
	case len(rest) == 1 && (strings.HasPrefix(rest[0], "--to=") || strings.HasPrefix(rest[0], "-to=")):
		_, to, _ = strings.Cut(rest[0], "=")
	default:
		return usageError("db copy needs --to and a PostgreSQL URL", try)
	}
	if !store.IsPostgresURL(to) {
		return usageError(fmt.Sprintf("--to %q is not a PostgreSQL URL (postgres://...)", store.RedactURL(to)), try)
	}
	if store.IsPostgresURL(a.dbPath()) {
		return usageError("FITBOT_DB is already a PostgreSQL database; db copy copies a SQLite file", "FITBOT_DB=fitbot.db "+try)
	}
	if !a.dbExists() {
		return failure(fmt.Sprintf("no database at %s to copy", a.dbPath()), "FITBOT_DB=path/to/fitbot.db "+try)
	}
	src, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(src)
	if err := servedNow(ctx, src); err != nil {
		return err
	}
	dst, err := store.Open(ctx, to)
	if err != nil {
		return failure(err.Error(), "check the URL, that the server is reachable and that the user may create tables")
	}
	defer a.closeStore(dst)
	counts, err := src.CopyTo(ctx, dst)
	if errors.Is(err, store.ErrNotEmpty) {
		return failure(err.Error(), "create a new database (createdb fitbot2) and copy into it")
	}
	if err != nil {
		return failure(err.Error(), "")
	}
	fmt.Fprintf(a.stdout, "copied %s to %s\n", src.Path(), dst.Path())
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tSQLITE\tPOSTGRESQL\t")
	for _, c := range counts {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", c.Table, c.Source, c.Target)
	}
	if err := tw.Flush(); err != nil {
		return failure(err.Error(), "")
	}
	fmt.Fprintln(a.stdout, "every count matches: each table holds in PostgreSQL the rows the SQLite file held when the copy began (one read transaction); nothing written since is in it")
	return nil
}

// servedNow refuses to copy a database a running fitbot serve writes to:
// the scheduler lease is held while serve runs (a serve that died frees
// it within 30 s), and what serve writes during the copy would be left
// behind, while the counts still matched.
func servedNow(ctx context.Context, src *store.DB) error {
	l, err := src.ReadLease(ctx, schedulerLease)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return failure(err.Error(), "")
	case !time.Now().Before(l.Expires):
		return nil
	}
	return failure(fmt.Sprintf("fitbot serve (%s) is running on %s: it holds the scheduler lease until %s UTC, and what it writes during the copy would be left behind",
		l.Holder, src.Path(), l.Expires.UTC().Format(time.TimeOnly)), "stop fitbot serve first, or copy a backup (fitbot backup, then FITBOT_DB=the backup)")
}
