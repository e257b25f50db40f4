// Package samehost keeps credentials on the host they were meant for.
// An http.Client follows a redirect with the request's headers, and a
// client whose transport adds a bearer token (client-go) sends it to
// wherever the redirect points; Go itself drops Authorization only for
// another domain, not for a subdomain. Refuse is a CheckRedirect for
// clients that carry a credential to one API (Kubernetes, slurmrestd,
// Slack, the language model): a redirect to another scheme or host is an
// error, reported as a *RedirectError, never followed. Strip is one for
// clients that fetch public files which may live behind a CDN (the
// Hugging Face Hub, price lists): it follows, with every credential
// header removed once the host changes.
//
// It imports nothing of fitbot's.
package samehost

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// maxRedirects is how many redirects a client follows, as Go's default.
const maxRedirects = 10

// RedirectError is a redirect Refuse did not follow. From and To are
// origins (scheme and host), never a path or query.
type RedirectError struct {
	From, To string
}

// Error says what was refused.
func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirected to another host (%s); fitbot does not follow it, so its credentials stay on %s", e.From, e.To, e.From)
}

// As returns the RedirectError in err's chain, if any.
func As(err error) (*RedirectError, bool) {
	var re *RedirectError
	ok := errors.As(err, &re)
	return re, ok
}

// origin is a request's scheme and host.
func origin(r *http.Request) string { return r.URL.Scheme + "://" + r.URL.Host }

// Refuse is an http.Client CheckRedirect that follows a redirect only to
// the scheme and host of the first request.
func Refuse(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if from, to := origin(via[0]), origin(req); !strings.EqualFold(from, to) {
		return &RedirectError{From: from, To: to}
	}
	return nil
}

// Strip is an http.Client CheckRedirect that follows redirects, but to
// another scheme or host without Authorization, Cookie or any header
// whose name says it holds a token, key, secret or credential.
func Strip(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if strings.EqualFold(origin(via[0]), origin(req)) {
		return nil
	}
	for name := range req.Header {
		if credential(name) {
			req.Header.Del(name)
		}
	}
	return nil
}

// credential reports whether a header name is one that carries a secret.
func credential(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie":
		return true
	}
	for _, w := range []string{"token", "key", "secret", "auth", "password", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Client returns a copy of c (a new client when c is nil) that refuses
// redirects to another host (Refuse).
func Client(c *http.Client) *http.Client {
	return with(c, Refuse)
}

// StripClient returns a copy of c (a new client when c is nil) that
// follows redirects without its credentials once the host changes (Strip).
func StripClient(c *http.Client) *http.Client {
	return with(c, Strip)
}

func with(c *http.Client, check func(*http.Request, []*http.Request) error) *http.Client {
	var cp http.Client
	if c != nil {
		cp = *c
	}
	cp.CheckRedirect = check
	return &cp
}
