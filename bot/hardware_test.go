package bot

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// TestTeamHardware: a team names its machines, lists and removes them,
// and questions about "our box", or with no GPU at all, are sized on
// them with the assumption said.
func TestTeamHardware(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "fitbot.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	h := newTestHandler(t, func(c *Config) { c.Parse, c.Answer, c.Hardware = sizing.Parse, Fixed{&sizing.Estimator{}}, db })
	ask := func(text string) string { return messageJSON(t, h.Command(ctx, slash(text))) }
	steps := []struct {
		text    string
		want    []string
		notWant []string
	}{
		{"hardware", []string{"The team has named no machines yet"}, nil},
		{"13b qlora", []string{"QLoRA on 1×"}, []string{"the team's"}},
		{"hardware add our box: 2x rtx-4090, 128 GB RAM", []string{"Saved *our box*: 2× RTX 4090 24 GB, 128 GB RAM"}, nil},
		{"hardware add the cluster: 4 nodes of 8 h100", []string{"Saved *the cluster*: 4 machines of 8× H100 SXM 80 GB"}, nil},
		{"hardware", []string{"*our box*: 2× RTX 4090 24 GB, 128 GB RAM", "*the cluster*: 4 machines of 8× H100"}, nil},
		{"can we qlora llama 3 8b on our box?", []string{"on 2× RTX 4090 24 GB", `\"our box\" is the team's 2× RTX 4090 24 GB, 128 GB RAM`}, nil},
		{"llama 3.1 70b full on the cluster", []string{"32× H100", `\"the cluster\" is the team's 4 machines of 8× H100 SXM 80 GB`}, nil},
		{"13b qlora", []string{"2× RTX 4090", `no GPU named: sized on \"our box\"`, "the smallest of the team's 2 machines it fits on"}, nil},
		{"13b qlora 4090", []string{"1× RTX 4090"}, []string{"the team's"}},
		{"hardware add box: 13b lora 4090", []string{"is a question, not hardware"}, nil},
		{"hardware remove our box", []string{"Removed our box"}, nil},
		{"hardware remove our box", []string{"The team has no machine named “our box”"}, nil},
		{"hardwre", []string{"There is no subcommand “hardwre”"}, nil},
	}
	for _, s := range steps {
		got := ask(s.text)
		for _, w := range s.want {
			if !strings.Contains(got, w) {
				t.Errorf("/fit %s: reply lacks %s:\n%s", s.text, w, got)
			}
		}
		for _, w := range s.notWant {
			if strings.Contains(got, w) {
				t.Errorf("/fit %s: reply has %s:\n%s", s.text, w, got)
			}
		}
	}
	other := slash("hardware")
	other.TeamID = "T0OTHER"
	if got := messageJSON(t, h.Command(ctx, other)); !strings.Contains(got, "no machines yet") {
		t.Errorf("another team sees the machines:\n%s", got)
	}
}
