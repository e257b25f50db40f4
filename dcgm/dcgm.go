// Package dcgm reads what a run used from the series NVIDIA's DCGM
// exporter leaves in Prometheus: the busiest GPU's peak framebuffer memory
// (DCGM_FI_DEV_FB_USED, MiB) and the mean tensor-pipe activity
// (DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, a ratio), for one pod or one host over
// the run's window. It talks to Prometheus through client_golang's HTTP
// API client.
package dcgm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/fitbot/fitbot/measure"
)

// The DCGM exporter's metric names.
const (
	FramebufferUsed = "DCGM_FI_DEV_FB_USED"             // MiB
	TensorActive    = "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" // ratio of cycles the tensor pipes were active
)

// Labels are the label names the exporter's series carry; the zero value
// means dcgm-exporter's defaults.
type Labels struct {
	Pod       string // default "pod"
	Namespace string // default "namespace"
	Host      string // default "Hostname"
}

func (l Labels) withDefaults() Labels {
	if l.Pod == "" {
		l.Pod = "pod"
	}
	if l.Namespace == "" {
		l.Namespace = "namespace"
	}
	if l.Host == "" {
		l.Host = "Hostname"
	}
	return l
}

// Window is the run to read: one pod (in a namespace, when given) or one
// host, from From to To.
type Window struct {
	Pod, Namespace, Host string
	From, To             time.Time
}

// Check refuses a window that names no pod or host, names both, or does
// not run forward.
func (w Window) Check() error {
	switch {
	case (w.Pod == "") == (w.Host == ""):
		return errors.New("name the run's pod or its host, one of them")
	case w.From.IsZero() || w.To.IsZero():
		return errors.New("give the run's start and end times")
	case !w.To.After(w.From):
		return fmt.Errorf("the run ends (%s) before it starts (%s)", w.To.Format(time.RFC3339), w.From.Format(time.RFC3339))
	}
	return nil
}

// Reader reads runs from one Prometheus.
type Reader struct {
	api    v1.API
	labels Labels
	where  string // the server as messages name it: scheme and host, never a token
}

// New is a Reader of the Prometheus at address; token, when set, is sent
// as a bearer token. client carries it (nil: a client with a 10 s
// timeout); it should refuse redirects to other hosts, so the token
// stays on its host.
func New(address, token string, labels Labels, client *http.Client) (*Reader, error) {
	u, err := url.Parse(address)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("FITBOT_PROMETHEUS_URL %q is not a URL such as http://prometheus:9090", redact(address))
	}
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	c := *client
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = statusTransport{next: rt, token: token}
	ac, err := api.NewClient(api.Config{Address: address, Client: &c})
	if err != nil {
		return nil, fmt.Errorf("prometheus %s: %w", u.Scheme+"://"+u.Host, err)
	}
	return &Reader{api: v1.NewAPI(ac), labels: labels.withDefaults(), where: u.Scheme + "://" + u.Host}, nil
}

// Run reads the window's peak memory (the largest FB_USED of any of its
// GPUs at any sample), its mean tensor activity (when the profiling
// metrics are collected) and its hours.
func (r *Reader) Run(ctx context.Context, w Window) (measure.Run, error) {
	if err := w.Check(); err != nil {
		return measure.Run{}, err
	}
	span := strconv.FormatInt(int64(math.Ceil(w.To.Sub(w.From).Seconds())), 10) + "s"
	sel := r.selector(w)
	peak, ok, err := r.scalar(ctx, fmt.Sprintf("max(max_over_time(%s%s[%s]))", FramebufferUsed, sel, span), w.To)
	if err != nil {
		return measure.Run{}, err
	}
	if !ok {
		return measure.Run{}, fmt.Errorf("prometheus %s has no %s series for %s between %s and %s: check the name, the times, and that dcgm-exporter labels its series by %s",
			r.where, FramebufferUsed, w.what(), w.From.Format(time.RFC3339), w.To.Format(time.RFC3339), r.labelOf(w))
	}
	run := measure.Run{PeakBytes: int64(peak * (1 << 20)), Hours: w.To.Sub(w.From).Hours()}
	tensor, ok, err := r.scalar(ctx, fmt.Sprintf("avg(avg_over_time(%s%s[%s]))", TensorActive, sel, span), w.To)
	if err != nil {
		return measure.Run{}, err
	}
	if ok && tensor > 0 && tensor <= 1 {
		run.TensorActive = tensor
	}
	return run, nil
}

// selector is the PromQL label matcher of the window.
func (r *Reader) selector(w Window) string {
	var m []string
	if w.Pod != "" {
		m = append(m, r.labels.Pod+"="+strconv.Quote(w.Pod))
		if w.Namespace != "" {
			m = append(m, r.labels.Namespace+"="+strconv.Quote(w.Namespace))
		}
	} else {
		m = append(m, r.labels.Host+"="+strconv.Quote(w.Host))
	}
	return "{" + strings.Join(m, ",") + "}"
}

func (r *Reader) labelOf(w Window) string {
	if w.Pod != "" {
		return r.labels.Pod
	}
	return r.labels.Host
}

func (w Window) what() string {
	if w.Pod != "" {
		return "pod " + w.Pod
	}
	return "host " + w.Host
}

// scalar runs an instant query that aggregates to one value; ok is false
// when it found no series.
func (r *Reader) scalar(ctx context.Context, query string, at time.Time) (float64, bool, error) {
	v, _, _, err := r.api.Query(ctx, query, at)
	if err != nil {
		return 0, false, r.explain(err)
	}
	vec, isVector := v.(model.Vector)
	if !isVector {
		return 0, false, fmt.Errorf("prometheus %s answered %s with a %s, not a vector", r.where, query, v.Type())
	}
	if len(vec) == 0 || math.IsNaN(float64(vec[0].Value)) {
		return 0, false, nil
	}
	return float64(vec[0].Value), true, nil
}

// explain says what went wrong in words, never with the token.
func (r *Reader) explain(err error) error {
	var se statusError
	if errors.As(err, &se) {
		switch se.code {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("prometheus %s refused fitbot (HTTP %d): check FITBOT_PROMETHEUS_TOKEN", r.where, se.code)
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("prometheus %s did not answer in time", r.where)
	}
	var ae *v1.Error
	if errors.As(err, &ae) && ae.Type != v1.ErrClient {
		return fmt.Errorf("prometheus %s: %s: %s", r.where, ae.Type, ae.Msg)
	}
	if errors.As(err, &ue) {
		return fmt.Errorf("prometheus %s is unreachable: %v", r.where, ue.Err)
	}
	return fmt.Errorf("prometheus %s: %v", r.where, err)
}

// statusTransport adds the bearer token and turns a refusal into a
// statusError the reader can name.
type statusTransport struct {
	next  http.RoundTripper
	token string
}

type statusError struct{ code int }

func (e statusError) Error() string { return "HTTP " + strconv.Itoa(e.code) }

func (t statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+t.token)
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		resp.Body.Close()
		return nil, statusError{code: resp.StatusCode}
	}
	return resp, nil
}

// redact drops a URL's user information, which may hold a password,
// whether or not the rest of it parses.
func redact(s string) string {
	scheme := strings.Index(s, "://")
	if at := strings.LastIndex(s, "@"); scheme >= 0 && at > scheme {
		return s[:scheme+3] + s[at+1:]
	}
	return s
}
