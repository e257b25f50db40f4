package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/store"
)

// Where the plans of the scope tests were asked: workspace A's public
// channel, A's private channel, a DM with fitbot in A, and B's public
// channel. Channel and user ids repeat across workspaces on purpose: the
// workspace alone must keep B out.
var scopeAskers = []slack.SlashCommand{
	{TeamID: "TA0000001", ChannelID: "C0PUBLIC", ChannelName: "ml-infra", UserID: "UASKER"},
	{TeamID: "TA0000001", ChannelID: "C0SECRET", ChannelName: "privategroup", UserID: "UASKER"},
	{TeamID: "TA0000001", ChannelID: "D0ASKER", ChannelName: "directmessage", UserID: "UASKER"},
	{TeamID: "TB0000002", ChannelID: "C0PUBLIC", ChannelName: "ml-infra", UserID: "UASKER"},
}

// askScoped keeps one 13B plan from each of scopeAskers (ids 1 to 4).
func askScoped(t *testing.T, h *Handler) {
	t.Helper()
	for i, cmd := range scopeAskers {
		cmd.Command, cmd.Text = "/fit", fmt.Sprintf("13B lora 4090 seq %d", 1024*(i+1))
		msg := h.Command(context.Background(), cmd)
		if want := fmt.Sprintf("as plan %d", i+1); !strings.Contains(messageJSON(t, msg), want) {
			t.Fatalf("asking from %+v: no %q in\n%s", cmd, want, messageJSON(t, msg))
		}
	}
}

// from is a slash command with text sent by user from a channel.
func from(team, channel, name, user, text string) slack.SlashCommand {
	return slack.SlashCommand{TeamID: team, ChannelID: channel, ChannelName: name, UserID: user, Command: "/fit", Text: text}
}

// TestPlanScopeCommands: `/fit plan N` and `/fit plans MODEL` read a plan
// only where it may be read, and a plan from elsewhere reads exactly as
// a missing one.
func TestPlanScopeCommands(t *testing.T) {
	h, db := newRealHandler(t)
	askScoped(t, h)
	ctx := context.Background()
	readers := []struct {
		name string
		cmd  slack.SlashCommand
		want []int64 // plans it reads
	}{
		{"A, another public channel, someone else", from("TA0000001", "C0OTHER", "random", "UOTHER", ""), []int64{1}},
		{"A, the private channel, someone else", from("TA0000001", "C0SECRET", "privategroup", "UOTHER", ""), []int64{1, 2}},
		{"A, the asker anywhere", from("TA0000001", "C0OTHER", "random", "UASKER", ""), []int64{1, 2, 3}},
		{"B, same channel and user ids", from("TB0000002", "C0PUBLIC", "ml-infra", "UASKER", ""), []int64{4}},
		{"B, someone else", from("TB0000002", "C0B", "general", "UBOTHER", ""), []int64{4}},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			for id := int64(1); id <= 4; id++ {
				cmd := r.cmd
				cmd.Text = "plan " + itoa(id)
				got := messageJSON(t, h.Command(ctx, cmd))
				missing := cmd
				missing.Text = "plan " + itoa(id+1000)
				absent := strings.ReplaceAll(messageJSON(t, h.Command(ctx, missing)), itoa(id+1000), itoa(id))
				if reads := containsID(r.want, id); reads && !strings.Contains(got, "*Plan #"+itoa(id)+"* from") {
					t.Errorf("/fit plan %d does not re-answer it:\n%s", id, got)
				} else if !reads && got != absent {
					t.Errorf("/fit plan %d from outside its scope:\n%s\nwant exactly the missing plan's reply:\n%s", id, got, absent)
				}
			}
			cmd := r.cmd
			cmd.Text = "plans 13B"
			list := messageJSON(t, h.Command(ctx, cmd))
			for id := int64(1); id <= 4; id++ {
				if listed := strings.Contains(list, "*#"+itoa(id)+"*"); listed != containsID(r.want, id) {
					t.Errorf("/fit plans 13B lists plan %d: %v, want %v\n%s", id, listed, containsID(r.want, id), list)
				}
			}
			if strings.Contains(list, "seq 3072") && !containsID(r.want, 3) {
				t.Errorf("the DM's question leaks into the list:\n%s", list)
			}
		})
	}
	// The kinds kept.
	for id, want := range map[int64]store.ChannelKind{1: store.ChannelPublic, 2: store.ChannelPrivate, 3: store.ChannelDM, 4: store.ChannelPublic} {
		if p, err := db.Plan(ctx, store.AllPlans(), id); err != nil || p.ChannelKind != want {
			t.Errorf("plan %d kept with kind %q (%v), want %q", id, p.ChannelKind, err, want)
		}
	}
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// pressIn is a block_actions callback for one button pressed by user in
// a channel of a workspace.
func pressIn(team, channel, user, action, value string) slack.InteractionCallback {
	var cb slack.InteractionCallback
	cb.Type = slack.InteractionTypeBlockActions
	cb.Team.ID, cb.Channel.ID, cb.User.ID = team, channel, user
	cb.Container.ChannelID = channel
	cb.ResponseURL = "https://hooks.slack.com/actions/T/1/x"
	cb.ActionCallback.BlockActions = []*slack.BlockAction{{ActionID: action, Value: value}}
	return cb
}

