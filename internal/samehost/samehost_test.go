package samehost

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// elsewhere is another host that records the headers it was sent.
type elsewhere struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.headers = append(e.headers, r.Header.Clone())
		e.mu.Unlock()
		io.WriteString(w, `{"items":[]}`)
	}))
	t.Cleanup(e.Close)
	return e
}

// redirector answers /same with a redirect to its own /final and /away
// with one to to.
func redirector(t *testing.T, to string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/final", http.StatusFound)
		case "/away":
			http.Redirect(w, r, to+"/stolen", http.StatusFound)
		default:
			io.WriteString(w, "here")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, c *http.Client, u string) (string, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	req.Header.Set("X-SLURM-USER-TOKEN", "jwt")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b), nil
}

func TestRefuse(t *testing.T) {
	away := newElsewhere(t)
	srv := redirector(t, away.URL)
	c := Client(srv.Client())
	if body, err := get(t, c, srv.URL+"/same"); err != nil || body != "here" {
		t.Errorf("same-host redirect: %q, %v", body, err)
	}
	_, err := get(t, c, srv.URL+"/away")
	re, ok := As(err)
	if !ok || re.To != away.URL || re.From != srv.URL || !strings.Contains(err.Error(), "redirected to another host") {
		t.Errorf("cross-host redirect: %v", err)
	}
	if len(away.headers) != 0 {
		t.Errorf("the other host was asked %d times", len(away.headers))
	}
}

func TestStrip(t *testing.T) {
	away := newElsewhere(t)
	srv := redirector(t, away.URL)
	c := StripClient(nil)
	if body, err := get(t, c, srv.URL+"/away"); err != nil || body != `{"items":[]}` {
		t.Fatalf("cross-host redirect: %q, %v", body, err)
	}
	h := away.headers[0]
	if h.Get("Authorization") != "" || h.Get("X-Slurm-User-Token") != "" || h.Get("Accept") != "application/json" {
		t.Errorf("the other host got headers %v", h)
	}
}
