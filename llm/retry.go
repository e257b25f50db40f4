package llm

import (
	"io"
	"net/http"
	"time"

	"github.com/fitbot/fitbot/retry"
	openai "github.com/sashabaranov/go-openai"
)

// retryBackoff is the pause before the retry when the server sends no
// Retry-After.
const retryBackoff = 250 * time.Millisecond

// retryDoer sends a request and, when the answer is a 429 or a 5xx, sends
// it once more (one retry inside an HTTP doer, which must hand back the
// last response rather than an error, so it does not use retry.Policy) after the server's Retry-After (or retryBackoff), provided
// the request's deadline leaves time for that wait. Other 4xx answers and
// transport errors are not retried. One retryDoer serves one Reader.Read
// call, so its counters describe that call.
type retryDoer struct {
	next     openai.HTTPDoer
	now      func() time.Time
	attempts int
	status   int // status of the last answer, 0 when none came
}

func (d *retryDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.send(req)
	if err != nil || !retryable(resp.StatusCode) || req.GetBody == nil {
		return resp, err
	}
	wait := retryAfter(resp.Header, d.now())
	if deadline, ok := req.Context().Deadline(); ok && deadline.Sub(d.now()) <= wait {
		// Honouring Retry-After would overrun the deadline: report this
		// answer rather than retry early or time out waiting.
		return resp, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err := retry.Sleep(req.Context(), wait); err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	again.Body = body
	return d.send(again)
}

func (d *retryDoer) send(req *http.Request) (*http.Response, error) {
	d.attempts++
	resp, err := d.next.Do(req)
	if err == nil {
		d.status = resp.StatusCode
	}
	return resp, err
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= http.StatusInternalServerError
}

// retryAfter is how long the server asks to wait (retry.After:
// Retry-After-Ms, else Retry-After in seconds or as an HTTP date), at most
// maxRetryAfter; retryBackoff when it names no usable wait.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if wait, ok := retry.After(h, now); ok {
		return min(wait, maxRetryAfter)
	}
	return retryBackoff
}

// maxRetryAfter caps a server's wait; any wait this long overruns every
// deadline anyway.
const maxRetryAfter = time.Hour
