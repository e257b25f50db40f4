package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/bot"
	"github.com/fitbot/fitbot/hub"
	"github.com/fitbot/fitbot/internal/netcap"
	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/slackoauth"
	"github.com/fitbot/fitbot/store"
)

// Compile-time checks that the real pieces fit the interfaces bot declares.
var (
	_ bot.Parser         = reading.Parse
	_ bot.Answerer       = (*answer.Live)(nil)
	_ bot.Asker          = (*answer.Live)(nil)
	_ answer.PriceSource = (*store.DB)(nil)
	_ bot.PlanStore      = (*store.DB)(nil)
	_ bot.PriceBook      = (*store.DB)(nil)
	_ bot.EventStore     = (*store.DB)(nil)
	_ bot.ModelResolver  = (*hub.Resolver)(nil)
	_ hub.Cache          = (*store.DB)(nil)
	_ bot.ThreadPoster   = (*bot.WebAPI)(nil)
	_ bot.EventHandler   = (*bot.Events)(nil)
	_ bot.PriceHistory   = (*store.DB)(nil)
	_ bot.FileUploader   = (*bot.Uploader)(nil)
	_ bot.UploadAPI      = (*slack.Client)(nil)
)

// Timeouts of the serve process.
const (
	slackAPITimeout   = 30 * time.Second // one Web API call
	authTestTimeout   = 15 * time.Second // the start-up token check
	priceReloadEvery  = time.Minute      // how often the prices answers use are reloaded from the store
	readHeaderTimeout = 5 * time.Second  // a connection that sends nothing is dropped after it
	httpReadTimeout   = 30 * time.Second // a whole request: Slack's bodies are small
	httpWriteTimeout  = 30 * time.Second
	httpIdleTimeout   = 30 * time.Second // between requests on a kept-alive connection
	// healthConns caps the health listener's connections: probes and a
	// scraper need a few, and the cap keeps it answering beside a
	// flooded Slack listener.
	healthConns = 64
)

// serve is `fitbot serve`: configuration, then the service until ctx is
// done (SIGTERM, SIGINT), then a clean stop.
func (a *app) serve(ctx context.Context, args []string) int {
	cfg, err := loadServeConfig(a.env, args, a.stdout)
	if errors.Is(err, errHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(a.stderr, "fitbot: serve cannot start; the configuration has problems:")
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintf(a.stderr, "  - %s\n", line)
		}
		fmt.Fprintln(a.stderr, "Try: fitbot serve --help")
		return exitUsage
	}
	if !isTerminal(a.stderr) {
		// A line per question: gathered into few writes under load
		// (lineWriter). Everything serve prints goes through it, so the
		// order holds, and it is all written before serve returns.
		lw := newLineWriter(a.stderr)
		defer lw.Close()
		stderr := a.stderr
		a.stderr = lw
		defer func() { a.stderr = stderr }()
	}
	log := newLogger(a.stderr, cfg.LogLevel, cfg.LogFormat, a.env.secrets())
	setMemoryLimit(os.Getenv, log)
	s, err := a.startService(ctx, cfg, log)
	if err != nil {
		return a.exit(err)
	}
	return s.run(ctx)
}

// service is a running `fitbot serve`: what it started, in the order it
// stops them.
type service struct {
	cfg      Config
	log      *slog.Logger
	db       *store.DB
	handler  *bot.Handler
	hub      *hub.Resolver   // its background refreshes write to db
	uploader *bot.Uploader   // pictures and launch configs into threads
	team     string          // the bot token's workspace (auth.test); "" with OAuth
	oauth    *slackoauth.App // installed in many workspaces; nil with one bot token
	servers  []*http.Server
	socket   *bot.Socket
	stopSch  func(context.Context) error

	stopReload context.CancelFunc // the price reload
	background sync.WaitGroup     // the price reload

	fatal      chan error // a listener or the socket failing for good
	socketStop context.CancelFunc
	socketDone chan struct{}
	listenWG   sync.WaitGroup
}

