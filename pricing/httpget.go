// This file is the pricing package's one HTTP helper for provider price
// lists, shared by the RunPod, Vast.ai, Lambda, AWS, Azure and GCP
// fetchers. providerCall guarantees: 429 and 5xx answers are retried up to
// providerAttempts times with exponential backoff, a Retry-After (seconds
// or HTTP date, capped at maxRetryAfter) wins over the backoff; a body is
// capped at maxProviderBody; an HTML page served with status 200 (a login
// wall, a captcha) is an error, not a price list; and no error it returns
// carries a URL's query string, a header, or any of the request's secrets.

package pricing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fitbot/fitbot/internal/samehost"
	"github.com/fitbot/fitbot/retry"
)

// maxProviderBody caps one response body. GCP's largest SKU page is a few
// MB; anything past this is not a price list.
const maxProviderBody = 32 << 20

// providerAttempts is how many times a request is tried on 429 and 5xx.
const providerAttempts = 4

// maxRetryAfter caps how long one Retry-After makes a refresh wait.
const maxRetryAfter = 30 * time.Second

// bodyStall is how long a response body may send nothing before the
// download is given up: a truncated catalog that stops mid-body with the
// connection left open would otherwise hold the refresh until its
// per-provider timeout (3 minutes). A variable for the tests.
var bodyStall = 20 * time.Second

// errStalled is the cause of a download given up for bodyStall.
var errStalled = errors.New("the download stalled")

// stallReader cancels its request when no byte arrives for bodyStall.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	n     int64
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.n += int64(n)
		s.timer.Reset(bodyStall)
	}
	return n, err
}

type providerRequest struct {
	provider string
	method   string
	url      string // may hold a key in its query; never printed
	body     []byte
	header   http.Header
	secrets  []string // scrubbed from any error text
	// lastModified, when not nil, receives the answer's Last-Modified
	// time (zero when it has none): the publication date of a feed that
	// does not carry one in its body.
	lastModified *time.Time
}

// providerCall performs req, retrying 429 and 5xx answers with exponential
// backoff (Retry-After wins when given), and returns the body of a 200
// that is not an HTML page.
func providerCall(ctx context.Context, hc *http.Client, req providerRequest) ([]byte, error) {
	policy := retry.Policy{Attempts: providerAttempts, Backoff: 500 * time.Millisecond,
		Sleep: func(ctx context.Context, d time.Duration) error {
			if err := retry.Sleep(ctx, d); err != nil {
				return fmt.Errorf("%s: %w", req.provider, err)
			}
			return nil
		}}
	var raw []byte
	err := policy.Do(ctx, func(int) (bool, time.Duration, error) {
		var again bool
		var after time.Duration
		var err error
		raw, again, after, err = providerOnce(ctx, hc, req)
		return again, after, err
	})
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// providerOnce makes one attempt. retry says whether the failure is worth
// another try; after is the server's Retry-After, negative when it gave
// none.
func providerOnce(ctx context.Context, hc *http.Client, req providerRequest) (raw []byte, retry bool, after time.Duration, err error) {
	var body io.Reader
	if req.body != nil {
		body = bytes.NewReader(req.body)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	hr, err := http.NewRequestWithContext(rctx, req.method, req.url, body)
	if err != nil {
		return nil, false, -1, fmt.Errorf("%s: build request: %s", req.provider, scrub(err.Error(), req.secrets))
	}
	for k, vs := range req.header {
		hr.Header[k] = vs
	}
	if hr.Header.Get("Accept") == "" {
		hr.Header.Set("Accept", "application/json")
	}
	resp, err := hc.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // drop the URL, which may carry a key
		}
		if ctx.Err() != nil {
			return nil, false, -1, fmt.Errorf("%s: %w", req.provider, ctx.Err())
		}
		return nil, true, -1, fmt.Errorf("%s: %s %s: %w", req.provider, req.method, hr.URL.Path, scrubErr(err, req.secrets))
	}
	defer resp.Body.Close()
	sr := &stallReader{r: resp.Body, timer: time.AfterFunc(bodyStall, func() { cancel(errStalled) })}
	raw, err = io.ReadAll(io.LimitReader(sr, maxProviderBody+1))
	sr.timer.Stop()
	if err != nil {
		if errors.Is(context.Cause(rctx), errStalled) && ctx.Err() == nil {
			of := "an unknown number of"
			if resp.ContentLength >= 0 {
				of = fmt.Sprint(resp.ContentLength)
			}
			return nil, false, -1, fmt.Errorf("%s: %s: %d of %s bytes, then nothing for %v; the download was given up", req.provider, errStalled, sr.n, of, bodyStall)
		}
		if ctx.Err() != nil {
			return nil, false, -1, fmt.Errorf("%s: read body: %w", req.provider, ctx.Err())
		}
		return nil, true, -1, fmt.Errorf("%s: read body: %s", req.provider, scrub(err.Error(), req.secrets))
	}
	if len(raw) > maxProviderBody {
		return nil, false, -1, fmt.Errorf("%s: response larger than %d bytes", req.provider, maxProviderBody)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, true, retryAfter(resp.Header),
			fmt.Errorf("%s: HTTP %d: %s", req.provider, resp.StatusCode, snippet(raw, req.secrets))
	case resp.StatusCode != http.StatusOK:
		return nil, false, -1, fmt.Errorf("%s: HTTP %d: %s", req.provider, resp.StatusCode, snippet(raw, req.secrets))
	}
	if looksLikeHTML(resp.Header.Get("Content-Type"), raw) {
		return nil, false, -1, fmt.Errorf("%s: got an HTML page, not JSON (status 200): %s", req.provider, snippet(raw, req.secrets))
	}
	if req.lastModified != nil {
		*req.lastModified = time.Time{}
		if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
			*req.lastModified = t.UTC()
		}
	}
	return raw, false, 0, nil
}

