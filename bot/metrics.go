package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/reading"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Question kinds: where a question came from.
const (
	KindSlash   = "slash"   // a /fit slash command, over either transport
	KindMention = "mention" // an @fitbot mention in a channel
	KindDM      = "dm"      // a direct message to fitbot
)

// Question outcomes, as the metrics and the question log name them.
const (
	OutcomeAnswered      = "answered"       // an estimate, fits or not
	OutcomeNotUnderstood = "not_understood" // the asker's input could not be used
	OutcomeInterpreting  = "interpreting"   // acknowledged; the language model answers later
	OutcomeRefused       = "refused"        // workspace or channel not allowed
	OutcomeRateLimited   = "rate_limited"   // the asker went over the per-user limit
	OutcomeError         = "error"          // fitbot's own failure; the asker got an apology
	OutcomeOther         = "other"          // help, listings, plans, prices
)

// Metrics are fitbot's Prometheus collectors on a registry of their own
// (the Go runtime and process collectors included), served by Handler.
// Every method is safe on a nil *Metrics and then does nothing, so code
// that records is the same whether metrics are on or not.
type Metrics struct {
	reg             *prometheus.Registry
	questions       *prometheus.CounterVec
	latency         *prometheus.HistogramVec
	llmCalls        *prometheus.CounterVec
	llmFailures     *prometheus.CounterVec
	refreshRuns     *prometheus.CounterVec
	offersHeld      *prometheus.CounterVec
	connsRefused    *prometheus.CounterVec
	priceAge        *prometheus.GaugeVec
	unknownGPUs     *prometheus.GaugeVec
	digests         *prometheus.CounterVec
	slackErrors     *prometheus.CounterVec
	slackRateLimits *prometheus.CounterVec
	events          *prometheus.CounterVec
	socketConnected prometheus.Gauge
	planBatchRows   prometheus.Histogram
}

// NewMetrics returns the collectors, registered on a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		questions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_questions_total",
			Help: "Questions and commands answered, by kind (slash, mention, dm) and outcome.",
		}, []string{"kind", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fitbot_answer_seconds",
			Help:    "Time from a question's arrival to its reply (the acknowledgement for slash commands), by kind.",
			Buckets: []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30},
		}, []string{"kind"}),
		llmCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_llm_calls_total",
			Help: "Language-model interpretations asked for, by outcome (ok, not_understood, failed).",
		}, []string{"outcome"}),
		llmFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_llm_failures_total",
			Help: "Language-model calls that gave no usable answer, by reason (not_understood, unavailable, timeout, error).",
		}, []string{"reason"}),
		refreshRuns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_price_refresh_runs_total",
			Help: "Price refreshes, by provider and status (ok, failed, rejected).",
		}, []string{"provider", "status"}),
		offersHeld: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_price_offers_held_total",
			Help: "Offers a price refresh held aside as implausible (below what the card costs to own, above its list prices, or far outside the providers' spread), by provider.",
		}, []string{"provider"}),
		connsRefused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_http_connections_refused_total",
			Help: "Connections closed at once because the listener held its most (FITBOT_MAX_CONNS), by listener (http, health).",
		}, []string{"listener"}),
		priceAge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fitbot_price_age_seconds",
			Help: "Age of each provider's current prices (its latest good refresh).",
		}, []string{"provider"}),
		unknownGPUs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fitbot_price_unknown_gpu_rows",
			Help: "Rows of each provider's latest refresh whose GPU name fitbot cannot map to a catalog card, by GPU name.",
		}, []string{"provider", "gpu"}),
		digests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_digests_posted_total",
			Help: "Weekly price digests, by outcome (posted, skipped, failed).",
		}, []string{"outcome"}),
		slackErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_slack_api_errors_total",
			Help: "Slack Web API calls that failed, by method and kind (rate_limited, server, client, network).",
		}, []string{"method", "kind"}),
		slackRateLimits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_slack_rate_limited_total",
			Help: "429 answers from the Slack Web API, by method.",
		}, []string{"method"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fitbot_slack_events_total",
			Help: "Slack events received, by outcome (taken, duplicate, ignored).",
		}, []string{"outcome"}),
		socketConnected: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "fitbot_slack_socket_connected",
			Help: "1 while the Socket Mode connection is up.",
		}),
		planBatchRows: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "fitbot_plan_batch_rows",
			Help:    "Plans committed per transaction by the store's group commit.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.questions, m.latency, m.llmCalls, m.llmFailures, m.refreshRuns, m.offersHeld, m.connsRefused, m.priceAge, m.unknownGPUs,
		m.digests, m.slackErrors, m.slackRateLimits, m.events, m.socketConnected, m.planBatchRows,
	)
	return m
}

// Registry is the registry the collectors are on, for tests and for
// adding collectors of other packages.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the metrics in the Prometheus text format. A nil
// *Metrics serves 404.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Question records one question's kind, outcome and latency.
func (m *Metrics) Question(kind, outcome string, latency time.Duration) {
	if m == nil {
		return
	}
	m.questions.WithLabelValues(kind, outcome).Inc()
	m.latency.WithLabelValues(kind).Observe(latency.Seconds())
}

// LLMCall records one language-model call; err nil is a success.
func (m *Metrics) LLMCall(err error) {
	if m == nil {
		return
	}
	if err == nil {
		m.llmCalls.WithLabelValues("ok").Inc()
		return
	}
	reason := llmFailureReason(err)
	outcome := "failed"
	if reason == "not_understood" {
		outcome = reason
	}
	m.llmCalls.WithLabelValues(outcome).Inc()
	m.llmFailures.WithLabelValues(reason).Inc()
}