// startService opens the store, checks the bot token, wires the handler,
// binds the listeners, connects Socket Mode and starts the schedules. On
// failure it undoes what it started and returns the problem (a cliError:
// serve prints it and exits with its code).
func (a *app) startService(ctx context.Context, cfg Config, log *slog.Logger) (*service, error) {
	db, err := store.Open(ctx, cfg.DB)
	if errors.Is(err, store.ErrNoCgo) {
		return nil, failure(err.Error(), serveDBHint(err))
	}
	if err != nil {
		return nil, failure("FITBOT_DB: "+err.Error(), serveDBHint(err))
	}
	s := &service{cfg: cfg, log: log, db: db, fatal: make(chan error, 4)}
	ok := false
	defer func() {
		if !ok {
			s.stop(context.Background())
		}
	}()

	metrics := bot.NewMetrics()
	db.ObservePlanBatches(metrics.PlanBatch)
	hc := samehost.Client(&http.Client{Timeout: slackAPITimeout}) // the Slack token stays on Slack's host
	api := bot.NewSlackClient(cfg.BotToken.reveal(), cfg.AppToken.reveal(), cfg.SlackAPIURL, hc)
	// One workspace's bot token, or (OAuth) each workspace's own: slackAPI
	// is the Web API every answer, picture and digest goes through.
	var slackAPI interface {
		bot.MessagePoster
		bot.UploadAPI
	} = api
	auth := &slack.AuthTestResponse{}
	if cfg.OAuth() {
		if s.oauth, err = newOAuth(cfg, db, hc, log); err != nil {
			return nil, failure(err.Error(), "")
		}
		slackAPI = s.oauth.Client(cfg.SlackAPIURL, hc)
		log.Info("slack: installed through OAuth (/slack/install); each workspace is answered with its own token")
		s.checkTokens(ctx)
	} else {
		actx, cancel := context.WithTimeout(ctx, authTestTimeout)
		auth, err = api.AuthTestContext(actx)
		cancel()
		if err != nil {
			return nil, failure("SLACK_BOT_TOKEN: Slack's auth.test failed: "+err.Error(),
				"check the bot token (OAuth & Permissions > Bot User OAuth Token) and that Slack is reachable (SLACK_API_URL)")
		}
		log.Info("slack: bot authenticated", "team", auth.Team, "team_id", auth.TeamID, "bot_user", auth.UserID, "bot_id", auth.BotID)
	}
	s.team = auth.TeamID
	s.uploader = bot.NewUploader(slackAPI, metrics)

	model, err := modelReader(cfg.llm(), samehost.Client(nil), log)
	if err != nil {
		return nil, failure(err.Error(), "")
	}
	if model != nil {
		log.Info("llm: the language model reads questions beside the grammar", "llm", cfg.llm())
	}
	s.hub = &hub.Resolver{
		Client:     &hub.Client{BaseURL: cfg.HFEndpoint, Token: cfg.HFToken.reveal(), HTTP: samehost.StripClient(nil), Timeout: hubHTTPTimeout},
		Cache:      db,
		Background: true,
		Logger:     log,
	}
	live := answer.NewLive(db, log)
	live.Load(ctx)
	reloadCtx, stopReload := context.WithCancel(ctx)
	s.stopReload = stopReload
	s.background.Go(func() { live.Run(reloadCtx, priceReloadEvery) })
	refresh := func(ctx context.Context) ([]pricing.Report, error) {
		reports, err := refreshPrices(ctx, db, cfg.Fetchers, log)
		for _, r := range reports {
			metrics.RefreshRun(r.Run.Provider, string(r.Run.Status))
			metrics.UnknownGPUs(r.Run.Provider, r.UnknownGPUs())
			metrics.OffersHeld(r.Run.Provider, len(r.Held))
		}
		live.Load(ctx)
		return reports, err
	}
	s.handler, err = bot.New(bot.Config{
		Parse:       reading.Parse,
		Answer:      live,
		Ask:         live,
		Respond:     bot.NewResponseURLPoster(hc),
		Plans:       db,
		Runs:        db,
		Prices:      db,
		Hardware:    db,
		Cluster:     a.liveCluster(),
		ModelReader: bot.MeteredReader(model, metrics),
		Models:      s.hub,
		Upload:      s.uploader,
		History:     db,
		Policy: bot.Policy{AllowedTeams: cfg.AllowedTeams, AllowedChannels: cfg.AllowedChannels,
			Admins: cfg.Admins, PerUserPerMinute: cfg.RateLimit},
		Refresh: func(ctx context.Context) (string, error) {
			reports, err := refresh(ctx)
			return refreshSummary(reports), err
		},
		Weekly: weeklyDigest(db),
		Logger: log,
		// Every source a cached answer is made from adds a counter that
		// only grows: the prices (live.Version); the catalogs are
		// compiled in. Answers for Hugging Face Hub models are not cached
		// (bot's cacheable), so the Hub cache needs none until they are.
		AnswerVersion: live.Version,
	})
	if err != nil {
		return nil, failure(err.Error(), "")
	}
	web, err := bot.NewWebAPI(bot.WebAPIConfig{API: slackAPI, Metrics: metrics, Logger: log})
	if err != nil {
		return nil, failure(err.Error(), "")
	}
	ec := bot.EventsConfig{Handler: s.handler, Seen: db, Post: web, Threads: db,
		BotUserID: auth.UserID, BotID: auth.BotID, Metrics: metrics, Logger: log}
	if s.oauth != nil {
		ec.Uninstalled = func(ctx context.Context, enterpriseID, teamID string, enterpriseInstall bool) error {
			_, err := s.oauth.Forget(ctx, enterpriseID, teamID, enterpriseInstall)
			return err
		}
	}
	events, err := bot.NewEvents(ec)
	if err != nil {
		return nil, failure(err.Error(), "")
	}

	if cfg.Socket() {
		client := socketmode.New(api, socketmode.OptionLog(slog.NewLogLogger(log.Handler(), slog.LevelDebug)))
		s.socket, err = bot.NewSocket(bot.SocketConfig{Client: client, Handler: s.handler, Events: events,
			Metrics: metrics, Logger: log, DrainTimeout: cfg.ShutdownTimeout})
		if err != nil {
			return nil, failure(err.Error(), "")
		}
	}
	hl := &health{db: db, metrics: metrics, now: time.Now, log: log}
	if s.oauth != nil {
		hl.tokens = s.oauth.Check
	}
	if s.socket != nil {
		hl.socket = s.socket
	}
	if cfg.HTTPAddr != "" {
		endpoints, err := bot.NewHTTP(bot.HTTPConfig{SigningSecret: cfg.SigningSecret.reveal(), Handler: s.handler, Events: events, Logger: log, Metrics: metrics})
		if err != nil {
			return nil, failure(err.Error(), "")
		}
		mux := http.NewServeMux()
		endpoints.Register(mux)
		if s.oauth != nil {
			s.oauth.Register(mux)
		}
		hl.register(mux)
		if err := a.listen(s, "http", "--http", cfg.HTTPAddr, cfg.MaxConns, metrics, mux); err != nil {
			return nil, err
		}
	}
	if cfg.HealthAddr != "" && !sameListener(cfg.HealthAddr, cfg.HTTPAddr) {
		mux := http.NewServeMux()
		hl.register(mux)
		if cfg.Pprof {
			registerPprof(mux)
		}
		if err := a.listen(s, "health", "--health", cfg.HealthAddr, healthConns, metrics, mux); err != nil {
			return nil, err
		}
	}
	if s.socket != nil {
		sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		s.socketStop, s.socketDone = cancel, make(chan struct{})
		go func() {
			defer close(s.socketDone)
			if err := s.socket.Run(sctx); err != nil {
				s.fatal <- err
			}
		}()
	}

	digest, err := s.digestJob(web, metrics)
	if err != nil {
		return nil, failure(err.Error(), "fitbot serve --help")
	}
	s.stopSch, err = startSchedules(ctx, scheduleConfig{RefreshCron: cfg.RefreshCron, DigestCron: cfg.DigestCron, Instance: cfg.Instance}, db,
		scheduleJobs{
			Refresh: func(ctx context.Context) error { _, err := refresh(ctx); return err },
			Digest:  digest,
		}, log)
	if err != nil {
		return nil, failure(err.Error(), "fitbot serve --help")
	}
	log.Info("fitbot: serving", "version", version, "socket_mode", cfg.Socket(), "http", cfg.HTTPAddr, "health", cfg.HealthAddr,
		"db", db.Path(), "providers", len(cfg.Fetchers), "llm", cfg.llm().Enabled())
	ok = true
	return s, nil
}

