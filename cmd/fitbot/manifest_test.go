package main

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	"go.yaml.in/yaml/v3"
)

// TestSlackManifest reads slack-manifest.yaml into slack-go's Manifest
// type (unknown keys refused, so a misspelt key fails here and not in
// Slack's app page) and checks what fitbot needs of the app.
func TestSlackManifest(t *testing.T) {
	raw, err := os.ReadFile("../../slack-manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("slack-manifest.yaml: %v", err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var m slack.Manifest
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("slack-manifest.yaml as a slack.Manifest: %v", err)
	}

	if m.Display.Name != "fitbot" || m.Display.Description == "" {
		t.Errorf("display = %+v, want a name and a description", m.Display)
	}
	if n := len(m.Display.LongDescription); n < 175 || n > 4000 {
		t.Errorf("long_description is %d characters; Slack wants 175 to 4000", n)
	}
	if len(m.Features.SlashCommands) != 1 {
		t.Fatalf("slash commands = %+v, want /fit alone", m.Features.SlashCommands)
	}
	fit := m.Features.SlashCommands[0]
	if fit.Command != "/fit" || fit.UsageHint == "" || fit.Description == "" || len(fit.Description) > 100 || fit.Url != "" {
		t.Errorf("/fit = %+v, want a description (100 characters at most), a usage hint, no URL in Socket Mode", fit)
	}
	// channels:history and groups:history carry the replies in the threads
	// of fitbot's own answers (DESIGN.md, second round); the bot ignores
	// every other channel message. files:write uploads the pictures and
	// launch-config snippets.
	wantScopes := []string{"commands", "chat:write", "app_mentions:read", "im:history", "channels:history", "groups:history", "chat:write.public", "files:write"}
	if diff := cmp.Diff(wantScopes, m.OAuthConfig.Scopes.Bot); diff != "" {
		t.Errorf("bot scopes (-want +got):\n%s", diff)
	}
	for _, s := range []string{"mpim:history", "channels:read", "users:read"} {
		if slices.Contains(m.OAuthConfig.Scopes.Bot, s) {
			t.Errorf("scope %s reads what fitbot has no business reading", s)
		}
	}
	ev := m.Settings.EventSubscriptions
	if ev == nil || !cmp.Equal(ev.BotEvents, []string{"app_mention", "message.im", "message.channels", "message.groups"}) || ev.RequestUrl != "" {
		t.Errorf("event subscriptions = %+v, want app_mention, message.im and the thread replies, no URL in Socket Mode", ev)
	}
	if it := m.Settings.Interactivity; it == nil || !it.IsEnabled || it.RequestUrl != "" {
		t.Errorf("interactivity = %+v, want enabled, no URL in Socket Mode", it)
	}
	if !m.Settings.SocketModeEnabled {
		t.Error("socket_mode_enabled is not true")
	}
	if h := m.Features.AppHome; !h.MessagesTabEnabled || h.MessagesTabReadOnlyEnabled {
		t.Errorf("app_home = %+v, want the Messages tab open for DMs", h)
	}
	for _, path := range []string{"/slack/commands", "/slack/events", "/slack/interactions"} {
		if !strings.Contains(string(raw), path) {
			t.Errorf("the manifest's HTTP-mode notes do not name %s", path)
		}
	}
}
