package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

// TestSlackManifest reads slack-manifest.yaml into slack-go's Manifest
// type (unknown keys refused, so a misspelt key fails here and not in
// Slack's app page) and checks what fitbot needs of the app.
func TestSlackManifest(t *testing.T) {
	raw, err := os.ReadFile("../../slack-manifest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := parseYAMLSubset(string(raw))
	if err != nil {
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
	// every other channel message.
	wantScopes := []string{"commands", "chat:write", "app_mentions:read", "im:history", "channels:history", "groups:history", "chat:write.public"}
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

// parseYAMLSubset reads the YAML the manifest uses: block maps and
// sequences by indentation, scalars (quoted strings, true/false,
// integers, plain strings) and whole-line comments. Anything else is an
// error, so the manifest stays in this subset.
func parseYAMLSubset(src string) (any, error) {
	type line struct {
		n, indent int
		text      string
	}
	var lines []line
	for i, l := range strings.Split(src, "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.Contains(l, "\t") {
			return nil, fmt.Errorf("line %d: tab in indentation", i+1)
		}
		lines = append(lines, line{n: i + 1, indent: len(l) - len(trimmed), text: strings.TrimRight(trimmed, " ")})
	}
	scalar := func(s string) (any, error) {
		switch {
		case strings.HasPrefix(s, `"`):
			return strconv.Unquote(s)
		case s == "true" || s == "false":
			return s == "true", nil
		case strings.ContainsAny(s, "#{}[]&*!|>'%@`"):
			return nil, fmt.Errorf("%q needs quotes or is outside the subset", s)
		}
		if n, err := strconv.Atoi(s); err == nil {
			return n, nil
		}
		return s, nil
	}
	var block func(i, indent int) (any, int, error)
	block = func(i, indent int) (any, int, error) {
		if strings.HasPrefix(lines[i].text, "- ") {
			var seq []any
			for i < len(lines) && lines[i].indent == indent && strings.HasPrefix(lines[i].text, "- ") {
				item := strings.TrimPrefix(lines[i].text, "- ")
				if !strings.HasPrefix(item, `"`) && (strings.Contains(item, ": ") || strings.HasSuffix(item, ":")) {
					lines[i] = line{n: lines[i].n, indent: indent + 2, text: item} // a map starts on the dash's line
					v, next, err := block(i, indent+2)
					if err != nil {
						return nil, 0, err
					}
					seq, i = append(seq, v), next
					continue
				}
				v, err := scalar(item)
				if err != nil {
					return nil, 0, fmt.Errorf("line %d: %w", lines[i].n, err)
				}
				seq, i = append(seq, v), i+1
			}
			return seq, i, nil
		}
		m := map[string]any{}
		for i < len(lines) && lines[i].indent == indent {
			key, rest, ok := strings.Cut(lines[i].text, ":")
			if !ok {
				return nil, 0, fmt.Errorf("line %d: want key: value", lines[i].n)
			}
			if _, dup := m[key]; dup {
				return nil, 0, fmt.Errorf("line %d: key %s twice", lines[i].n, key)
			}
			rest = strings.TrimSpace(rest)
			if rest != "" {
				v, err := scalar(rest)
				if err != nil {
					return nil, 0, fmt.Errorf("line %d: %w", lines[i].n, err)
				}
				m[key], i = v, i+1
				continue
			}
			if i+1 >= len(lines) || lines[i+1].indent < indent || (lines[i+1].indent == indent && !strings.HasPrefix(lines[i+1].text, "- ")) {
				return nil, 0, fmt.Errorf("line %d: %s has no value", lines[i].n, key)
			}
			v, next, err := block(i+1, lines[i+1].indent)
			if err != nil {
				return nil, 0, err
			}
			m[key], i = v, next
		}
		if i < len(lines) && lines[i].indent > indent {
			return nil, 0, fmt.Errorf("line %d: unexpected indentation", lines[i].n)
		}
		return m, i, nil
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("empty document")
	}
	v, i, err := block(0, 0)
	if err == nil && i != len(lines) {
		err = fmt.Errorf("line %d: unexpected indentation", lines[i].n)
	}
	return v, err
}