// newOAuth is the install flow and token source over db.
func newOAuth(cfg Config, db *store.DB, hc *http.Client, log *slog.Logger) (*slackoauth.App, error) {
	key, err := slackoauth.ParseKey(cfg.TokenKey.reveal())
	if err != nil {
		return nil, err
	}
	holder, err := leaseHolder(cfg.Instance)
	if err != nil {
		return nil, err
	}
	return slackoauth.New(slackoauth.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret.reveal(), Key: key,
		RedirectURL: cfg.RedirectURL, APIURL: cfg.SlackAPIURL, HTTP: hc, Store: db, Holder: holder, Logger: log})
}

// checkTokens says at start-up, in one line, when the stored workspace
// tokens cannot be used: FITBOT_TOKEN_KEY is not the key that sealed
// them (then /readyz fails too), or workspaces need fitbot installed again.
func (s *service) checkTokens(ctx context.Context) {
	th, err := s.oauth.Check(ctx)
	switch {
	case err != nil:
		s.log.Error("slack: the installed workspaces cannot be read", "err", err)
	case th.WrongKey():
		s.log.Error("slack: FITBOT_TOKEN_KEY does not open the stored tokens of any workspace; it is not the key that sealed them, and no workspace can be answered until it is (/readyz fails)",
			"workspaces", th.Installations)
	case th.Unopened > 0 || th.Reinstall > 0:
		s.log.Warn("slack: some workspaces cannot be answered", "workspaces", th.Installations,
			"tokens_not_opening", th.Unopened, "need_reinstall", th.Reinstall, "list", "fitbot workspaces")
	}
}