// retryAfter is the wait a 429 or 5xx names (retry.After), capped at
// maxRetryAfter; it is negative when none was given.
func retryAfter(h http.Header) time.Duration {
	if wait, ok := retry.After(h, time.Now()); ok {
		return min(wait, maxRetryAfter)
	}
	return -1
}

func looksLikeHTML(contentType string, raw []byte) bool {
	if strings.Contains(strings.ToLower(contentType), "text/html") {
		return true
	}
	trimmed := bytes.TrimLeft(raw, " \t\r\n\ufeff")
	return len(trimmed) > 0 && trimmed[0] == '<'
}

// snippet is the start of a body, flattened to one printable line, for an
// error message.
func snippet(raw []byte, secrets []string) string {
	s := strings.Join(strings.Fields(string(raw[:min(len(raw), 400)])), " ")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\ufffd' {
			return -1
		}
		return r
	}, s)
	if s == "" {
		return "(empty body)"
	}
	return truncate(scrub(s, secrets), 200)
}

// truncate cuts s to at most n runes, the last an ellipsis: rune-safe,
// so an error kept in the store is valid UTF-8.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:max(n-1, 0)]) + "…"
}

func scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// scrubErr keeps err's chain (for errors.Is on timeouts) unless its text
// holds a secret, in which case only the scrubbed text survives.
func scrubErr(err error, secrets []string) error {
	if s := scrub(err.Error(), secrets); s != err.Error() {
		return errors.New(s)
	}
	return err
}

func orDefaultClient(hc *http.Client) *http.Client {
	if hc == nil {
		return samehost.StripClient(&http.Client{Timeout: 60 * time.Second})
	}
	return hc
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

// logUnknown logs the names a provider published that no table maps.
func logUnknown(l *slog.Logger, provider string, unknown map[string]int) {
	if len(unknown) == 0 {
		return
	}
	l.Info("prices: unrecognised GPU names skipped", "provider", provider, "names", len(unknown), "unknown", unknown)
}

// keyed is what a provider's fetcher that reads one API with a key
// holds: the base URL, the key, the client, the logger and the clock.
type keyed struct {
	baseURL string
	apiKey  string
	hc      *http.Client
	logger  *slog.Logger
	now     func() time.Time
}

// newKeyed is keyed for baseURL (dflt when empty) through hc (the
// default client when nil); a nil logger discards.
func newKeyed(baseURL, dflt, apiKey string, hc *http.Client, logger *slog.Logger) keyed {
	if baseURL == "" {
		baseURL = dflt
	}
	return keyed{baseURL: baseURL, apiKey: apiKey, hc: orDefaultClient(hc), logger: orDiscard(logger), now: time.Now}
}
