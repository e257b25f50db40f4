package main

import (
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeIdleConnectionsMakeRoom: with the --http listener capped at
// 16 and 60 connections open that never send a request, a signed slash
// command and /healthz on the same listener are still answered: the
// oldest idle connections are closed to admit them.
func TestServeIdleConnectionsMakeRoom(t *testing.T) {
	if testing.Short() {
		t.Skip("starts serve")
	}
	slack := newFakeSlack(t)
	env := baseEnv(t, slack.GetAPIURL())
	env["SLACK_SIGNING_SECRET"] = fakeSigning
	env["FITBOT_MAX_CONNS"] = "16"
	env["FITBOT_HEALTH_ADDR"] = "off"
	run := startServe(t, env, "--http", "127.0.0.1:0")
	base := run.addr(t, "http")
	for range 60 {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	time.Sleep(100 * time.Millisecond) // all accepted
	if code, body := signedSlash(t, base, "13b lora 4090", ""); code != http.StatusOK || !strings.Contains(body, "13B") {
		t.Errorf("slash command among idle connections: %d %.200s", code, body)
	}
	resp, err := (&http.Client{Timeout: 3 * time.Second}).Get(base + "/healthz")
	if err != nil {
		t.Fatalf("/healthz among idle connections: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz: %d", resp.StatusCode)
	}
}
