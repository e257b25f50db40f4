package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/store"
)

const digestUsage = `Usage: fitbot digest [--json] [--dry-run] [--at TIME] [--workspace TEAM]

"digest" builds the weekly price-change digest and posts it to the
FITBOT_DIGEST_CHANNEL with SLACK_BOT_TOKEN, once per channel and week: a
week already posted (by this command or by fitbot serve) is not posted
again. The week is the one ending at --at (RFC 3339); without --at, the one
ending at the latest time the digest was due (FITBOT_DIGEST_CRON, default
"CRON_TZ=UTC 0 9 * * MON"), the week fitbot serve posts.

  --dry-run  print the digest as text (or JSON) and post nothing
  --json     print the digest as JSON: week_start, week_end, moves,
             new_offers, removed_offers, cheapest, plans, stale_sources
  --at TIME  the end of the week, e.g. 2026-11-30T09:00:00Z
  --workspace TEAM
             the Slack workspace of the channel (T0123ABCD): the digest
             names the plans that channel reads. Without it a post asks
             Slack (auth.test) and a dry run names every plan.

SLACK_API_URL points the post at another Slack API root. The database is
FITBOT_DB, else ./fitbot.db.
`

// digestPostTimeout bounds the whole post, retries included.
const digestPostTimeout = 3 * time.Minute

// newDigestPoster builds the digest poster for channel on db, posting
// through web, due on cronSpec (FITBOT_DIGEST_CRON; "" for the default).
// fitbot serve's schedule calls its PostWeekly.
func newDigestPoster(db *store.DB, web bot.ThreadPoster, up bot.FileUploader, channel string, plans store.Scope, cronSpec string, models bot.ModelResolver, logger *slog.Logger) (*bot.DigestPoster, error) {
	sched, err := parseCronSpec(cmp.Or(cronSpec, scheduleDigestDefault))
	if err != nil {
		return nil, fmt.Errorf("FITBOT_DIGEST_CRON: %w", err)
	}
	return bot.NewDigestPoster(bot.DigestPosterConfig{Store: db, Slack: web, Channel: channel, Plans: plans, Schedule: sched, Models: models, Logger: logger,
		Upload: up, History: db})
}

