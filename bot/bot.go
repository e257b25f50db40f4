// Package bot is fitbot's Slack face: it routes `/fit` commands, renders
// answers, plans and prices as Block Kit within Slack's limits, handles
// the answer's buttons, and serves Slack's HTTP endpoints with v0
// signature checks.
//
// The Handler is independent of the transport: the HTTP endpoints here
// and Socket Mode both hand it a slack.SlashCommand or a
// slack.InteractionCallback and send back the Message it returns, whose
// Outcome the metrics count. It reaches the parser, the estimator, the
// plan store, the prices and the language model through the interfaces
// in its Config, never through cmd; it renders figures with package
// display and plan comparisons with package plan, and posts to Slack's
// Web API (slackapi.go) and the weekly digest (digest.go) itself.
package bot

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/internal/ratelog"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/store"
)

// Parser reads a question the way sizing.Parse does: answer's.
type Parser = answer.Parser

// Answerer answers a sizing question within ctx (the request's: an
// answerer that reads prices or fetches a model's config stops with it):
// answer's Estimator; Fixed is one.
type Answerer = answer.Estimator

// Fixed answers with one estimator, whose prices never change (tests,
// the load generator): answer's.
type Fixed = answer.Fixed

// PlanStore keeps every answer as a plan; *store.DB is one. Every read
// takes the scope of the person reading (see store.Scope): a plan from
// another workspace, or from a private conversation the reader is not
// in, reads as missing.
type PlanStore interface {
	SavePlan(ctx context.Context, p *store.Plan) (int64, error)
	PlansForModel(ctx context.Context, scope store.Scope, modelKey string, limit int) ([]store.Plan, error)
	Plan(ctx context.Context, scope store.Scope, id int64) (store.Plan, error)
}

// PriceBook lists current GPU prices. A nil PriceBook means prices are
// not available yet, and `/fit prices` says so.
type PriceBook interface {
	// CheapestOffers returns the cheapest current offer per GPU and market.
	CheapestOffers(ctx context.Context) ([]pricing.Offer, error)
	// OffersForGPU returns every current offer for one catalog GPU id.
	OffersForGPU(ctx context.Context, gpu string) ([]pricing.Offer, error)
}

// Responder posts a message to a response_url: the follow-up of a slash
// command or of a button. ResponseURLPoster is the HTTP one.
type Responder interface {
	Respond(ctx context.Context, responseURL string, msg Message) error
}

// Config is what a Handler needs. Parse, Answer and Respond are
// required; the rest may be nil.
type Config struct {
	Parse       Parser
	Answer      Answerer
	Ask         Asker // nil: questions that run the other way round say this fitbot cannot answer them
	Respond     Responder
	Plans       PlanStore          // nil: answers are not saved, plan commands say so
	Runs        answer.RunBook     // nil: measured runs are neither recorded nor said on answers
	Prices      PriceBook          // nil: `/fit prices` says prices are not available yet
	Hardware    HardwareStore      // nil: `/fit hardware` says team hardware is not kept
	Cluster     ClusterReader      // nil: no live cluster; `/fit cluster` says so; waited for 2 s at most
	ModelReader answer.ModelReader // nil: no language model reads questions beside the grammar
	Upload      FileUploader       // nil: no pictures, launch configs as text
	History     PriceHistory       // nil: no price pictures
	// Models resolves Hugging Face Hub ids, links and names the catalog
	// lacks; nil: the parser's own message answers them.
	Models ModelResolver
	Policy Policy
	// Refresh fetches prices now and says what it did, in a sentence,
	// for `/fit prices refresh` (admins only); nil: not available from Slack.
	Refresh func(ctx context.Context) (string, error)
	// Weekly builds the week's price digest for "this week" price
	// questions; nil: they are answered with today's prices and say so.
	Weekly Weekly
	Logger *slog.Logger     // nil: slog.Default()
	Now    func() time.Time // nil: time.Now
	// AnswerVersion, when set, turns the reply cache on (replycache.go).
	// It returns the version of everything a cached answer is made from
	// besides the question: the prices Answer uses, the catalogs (and,
	// should answers for Hugging Face Hub models ever be cached, the Hub
	// cache). It must grow whenever any of them changes (a sum of
	// counters that only grow will do), and be cheap: it is called once
	// per answer. Nil: every answer is estimated and rendered afresh.
	AnswerVersion func() uint64
	// FollowUpTimeout bounds a background answer (the language-model
	// path, a button); zero means 30 seconds.
	FollowUpTimeout time.Duration
}