// digestJob is the weekly digest for the schedule, posted through web to
// FITBOT_DIGEST_CHANNEL (installed through OAuth: to each workspace's own
// digest channel, with its token), each outcome counted; nil when there
// is nowhere to post it.
func (s *service) digestJob(web bot.ThreadPoster, metrics *bot.Metrics) (func(ctx context.Context, now time.Time) error, error) {
	if s.oauth != nil {
		return s.workspaceDigests(web, metrics), nil
	}
	if s.cfg.DigestChannel == "" {
		return nil, nil
	}
	poster, err := newDigestPoster(s.db, web, s.uploader, s.cfg.DigestChannel, store.Viewer(s.team, s.cfg.DigestChannel, ""), s.cfg.DigestCron, s.hub, s.log)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, now time.Time) error {
		d, err := poster.Deliver(ctx, now)
		switch {
		case err != nil:
			metrics.DigestPosted("failed")
		case d.Posted:
			metrics.DigestPosted("posted")
		default:
			metrics.DigestPosted("skipped")
		}
		return err
	}, nil
}

// sameListener reports whether two listen addresses name one fixed port,
// which the HTTP listener then serves health on alone.
func sameListener(a, b string) bool {
	_, port, err := net.SplitHostPort(a)
	return err == nil && a == b && port != "0"
}

// listen binds addr and serves mux on it in the background, holding at
// most maxConns connections open (netcap): at the cap the oldest idle
// connection is closed to admit a new one; with none idle, the new one
// is closed at once and counted.
func (a *app) listen(s *service, name, flagName, addr string, maxConns int, metrics *bot.Metrics, mux *http.ServeMux) error {
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return failure(fmt.Sprintf("%s %s: %v", flagName, addr, err), "pick a free port, e.g. "+flagName+" :8080")
	}
	refused := new(atomic.Int64)
	ln := netcap.Wrap(raw, maxConns, func() {
		metrics.ConnectionRefused(name)
		if n := refused.Add(1); n&(n-1) == 0 { // the 1st, 2nd, 4th, 8th...: a flood is a few lines
			s.log.Warn("fitbot: connection refused: the listener holds its most connections", "listener", name, "max", maxConns, "refused", n)
		}
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: httpReadTimeout,
		WriteTimeout: httpWriteTimeout, IdleTimeout: httpIdleTimeout, ConnState: ln.ConnState, // at the cap, idle connections make room
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	s.servers = append(s.servers, srv)
	s.log.Info("fitbot: listening", "listener", name, "addr", ln.Addr().String())
	s.listenWG.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.fatal <- fmt.Errorf("%s listener %s: %w", name, addr, err)
		}
	})
	return nil
}