// RefreshRun records one provider refresh and its status (ok, failed,
// rejected: pricing.RunStatus).
func (m *Metrics) RefreshRun(provider, status string) {
	if m == nil {
		return
	}
	m.refreshRuns.WithLabelValues(provider, status).Inc()
}

// UnknownGPUs sets, for provider's latest refresh, how many rows named
// each GPU fitbot could not map to a catalog card; names of an earlier
// refresh that are gone are dropped.
func (m *Metrics) UnknownGPUs(provider string, rows map[string]int) {
	if m == nil {
		return
	}
	m.unknownGPUs.DeletePartialMatch(prometheus.Labels{"provider": provider})
	for name, n := range rows {
		m.unknownGPUs.WithLabelValues(provider, name).Set(float64(n))
	}
}

// OffersHeld records n offers of provider's refresh held aside as
// implausible (pricing's sanity check).
func (m *Metrics) OffersHeld(provider string, n int) {
	if m == nil || n <= 0 {
		return
	}
	m.offersHeld.WithLabelValues(provider).Add(float64(n))
}

// ConnectionRefused counts a connection a listener closed for want of a
// slot.
func (m *Metrics) ConnectionRefused(listener string) {
	if m == nil {
		return
	}
	m.connsRefused.WithLabelValues(listener).Inc()
}

// PriceAge sets how old provider's current prices are.
func (m *Metrics) PriceAge(provider string, age time.Duration) {
	if m == nil {
		return
	}
	m.priceAge.WithLabelValues(provider).Set(age.Seconds())
}

// DigestPosted records one weekly digest and its outcome (posted,
// skipped, failed).
func (m *Metrics) DigestPosted(outcome string) {
	if m == nil {
		return
	}
	m.digests.WithLabelValues(outcome).Inc()
}

// SlackAPIError records a failed Web API call; kind is rate_limited,
// server, client or network.
func (m *Metrics) SlackAPIError(method, kind string) {
	if m == nil {
		return
	}
	m.slackErrors.WithLabelValues(method, kind).Inc()
	if kind == "rate_limited" {
		m.slackRateLimits.WithLabelValues(method).Inc()
	}
}

// Event records one Slack event delivery: taken, duplicate or ignored.
func (m *Metrics) Event(outcome string) {
	if m == nil {
		return
	}
	m.events.WithLabelValues(outcome).Inc()
}

// SocketConnected sets whether the Socket Mode connection is up.
func (m *Metrics) SocketConnected(up bool) {
	if m == nil {
		return
	}
	v := 0.0
	if up {
		v = 1
	}
	m.socketConnected.Set(v)
}

// PlanBatch records one committed batch of rows plans; the store calls
// it through store.DB.ObservePlanBatches.
func (m *Metrics) PlanBatch(rows int) {
	if m == nil {
		return
	}
	m.planBatchRows.Observe(float64(rows))
}

// llmFailureReason names why a language-model call gave no answer.
func llmFailureReason(err error) string {
	if _, ok := answer.QuestionBack(err); ok {
		return "not_understood"
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "unavailable"
}

// MeteredReader wraps the language model's reader so that every call is
// counted in m. It returns nil for a nil reader, which keeps the model
// off.
func MeteredReader(r answer.ModelReader, m *Metrics) answer.ModelReader {
	if r == nil {
		return nil
	}
	return meteredReader{r: r, m: m}
}

type meteredReader struct {
	r answer.ModelReader
	m *Metrics
}

// ReadFollowUp implements answer.ThreadReader: the reader's own, or its
// Read with the thread's request as the grammar's reading.
func (mr meteredReader) ReadFollowUp(ctx context.Context, text string, thread reading.Request) (reading.Request, error) {
	read := mr.r.Read
	if tr, ok := mr.r.(answer.ThreadReader); ok {
		read = tr.ReadFollowUp
	}
	p, err := read(ctx, text, thread)
	mr.m.LLMCall(err)
	return p, err
}

// Read implements answer.ModelReader.
func (mr meteredReader) Read(ctx context.Context, text string, grammar reading.Request) (reading.Request, error) {
	p, err := mr.r.Read(ctx, text, grammar)
	mr.m.LLMCall(err)
	return p, err
}

// outcomeOf is the outcome a reply's constructor marked it with
// (Message.Outcome), OutcomeOther when none.
func outcomeOf(msg Message) string {
	if msg.Outcome == "" {
		return OutcomeOther
	}
	return msg.Outcome
}

// observeQuestion records one question in the metrics and writes its log
// line (with the request's ctx, for handlers that read it): kind,
// outcome, latency and the request id (the Socket Mode
// envelope, the event id, or one made up for HTTP), never the text.
func observeQuestion(ctx context.Context, log *slog.Logger, m *Metrics, kind, requestID string, asker who, msg Message, latency time.Duration) {
	outcome := outcomeOf(msg)
	m.Question(kind, outcome, latency)
	level := slog.LevelInfo
	if outcome == OutcomeError {
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "question",
		"kind", kind, "outcome", outcome, "latency_ms", float64(latency.Microseconds())/1000,
		"request_id", requestID, "team", asker.team, "channel", asker.channel, "user", asker.user)
}

// NewRequestID makes an id for a request that arrived without one of
// Slack's: 16 hex digits.
func NewRequestID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