// Handler answers `/fit` commands and the answer's buttons for any transport.
type Handler struct {
	cfg     Config
	log     *slog.Logger
	now     func() time.Time
	limiter *limiter
	answers *answer.Service // reads and answers questions: Parse, Answer, Ask, Models, Hardware
	replies *replyCache     // nil without Config.AnswerVersion
	results keptResults     // the results of the answers rendered, for their buttons
	statics staticReplies
	wg      sync.WaitGroup
	// failures logs a store failure that repeats on every request (a
	// full disk) once per interval, with a count.
	failures ratelog.Limiter
}

// New returns a Handler, or an error naming the missing piece.
func New(cfg Config) (*Handler, error) {
	switch {
	case cfg.Parse == nil:
		return nil, errors.New("bot: Config.Parse is required")
	case cfg.Answer == nil:
		return nil, errors.New("bot: Config.Answer is required")
	case cfg.Respond == nil:
		return nil, errors.New("bot: Config.Respond is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.FollowUpTimeout <= 0 {
		cfg.FollowUpTimeout = 30 * time.Second
	}
	h := &Handler{cfg: cfg, log: cfg.Logger, now: cfg.Now, limiter: newLimiter(cfg.Policy.PerUserPerMinute)}
	est, ask := cfg.Answer, cfg.Ask
	if cfg.AnswerVersion != nil {
		memo := answer.NewMemo(cfg.AnswerVersion)
		est, ask = memo.Estimator(est), memo.Asker(ask)
	}
	h.answers = &answer.Service{Parse: cfg.Parse, Estimator: est, Asker: ask, Models: cfg.Models,
		Machines: cfg.Hardware, PriceBook: cfg.Prices, Runs: cfg.Runs, Reader: cfg.ModelReader, Logger: cfg.Logger, Now: cfg.Now}
	if cfg.Plans != nil {
		h.answers.Plans = answer.StoreKeeper{Store: cfg.Plans, Source: store.SourceSlack, Budget: saveBudget}
	}
	if cfg.Cluster != nil {
		h.cfg.Cluster = boundedCluster{cfg.Cluster}
		h.answers.Cluster = h.cfg.Cluster
	}
	if cfg.AnswerVersion != nil {
		h.replies = newReplyCache()
	}
	return h, nil
}

// Wait blocks until every background answer has been posted or has given
// up and every plan has been written; call it on shutdown, after the
// transports stopped taking requests.
func (h *Handler) Wait() { h.wg.Wait() }

// postTimeout bounds one post to a response_url. It is counted apart
// from the work before it, so that an answer that used up its time can
// still say so.
const postTimeout = 10 * time.Second

// respond posts msg to responseURL with its own time budget and logs a failure.
func (h *Handler) respond(ctx context.Context, responseURL string, msg Message, what string) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), postTimeout)
	defer cancel()
	if err := h.cfg.Respond.Respond(ctx, responseURL, msg); err != nil {
		h.log.Error("bot: posting to response_url failed", "what", what, "err", err)
		return false
	}
	return true
}

// later runs f in the background, detached from the request's
// cancellation but bounded by FollowUpTimeout, and recovers a panic.
func (h *Handler) later(ctx context.Context, what string, f func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.cfg.FollowUpTimeout)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer cancel()
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("bot: panic in background work", "what", what, "panic", p)
			}
		}()
		f(ctx)
	}()
}