// digest is `fitbot digest`.
func (a *app) digest(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("digest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	dryRun := fs.Bool("dry-run", false, "")
	atFlag := fs.String("at", "", "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(a.stdout, digestUsage)
			return nil
		}
		return usageError(err.Error(), "fitbot digest --dry-run --at 2026-11-30T09:00:00Z")
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("digest takes no words, got %q", strings.Join(fs.Args(), " ")), "fitbot digest --dry-run (fitbot digest -h for the flags)")
	}
	var at time.Time
	if *atFlag != "" {
		t, err := time.Parse(time.RFC3339, *atFlag)
		if err != nil {
			return usageError(fmt.Sprintf("--at %q is not an RFC 3339 time", *atFlag), "--at 2026-11-30T09:00:00Z")
		}
		at = t
	}
	if *workspace != "" && !teamID.MatchString(*workspace) {
		return usageError(fmt.Sprintf("--workspace %q is not a Slack team id", *workspace), "--workspace T0123ABCD")
	}

	// The same checks as serve's, on the settings the digest uses.
	errs := a.env.check("FITBOT_DB", "FITBOT_DIGEST_CRON", "SLACK_API_URL")
	if !*dryRun {
		errs = append(errs, a.env.check("FITBOT_DIGEST_CHANNEL", "SLACK_BOT_TOKEN")...)
		errs = append(errs, a.env.require("posting the digest needs it", "FITBOT_DIGEST_CHANNEL", "SLACK_BOT_TOKEN")...)
	}
	if len(errs) > 0 {
		return failure(settingsProblem(errs),
			"FITBOT_DIGEST_CHANNEL=C0123ABCD SLACK_BOT_TOKEN=xoxb-... fitbot digest, or fitbot digest --dry-run to print it")
	}
	channel, token := a.env.get("FITBOT_DIGEST_CHANNEL"), a.env.get("SLACK_BOT_TOKEN")
	if !a.dbExists() {
		return failure(fmt.Sprintf("no prices to compare: there is no database at %s", a.dbPath()),
			"fitbot prices refresh (twice, a week apart, for a first digest), or FITBOT_DB=path/to/fitbot.db")
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	defer a.closeStore(db)

	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	hc := samehost.Client(&http.Client{Timeout: 30 * time.Second})
	client := bot.NewSlackClient(token, "", a.env.get("SLACK_API_URL"), hc)
	web, err := bot.NewWebAPI(bot.WebAPIConfig{API: client, Logger: logger})
	if err != nil {
		return failure(err.Error(), "")
	}
	models, err := a.hubResolver(db) // plans for Hub models are re-read through the cache
	if err != nil {
		return failure(err.Error(), "HF_ENDPOINT=https://huggingface.co")
	}
	plans := store.AllPlans() // a dry run, printed to the database's owner
	switch {
	case *workspace != "":
		plans = store.Viewer(*workspace, channel, "")
	case !*dryRun:
		actx, cancel := context.WithTimeout(ctx, authTestTimeout)
		auth, err := client.AuthTestContext(actx)
		cancel()
		if err != nil {
			return failure("SLACK_BOT_TOKEN: Slack's auth.test failed: "+err.Error(), "fitbot digest --workspace T0123ABCD, or check the token")
		}
		plans = store.Viewer(auth.TeamID, channel, "")
	}
	poster, err := newDigestPoster(db, web, bot.NewUploader(client, nil), cmp.Or(channel, "dry-run"), plans, a.env.get("FITBOT_DIGEST_CRON"), models, logger)
	if err != nil {
		return failure(err.Error(), `FITBOT_DIGEST_CRON="CRON_TZ=UTC 0 9 * * MON"`)
	}
	end := at
	if end.IsZero() {
		now := time.Now()
		end = now
		if _, due, ok := poster.Week(now); ok {
			end = due
		}
	}

	if *dryRun {
		d, err := poster.Build(ctx, end)
		if err != nil {
			return failure(err.Error(), "")
		}
		return a.printDigest(d, *asJSON)
	}
	pctx, cancel := context.WithTimeout(ctx, digestPostTimeout)
	defer cancel()
	res, err := poster.DeliverWeek(pctx, end)
	if err != nil {
		return failure(err.Error(), "check FITBOT_DIGEST_CHANNEL and that fitbot is in the channel; a failed post is tried again by the next run")
	}
	week := fmt.Sprintf("the week of %s – %s", res.Record.WeekStart.Format("Jan 2 15:04"), res.Record.WeekEnd.Format("Jan 2 15:04 MST"))
	status := a.stdout
	if *asJSON {
		status = a.stderr
	}
	d := res.Digest
	if !res.Posted && !res.Record.Posted() {
		return failure(fmt.Sprintf("no prices were observed in %s; nothing posted", week),
			"fitbot prices refresh, or fitbot digest --dry-run --at TIME for a week with prices")
	}
	if res.Posted {
		fmt.Fprintf(status, "Posted the digest for %s to %s (message %s).\n", week, channel, res.Record.TS)
	} else {
		fmt.Fprintf(status, "The digest for %s was already posted to %s at %s (message %s); nothing posted.\n",
			week, channel, res.Record.PostedAt.Format("Jan 2 15:04 MST"), res.Record.TS)
		if !*asJSON {
			return nil
		}
		built, err := poster.Build(ctx, end)
		if err != nil {
			return failure(err.Error(), "")
		}
		d = &built
	}
	if *asJSON {
		return a.writeJSON(d)
	}
	return nil
}

// printDigest prints a digest as text or JSON.
func (a *app) printDigest(d digest.Digest, asJSON bool) error {
	if asJSON {
		return a.writeJSON(d)
	}
	fmt.Fprint(a.stdout, bot.DigestText(d))
	return nil
}
