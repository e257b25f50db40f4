package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
)

// serveBlocks renders a serving answer for a phone, as a fit answer is:
// the verdict that answers the question, what the cards cost to buy when
// owning them was asked, then one short line per configuration. With
// details (the Show details button) each configuration's figures follow
// in a code block of at most 40 columns, one figure a line,
// where a table of seven columns would scroll sideways.
func serveBlocks(a sizing.AskAnswer, details bool) (string, []slack.Block) {
	head := "🧮 Serving " + a.ModelName
	if a.Serve != nil && !a.Serve.MeetsTargets {
		head = "❌ Serving " + a.ModelName + ": does not meet the target"
	}
	blocks := []slack.Block{slack.NewSectionBlock(mrkdwn(display.ServeVerdict(a)), nil, nil)}
	if line := display.ServePurchase(a); line != "" {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn(line), nil, nil))
	}
	rows := display.ServeTable(a)
	if len(rows) < 2 {
		return head, blocks
	}
	if a.Serve.Mode != "capacity" { // a capacity's one configuration is its verdict
		title := "*Cheapest first*"
		switch {
		case !a.Serve.MeetsTargets:
			title = "*Closest*"
		case a.Serve.Fastest:
			title = "*Fastest first*"
		}
		lines := []string{title}
		for _, r := range rows[1:] {
			lines = append(lines, serveOptionLine(r))
		}
		blocks = append(blocks, slack.NewDividerBlock(), slack.NewSectionBlock(mrkdwn(strings.Join(lines, "\n")), nil, nil))
	}
	if details {
		blocks = append(blocks, slack.NewSectionBlock(mrkdwn("```"+serveCards(rows)+"```"), nil, nil))
	}
	return head, blocks
}

// serveOptionLine is one row of display.ServeTable as a short line:
// "• *5 × 2× H100 SXM 80 GB* fp8: 200 users, first token 0.48 s, 20.3
// tok/s each, $21,827/mo".
func serveOptionLine(r []string) string {
	hw, weights, users, ttft, tps, month := r[0], r[1], r[2], r[3], r[4], r[5]
	if users == "0" {
		return fmt.Sprintf("❌ *%s* %s: no room for one request", hw, weights)
	}
	if n, each, ok := strings.Cut(users, "×"); ok { // "5×40": five replicas of 40
		users = totalUsers(n, each)
	}
	noun := "users"
	if users == "1" {
		noun = "user"
	}
	s := fmt.Sprintf("• *%s* %s: %s %s, first token %s, %s tok/s each", hw, weights, users, noun, ttft, tps)
	if month != "—" {
		s += ", " + month + "/mo"
	}
	return s
}

// totalUsers is the users of n replicas of each users, "200" for "5"
// and "40", or "5×40" when either is not a count.
func totalUsers(n, each string) string {
	var a, b int
	if _, err := fmt.Sscanf(n+" "+each, "%d %d", &a, &b); err != nil {
		return n + "×" + each
	}
	return fmt.Sprint(a * b)
}

// serveCards is display.ServeTable turned on its side: each
// configuration's name, then one "figure  value" line per column, so
// that no line is wider than a phone shows.
func serveCards(rows [][]string) string {
	head := rows[0]
	width := 0
	for _, h := range head[1:] {
		width = max(width, len([]rune(h)))
	}
	var b strings.Builder
	for i, r := range rows[1:] {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(r[0])
		for j := 1; j < len(r) && j < len(head); j++ {
			fmt.Fprintf(&b, "\n  %-*s  %s", width, head[j], r[j])
		}
	}
	return b.String()
}

// uploadServeCurve uploads the latency and throughput curve of a serving
// answer a to the query q.
func (h *Handler) uploadServeCurve(ctx context.Context, channel, thread string, a sizing.AskAnswer, q sizing.Query, comment string) error {
	curve, err := answer.ServeCurve(q, a)
	if err != nil {
		return fmt.Errorf("the serving curve: %w", err)
	}
	d := chart.Serve(a, curve)
	png, err := chart.ServePNG(d)
	if err != nil {
		return fmt.Errorf("draw the serving picture: %w", err)
	}
	return h.cfg.Upload.Upload(ctx, File{
		Channel: channel, ThreadTS: thread, Name: "serving.png", Title: d.Title,
		AltText: fmt.Sprintf("%s: tokens per second per user and time to first token against concurrent requests, %d answered", d.Title, d.Answered),
		Comment: comment, Data: png,
	})
}