// TestPlanScopeButtons: a button carrying another workspace's plan
// number, or a private plan's outside its channel, reads as no plan:
// Share posts nothing in the channel, Details and Re-price and Launch
// config show nothing of it. The workspace and user are the press's,
// never the button's.
func TestPlanScopeButtons(t *testing.T) {
	h, _ := newRealHandler(t)
	askScoped(t, h)
	ctx := context.Background()
	presses := []struct {
		name                string
		team, channel, user string
		id                  int64
		reads               bool
	}{
		{"B presses A's public plan", "TB0000002", "C0PUBLIC", "UASKER", 1, false},
		{"A presses B's plan", "TA0000001", "C0PUBLIC", "UASKER", 4, false},
		{"A, public channel, A's private plan, not the asker", "TA0000001", "C0PUBLIC", "UOTHER", 2, false},
		{"A, public channel, the asker's DM plan, not the asker", "TA0000001", "C0PUBLIC", "UOTHER", 3, false},
		{"A, the private channel, its plan", "TA0000001", "C0SECRET", "UOTHER", 2, true},
		{"A, the asker shares their own DM plan", "TA0000001", "C0PUBLIC", "UASKER", 3, true},
		{"A presses A's public plan", "TA0000001", "C0OTHER", "UOTHER", 1, true},
	}
	for _, p := range presses {
		t.Run(p.name, func(t *testing.T) {
			for _, action := range []string{ActionShare, ActionDetails, ActionReprice} {
				cb := pressIn(p.team, p.channel, p.user, action, planRef(p.id))
				msgs := h.press(ctx, pressedScope(cb), action, planRef(p.id), p.user)
				shared := false
				for _, m := range msgs {
					shared = shared || m.ResponseType == slack.ResponseTypeInChannel
				}
				got := messageJSON(t, msgs[0])
				if p.reads {
					if !strings.Contains(got, "*Plan #"+itoa(p.id)+"* from") || (action == ActionShare) != shared {
						t.Errorf("%s: %d messages, shared %v:\n%s", action, len(msgs), shared, got)
					}
					continue
				}
				if shared || len(msgs) != 1 || !strings.Contains(got, "There is no plan #"+itoa(p.id)+".") || strings.Contains(got, "seq ") {
					t.Errorf("%s out of scope: shared %v, %d messages:\n%s", action, shared, len(msgs), got)
				}
			}
			cb := pressIn(p.team, p.channel, p.user, ActionLaunch, planRef(p.id))
			_, _, failed, ok := h.resultOf(ctx, pressedScope(cb), planRef(p.id))
			if ok != p.reads {
				t.Errorf("Launch config: ok %v, want %v (%s)", ok, p.reads, messageJSON(t, failed))
			}
		})
	}
}

