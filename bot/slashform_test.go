package bot

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
)

// formRequest is a POST of body to /slack/commands with that content
// type and raw query.
func formRequest(contentType, rawQuery string, body []byte) *http.Request {
	r := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: "/slack/commands", RawQuery: rawQuery},
		Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

// TestParseSlashCommand: Slack's own body (testdata, from Slack's docs)
// reads field by field; the first of a repeated field wins; what is not
// Slack's plain form is slack-go's to refuse.
func TestParseSlashCommand(t *testing.T) {
	body := readTestdataTB(t, "slash_command.form")
	got, err := parseSlashCommand(formRequest(formContentType, "", body), body)
	if err != nil {
		t.Fatal(err)
	}
	want, err := slack.SlashCommandParse(formRequest(formContentType, "", body))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" || got.TeamID == "" || got.Text == "" {
		t.Errorf("Slack's body (-slack-go +fitbot):\n%s", d)
	}
	twice := []byte("team_id=T1&text=&text=13b+lora&is_enterprise_install=true&is_enterprise_install=false")
	got, err = parseSlashCommand(formRequest(formContentType, "", twice), twice)
	if err != nil || got.Text != "" || got.TeamID != "T1" || !got.IsEnterpriseInstall {
		t.Errorf("repeated fields: %+v, %v; want the first of each", got, err)
	}
	for _, bad := range []string{"text=%zz", "text=a;b", "%="} {
		if _, err := parseSlashCommand(formRequest(formContentType, "", []byte(bad)), []byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	many := []byte(strings.Repeat("a=b&", maxFastParams))
	if _, err := parseSlashCommand(formRequest(formContentType, "", many), many); err == nil {
		t.Errorf("a form of %d fields: no error", maxFastParams+1)
	}
}

// FuzzParseSlashCommand holds parseSlashCommand to slack-go's reading of
// the same request: the same command, and an error exactly when slack-go
// has one.
func FuzzParseSlashCommand(f *testing.F) {
	f.Add(formContentType, "", readTestdataTB(f, "slash_command.form"))
	f.Add(formContentType, "", []byte("team_id=T1&user_id=U1&command=%2Ffit&text=%ff%fe&text=again"))
	f.Add(formContentType+"; charset=utf-8", "", []byte("text=a+b"))
	f.Add(formContentType, "text=%zz", []byte("text=a"))
	f.Add("multipart/form-data", "", []byte("text=a"))
	f.Add("", "", []byte("text=a"))
	f.Add(formContentType, "", []byte("a=b;c=d&&&==&is_enterprise_install=true"))
	f.Add(formContentType, "", []byte("%zz%&text=%2"))
	f.Add("text/plain;;", "", []byte("text=a"))
	f.Fuzz(func(t *testing.T, contentType, rawQuery string, body []byte) {
		got, err := parseSlashCommand(formRequest(contentType, rawQuery, body), body)
		want, wantErr := slack.SlashCommandParse(formRequest(contentType, rawQuery, body))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error %v, slack-go's %v", err, wantErr)
		}
		if d := cmp.Diff(want, got); wantErr == nil && d != "" {
			t.Fatalf("(-slack-go +fitbot):\n%s", d)
		}
	})
}

// BenchmarkParseSlashCommand reads Slack's sample body (BENCHMARKS.md).
func BenchmarkParseSlashCommand(b *testing.B) {
	body := readTestdataTB(b, "slash_command.form")
	b.Run("fitbot", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseSlashCommand(formRequest(formContentType, "", body), body); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("slack-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := slack.SlashCommandParse(formRequest(formContentType, "", body)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