// run waits for ctx (a signal) or a fatal error, then stops.
func (s *service) run(ctx context.Context) int {
	code := exitOK
	select {
	case <-ctx.Done():
		s.log.Info("fitbot: stopping", "cause", context.Cause(ctx))
	case err := <-s.fatal:
		s.log.Error("fitbot: stopping after a fatal error", "err", err)
		code = exitFailure
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	drain, closeErr := s.stop(sctx)
	if drain != nil {
		s.log.Error("fitbot: unclean stop", "err", drain)
		code = exitFailure
	}
	if closeErr != nil {
		// Everything acknowledged is committed (in the database file or
		// its write-ahead log, which the next start replays): a close
		// that fails (a full disk cannot take the final checkpoint) is
		// worth a line, not a failed exit after a clean drain.
		s.log.Warn("fitbot: the database did not close cleanly; the next start recovers it", "err", closeErr)
	}
	if code == exitOK {
		s.log.Info("fitbot: stopped")
	}
	return code
}

// stop stops taking work (listeners, the socket), finishes what is in
// flight (requests, background answers, scheduled jobs) within ctx, and
// checkpoints and closes the database. It returns what did not drain and,
// apart, the database's close error. It is safe on a half-started
// service.
func (s *service) stop(ctx context.Context) (drain, closeErr error) {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, srv := range s.servers {
		wg.Go(func() {
			if err := srv.Shutdown(ctx); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("http shutdown: %w", err))
				mu.Unlock()
			}
		})
	}
	if s.socketStop != nil {
		wg.Go(func() {
			s.socketStop()
			select {
			case <-s.socketDone:
			case <-ctx.Done():
			}
		})
	}
	wg.Wait()
	s.listenWG.Wait()
	if s.handler != nil {
		idle := make(chan struct{})
		go func() { s.handler.Wait(); s.hub.Wait(); close(idle) }()
		select {
		case <-idle:
		case <-ctx.Done():
			errs = append(errs, errors.New("background answers still running at the shutdown timeout"))
		}
	}
	if s.stopReload != nil {
		s.stopReload()
	}
	s.background.Wait()
	if s.stopSch != nil {
		if err := s.stopSch(ctx); err != nil {
			errs = append(errs, fmt.Errorf("schedules: %w", err))
		}
	}
	return errors.Join(errs...), s.db.Close()
}

// serveDBHint is dbHint, or where a server's database usually lives.
func serveDBHint(err error) string {
	if h := dbHint(err); h != "" {
		return h
	}
	return "FITBOT_DB=/data/fitbot.db"
}

// refreshSummary says in one sentence what a refresh did, for Slack.
func refreshSummary(reports []pricing.Report) string {
	if len(reports) == 0 {
		return "No price providers are configured."
	}
	ok, offers := 0, 0
	var problems []string
	for _, r := range reports {
		switch {
		case r.Run.Status != pricing.RunOK:
			problems = append(problems, fmt.Sprintf("%s %s", r.Run.Provider, r.Run.Status))
		case r.Stale():
			ok, offers = ok+1, offers+r.Run.Rows
			problems = append(problems, fmt.Sprintf("%s stale (published %s)", r.Run.Provider, r.Run.PublishedAt.Format(time.DateOnly)))
		default:
			ok, offers = ok+1, offers+r.Run.Rows
		}
	}
	msg := fmt.Sprintf("Refreshed prices: %d of %d sources ok, %d offers.", ok, len(reports), offers)
	if len(problems) > 0 {
		msg += " Not current: " + strings.Join(problems, ", ") + "."
	}
	var held []string
	for _, r := range reports {
		for _, h := range r.Held {
			held = append(held, r.Run.Provider+" "+h.Reason())
		}
	}
	if len(held) > 0 {
		msg += fmt.Sprintf(" Held aside as implausible (not quoted; a second refresh at the same price lets them in): %s.", truncateList(held, 3))
	}
	return msg
}

// workspaceDigests posts the weekly digest into every installed
// workspace that chose a digest channel (fitbot workspaces digest), each
// with its own token; one workspace failing does not stop the others.
func (s *service) workspaceDigests(web bot.ThreadPoster, metrics *bot.Metrics) func(ctx context.Context, now time.Time) error {
	return func(ctx context.Context, now time.Time) error {
		all, err := s.oauth.Workspaces(ctx)
		if err != nil {
			return err
		}
		var errs []error
		for _, ws := range all {
			if ws.DigestChannel == "" {
				continue
			}
			poster, err := newDigestPoster(s.db, web, s.uploader, ws.DigestChannel, store.Viewer(ws.TeamID, ws.DigestChannel, ""), s.cfg.DigestCron, s.hub, s.log)
			if err != nil {
				return err
			}
			d, err := poster.Deliver(slackoauth.WithWorkspace(ctx, ws.EnterpriseID, ws.TeamID), now)
			switch {
			case err != nil:
				metrics.DigestPosted("failed")
				errs = append(errs, fmt.Errorf("digest for %s: %w", store.InstallationKey(ws.EnterpriseID, ws.TeamID), err))
			case d.Posted:
				metrics.DigestPosted("posted")
			default:
				metrics.DigestPosted("skipped")
			}
		}
		return errors.Join(errs...)
	}
}