// TestPlanScopeEvents: a DM and a mention are read with their own
// conversation's scope: "plan N" in a DM reads the asker's plans and the
// workspace's public ones, nothing of another workspace; a thread reply
// in a private channel keeps its plan private.
func TestPlanScopeEvents(t *testing.T) {
	f := newEventsFixture(t, nil)
	h, db := newRealHandler(t)
	f.h = h
	api, _ := newTestWebAPI(t, f.rec, f.metrics)
	f.events = f.newEvents(t, api)
	askScoped(t, h)
	event := func(id, team, channel, channelType, user, text string) {
		t.Helper()
		body := fmt.Sprintf(`{"token":"XXYYZZ","team_id":%q,"api_app_id":"A0FITBOT","event":{"type":"message","text":%q,"user":%q,"ts":"1764464500.0001%s","team":%q,"channel":%q,"event_ts":"1764464500.000100","channel_type":%q},"type":"event_callback","event_id":"Ev%s","event_time":1764464500}`,
			team, text, user, id, team, channel, channelType, id)
		ev, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
		if err != nil {
			t.Fatal(err)
		}
		f.events.HandleEvent(context.Background(), ev)
		h.Wait()
	}
	event("01", "TB0000002", "D0BUSER", "im", "UASKER", "plan 1")
	event("02", "TA0000001", "D0OTHER", "im", "UOTHER", "plan 3")
	event("03", "TA0000001", "D0ASKER", "im", "UASKER", "plan 2")
	event("04", "TA0000001", "D0OTHER", "im", "UOTHER", "plans 13B")
	event("05", "TA0000001", "D0OTHER", "im", "UOTHER", "13B lora 4090 seq 512")
	posts := f.rec.waitPosts(t, 5)
	for i, want := range []string{"There is no plan #1.", "There is no plan #3.", "*Plan #2* from", "*#1*", "as plan 5"} {
		if got := string(joinBlocks(posts[i])) + posts[i].Text; !strings.Contains(got, want) {
			t.Errorf("reply %d has no %q:\n%s", i+1, want, got)
		}
	}
	if list := string(joinBlocks(posts[3])); strings.Contains(list, "*#2*") || strings.Contains(list, "*#3*") || strings.Contains(list, "*#4*") {
		t.Errorf("a DM lists plans of private channels, other DMs or B:\n%s", list)
	}
	if p, err := db.Plan(context.Background(), store.AllPlans(), 5); err != nil || p.ChannelKind != store.ChannelDM {
		t.Errorf("the DM's plan kept with kind %q (%v), want dm", p.ChannelKind, err)
	}
	if k := eventChannelKind("C0SECRET", slackevents.ChannelTypeGroup); k != store.ChannelPrivate {
		t.Errorf("a message.groups thread reply is kept as %q, want private", k)
	}
	if k := eventChannelKind("C0PUBLIC", slackevents.ChannelTypeChannel); k != store.ChannelPublic {
		t.Errorf("a message.channels thread reply is kept as %q, want public", k)
	}
}

// TestPlanScopeDigest: the digest names only the plans its channel
// reads: its workspace's public plans and those asked in that channel.
func TestPlanScopeDigest(t *testing.T) {
	f := newDigestFixture(t)
	ctx := context.Background()
	for _, w := range []store.Who{
		{Source: store.SourceSlack, Team: "TA0000001", Channel: "C0PUBLIC", User: "U1", Kind: store.ChannelPublic},
		{Source: store.SourceSlack, Team: "TA0000001", Channel: "C0SECRET", User: "U1", Kind: store.ChannelPrivate},
		{Source: store.SourceSlack, Team: "TA0000001", Channel: "C0DIGEST", User: "U1", Kind: store.ChannelPrivate},
		{Source: store.SourceSlack, Team: "TB0000002", Channel: "C0PUBLIC", User: "U1", Kind: store.ChannelPublic},
	} {
		p := store.NewPlan(w, plan.Summary{Kind: plan.KindFit, Question: "q " + w.Team + w.Channel, Canonical: "13B lora rtx-4090 seq " + w.Channel,
			ModelKey: "bare:13000000000", GPU: "h100", GPUs: 1, USDPerHour: new(12.3)})
		p.CreatedAt = digestDue.Add(-48 * 3600e9)
		if _, err := f.db.SavePlan(ctx, &p); err != nil {
			t.Fatal(err)
		}
	}
	in, err := f.db.DigestInput(ctx, store.Viewer("TA0000001", "C0DIGEST", ""), digestDue, digest.DefaultConfig().PlanWindow)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, p := range in.Plans {
		got = append(got, p.ID)
	}
	if fmt.Sprint(got) != "[3 1]" {
		t.Errorf("digest for A's C0DIGEST reads plans %v, want [3 1]", got)
	}
	p, err := NewDigestPoster(DigestPosterConfig{Store: f.db, Slack: f.web, Channel: "C0DIGEST", Holder: "h",
		Plans: store.Viewer("TA0000001", "C0DIGEST", "")})
	if err != nil {
		t.Fatal(err)
	}
	p.clock = f.now.Now
	d, err := p.Build(ctx, digestDue)
	if err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprint(DigestMessage(d))
	if strings.Contains(text, "TB0000002") || strings.Contains(text, "C0SECRET") {
		t.Errorf("digest names a plan of B or of a private channel:\n%s", text)
	}
}
