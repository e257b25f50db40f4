package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/slack-go/slack/slackevents"

	"github.com/fitbot/fitbot/slackoauth"
)

// TestEventsManyWorkspaces: installed in many workspaces (no BotUserID,
// an Uninstalled hook), the bot user comes from the event's
// authorizations, the answer is posted under the event's workspace, and
// a tokens_revoked naming the bot forgets the installation (org-wide
// here) while one naming only a user's token does not.
func TestEventsManyWorkspaces(t *testing.T) {
	f := newEventsFixture(t, nil)
	var (
		mu     sync.Mutex
		forgot []string
		teams  []string
	)
	post := postFunc(func(ctx context.Context, channel, thread string, msg Message) (string, error) {
		e, team, _ := slackoauth.WorkspaceOf(ctx)
		mu.Lock()
		teams = append(teams, e+"/"+team)
		mu.Unlock()
		return "1764464400.000300", nil
	})
	e, err := NewEvents(EventsConfig{Handler: f.h, Seen: f.db, Post: post, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Uninstalled: func(_ context.Context, enterpriseID, teamID string, enterpriseInstall bool) error {
			mu.Lock()
			defer mu.Unlock()
			if enterpriseInstall {
				teamID = "*"
			}
			forgot = append(forgot, enterpriseID+"/"+teamID)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"app_mention.json", "app_mention_from_bot.json", "tokens_revoked.json", "tokens_revoked_user.json"} {
		ev, err := slackevents.ParseEvent(json.RawMessage(readTestdata(t, file)), slackevents.OptionNoVerifyToken())
		if err != nil {
			t.Fatal(err)
		}
		e.HandleEvent(context.Background(), ev)
	}
	f.h.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(teams) != 1 || teams[0] != "/T1DC2JH3J" {
		t.Errorf("answers posted under workspaces %v, want one under T1DC2JH3J (the bot's own message ignored)", teams)
	}
	if len(forgot) != 1 || forgot[0] != "E0GRID001/*" {
		t.Errorf("installations forgotten: %v, want only the org-wide E0GRID001", forgot)
	}
}

// postFunc is a ThreadPoster from a function.
type postFunc func(ctx context.Context, channel, thread string, msg Message) (string, error)

func (p postFunc) Post(ctx context.Context, channel, thread string, msg Message) (string, error) {
	return p(ctx, channel, thread, msg)
}
