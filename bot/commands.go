package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
	"github.com/slack-go/slack"
)

// subcommands are the words that start a `/fit` subcommand rather than a question.
var subcommands = []string{"help", "plans", "plan", "prices", "gpus", "models", "hardware", "cluster", "calibration"}

// maxPlansListed is how many plans `/fit plans` shows.
const maxPlansListed = 10

// who is the asker of a command, as the plan records them.
type who struct {
	team, channel, user string
	kind                store.ChannelKind // the kind of conversation: who else may read its plans
}

// slashAsker is who sent a slash command, from where.
func slashAsker(cmd slack.SlashCommand) who {
	return who{team: cmd.TeamID, channel: cmd.ChannelID, user: cmd.UserID, kind: store.SlackChannelKind(cmd.ChannelID, cmd.ChannelName)}
}

// scope is the plans the asker reads from where they asked.
func (w who) scope() store.Scope { return store.Viewer(w.team, w.channel, w.user) }

// saver is the asker as a saved plan records them.
func (w who) saver() store.Who {
	return store.Who{Source: store.SourceSlack, Team: w.team, Channel: w.channel, User: w.user, Kind: w.kind}
}

// Command answers one `/fit` slash command. The message it returns is the
// acknowledgement; an answer that needs the language model is posted
// later through the command's response_url, and the acknowledgement says
// so. It never panics: a panic becomes an apology and a log line.
func (h *Handler) Command(ctx context.Context, cmd slack.SlashCommand) Message {
	return h.command(ctx, cmd, slashAsker(cmd))
}

// command is Command for an asker known by the transport (an event says
// the kind of its conversation, a slash command its channel's name).
func (h *Handler) command(ctx context.Context, cmd slack.SlashCommand, asker who) (msg Message) {
	defer func() {
		if p := recover(); p != nil {
			h.log.Error("bot: panic answering a command", "panic", p, "team", cmd.TeamID, "user", cmd.UserID)
			msg = apology()
		}
	}()
	if !h.cfg.Policy.allows(cmd.TeamID, cmd.ChannelID) {
		h.log.Info("bot: command refused by policy", "team", cmd.TeamID, "channel", cmd.ChannelID, "user", cmd.UserID)
		return ephemeral("fitbot is not enabled here. Ask your Slack admin to add this workspace or channel to FITBOT_ALLOWED_TEAMS / FITBOT_ALLOWED_CHANNELS.").withOutcome(OutcomeRefused)
	}
	text := strings.TrimSpace(strings.ToValidUTF8(cmd.Text, "\uFFFD"))
	word, rest, _ := strings.Cut(text, " ")
	word, rest = strings.ToLower(word), strings.TrimSpace(rest)
	switch word {
	case "", "help", "-h", "--help", "?":
		return h.static().help
	case "gpus", "gpu":
		if rest == "" { // "gpus for 200 users of llama 3 8b" is a serving question
			return h.static().gpus
		}
	case "models", "model":
		return h.modelsMessage(ctx)
	}
	if !h.limiter.allow(cmd.UserID, h.now()) {
		return ephemeral(fmt.Sprintf("You're asking faster than fitbot answers (%d a minute). Try again in a minute.", h.cfg.Policy.PerUserPerMinute)).withOutcome(OutcomeRateLimited)
	}
	switch word {
	case "plans":
		return h.plansCommand(ctx, asker.scope(), rest)
	case "plan":
		if id, measured, ok := answer.MeasuredWords(rest); ok {
			return h.measuredCommand(ctx, asker, id, measured)
		}
		return h.planCommand(ctx, asker.scope(), rest)
	case "calibration":
		return h.calibrationCommand(ctx, asker)
	case "prices", "price":
		return h.pricesCommand(ctx, cmd, rest)
	case "hardware", "machines":
		return h.hardwareCommand(ctx, cmd.TeamID, rest)
	case "cluster":
		if rest == "" {
			return h.clusterCommand(ctx, cmd.TeamID)
		}
	}
	if h.replies != nil {
		// Only sizing questions are kept by their words, so a hit needs no routing.
		if e := h.replies.getText(h.cfg.AnswerVersion(), text); e != nil {
			return h.cachedAnswer(ctx, asker, e)
		}
	}
	q := h.answers.Read(text)
	if len(q.Parsed.Alternatives) >= 2 {
		return h.handle(ctx, asker, q) // the words ask one of several things alike: asked which
	}
	if msg, ok := h.routed(ctx, asker, q.Route); ok {
		return withOutside(msg, q.Text)
	}
	return h.question(ctx, asker, cmd.ResponseURL, q)
}

// modelsMessage is `/fit models`: the catalog and the Hub models fetched
// most recently.
func (h *Handler) modelsMessage(ctx context.Context) Message {
	tip := "Any size works too: `/fit 13B lora 4090`, `/fit 8x7B inference 2xa100`. So does any Hugging Face Hub model, by its id or link: `/fit Qwen/Qwen3-1.7B lora h100`."
	hubModels, more := h.hubEntries(ctx)
	if more {
		tip = fmt.Sprintf("The %d Hugging Face Hub models fetched most recently are listed; older ones are cached too. ", maxListedHubModels) + tip
	}
	return catalogMessage("Models fitbot knows", tip, append(modelEntries(), hubModels...))
}

// question answers a sizing question, read (route and parse) but not
// yet resolved, through answer.Service.HandleQuestion. With a
// responseURL, one that waits on the Hugging Face Hub is answered within
// the acknowledgement budget or later, and one the language model reads
// is acknowledged at once and answered later; without one (mentions and
// DMs, already in the background) every answer is waited for.
func (h *Handler) question(ctx context.Context, asker who, responseURL string, q answer.Question) Message {
	q.Scope = asker.scope() // the asker's measured runs are said on the answer
	if responseURL != "" {
		switch {
		case h.answers.NeedsHub(q):
			what := q.Parsed.Hub
			if what == "" {
				what = "“" + q.Parsed.Missing.Words + "”"
			}
			return h.inBackground(ctx, asker, responseURL, q, hubAckBudget, ephemeral("Looking up "+what+" on the Hugging Face Hub…", slack.NewContextBlock("",
				mrkdwn(fmt.Sprintf("_Looking up_ %s _on the Hugging Face Hub; the answer follows in a moment._", escape(display.Truncate(what, 200)))))).
				withOutcome(OutcomeInterpreting))
		case h.answers.AsksModel(q):
			return h.inBackground(ctx, asker, responseURL, q, 0, ephemeral("Interpreting your question…", slack.NewContextBlock("",
				mrkdwn(fmt.Sprintf("_Reading_ “%s” _with the language model; the answer follows in a moment._", escape(display.Truncate(q.Text, 200)))))).
				withOutcome(OutcomeInterpreting))
		}
	}
	return h.handle(ctx, asker, q)
}

// handle answers q (answer.Service.HandleQuestion decides what it is,
// asks the language model when it comes to that, and keeps the answer as
// a plan) and renders the result.
func (h *Handler) handle(ctx context.Context, asker who, q answer.Question) Message {
	r, err := h.answers.HandleQuestion(ctx, asker.answerWho(h.cfg.Plans != nil), q)
	if err != nil {
		h.log.Error("bot: answering failed", "err", err)
		return apology()
	}
	return withOutside(h.render(ctx, asker, r), q.Text)
}

// withOutside puts first in msg, the answer to text, what text asks that
// fitbot cannot do (answer.OutsideLines).
func withOutside(msg Message, text string) Message {
	for _, line := range slices.Backward(answer.OutsideLines(text)) {
		msg = withFirstLine(msg, line)
	}
	return msg
}

// answerWho is the asker as answer keeps their plans; keep asks for the
// answer to be kept.
func (w who) answerWho(keep bool) answer.Who {
	return answer.Who{Team: w.team, Channel: w.channel, User: w.user, ChannelKind: string(w.kind), Keep: keep}
}

// render is the reply to a handled question: the answer of its kind,
// or, for a question nothing answered, what to say instead.
func (h *Handler) render(ctx context.Context, asker who, r answer.Result) Message {
	h.planKept(r)
	var msg Message
	switch {
	case r.Kind == answer.KindCluster:
		return h.clusterCommand(ctx, asker.team)
	case r.Fit != nil:
		return h.withLaunch(ctx, r, h.fitReply(ctx, asker, r))
	case r.Kind == answer.KindClarify:
		return h.clarifyReply(r)
	case r.Compare != nil:
		msg = answered(r.Compare.Summary, compareBlocks(*r.Compare)...)
	case r.Ask != nil:
		msg = h.askReply(r)
	default:
		// The language model read a question of another kind (prices, plans, help).
		var ok bool
		if msg, ok = h.routed(ctx, asker, r.Question.Route); !ok {
			msg = h.unanswered(r.Question, r.Question.Err)
		}
	}
	if r.Interpreted {
		msg.Blocks = append(msg.Blocks, slack.NewContextBlock("", mrkdwn(interpretedNote)))
	}
	if r.ModelError != nil {
		msg = modelUnavailable(msg)
	}
	return msg
}

// planKept logs a plan that could not be kept (once per interval while
// it repeats: a full disk fails every answer): the answer still goes,
// without the "kept" line, for the estimate does not need the database.
func (h *Handler) planKept(r answer.Result) {
	switch {
	case r.PlanErr != nil:
		h.failures.Error(h.log, "save-plan", "bot: saving the plan failed; answered without keeping it", "err", r.PlanErr)
	case r.PlanID != 0:
		h.failures.OK(h.log, "save-plan", "bot: plans are saved again")
	}
}

// clarifyReply is the reply to a question asked back about: a button
// per thing it may ask when the reader was unsure which (Alternatives),
// the language model's question back, or else unanswered's reply, marked
// when the model was asked and unavailable.
func (h *Handler) clarifyReply(r answer.Result) Message {
	if msg, ok := clarifyMessage(r.Question.Text, readingChoices(r.Alternatives)); ok {
		return msg // one of several things asked alike: a button for each
	}
	if back, ok := answer.QuestionBack(r.Err); ok {
		return questionBack(back)
	}
	if errors.Is(r.Err, answer.ErrCannotAsk) {
		return h.askFailure(r.Question.Text, r.Err)
	}
	msg := h.unanswered(r.Question, r.Err)
	if r.ModelError != nil {
		msg = modelUnavailable(msg)
	}
	return msg
}

// unanswered is the reply to a question nothing could answer, err why:
// help when it had nothing to size (a mistyped subcommand keeps its own
// message), else the grammar's (or the Hub's, or the estimator's) own
// message.
func (h *Handler) unanswered(q answer.Question, err error) Message {
	if first, _, _ := strings.Cut(strings.ToLower(q.Text), " "); nothingToSize(q.Parsed, err) && nearSubcommand(first) == "" {
		return notASizingQuestion(h.cfg.ModelReader != nil)
	}
	return h.failure(q.Text, err)
}

// fitReply renders a fit result: the buttons carry the canonical
// question, so that they work whether or not the plan was kept. A
// question answered before under the same AnswerVersion is rendered from
// the reply cache (replycache.go): the same Block Kit, with this plan's
// id and the price's age as of now.
func (h *Handler) fitReply(ctx context.Context, asker who, r answer.Result) Message {
	q, f := r.Question, r.Fit
	text, p := q.Text, q.Parsed
	note := ""
	switch {
	case r.Interpreted:
		note = interpretedNote
	case r.ModelError != nil:
		note = modelUnavailableNote
	}
	canonical := sizing.Format(p.Query)
	view := answerView{note: note, now: h.now(), ref: queryRef(canonical, text), planID: r.PlanID, kept: r.Listed}
	h.results.put(view.ref, r)
	// An answer that says the asker's measured runs is theirs alone: never
	// kept for, nor served from, the words.
	cache := h.replies != nil && cacheable(p, canonical, note) && !h.answers.HasRuns(ctx, asker.scope())
	var version uint64
	if cache {
		version = h.cfg.AnswerVersion()
		if e := h.replies.get(version, canonical, p.Query); e != nil {
			return withPicture(e.message(view, f.Answer), picture{fit: &f.Estimate})
		}
	}
	// What the parser assumed or corrected ("lorra" read as "lora", a typed
	// memory, words not used) comes first.
	a := f.Answer
	blocks := answerBlocks(a, view)
	if next := nextSteps(p.Query, a); next != nil {
		blocks = append(blocks, next)
	}
	msg := withPicture(answered(answerText(a), blocks...), picture{fit: &f.Estimate})
	if f.Lead != "" {
		msg = withFirstLine(msg, escape(f.Lead))
	}
	msg.question = canonical
	if cache {
		if e, ok := newCachedReply(r, view.ref, msg); ok {
			// By its words, the reply is found without a parse: it keeps the
			// notes those words gave. Words that leave the card to the team's
			// machines may be another team's question, and words about the
			// live cluster may land elsewhere a moment later: those by
			// canonical only; and words the language model reads too are
			// read again when asked again.
			teamFree := q.SameForEveryTeam() || h.cfg.Hardware == nil && h.cfg.Cluster == nil
			h.replies.put(version, canonical, "", e)
			if teamFree && !h.answers.AsksModel(q) {
				h.replies.put(version, canonical, text, e)
			}
		}
	}
	return msg
}

// cachedAnswer is the reply found in the cache by the words asked: its
// result kept as a plan again for this asker (answer.Service.Keep), and
// the context line made for that plan and for now.
func (h *Handler) cachedAnswer(ctx context.Context, asker who, e *cachedReply) Message {
	r := e.result
	h.answers.Keep(ctx, asker.answerWho(h.cfg.Plans != nil), &r)
	h.planKept(r)
	view := answerView{now: h.now(), ref: e.ref, planID: r.PlanID, kept: r.Listed}
	h.results.put(view.ref, r)
	return withPicture(e.message(view, r.Fit.Answer), picture{fit: &r.Fit.Estimate})
}

// saveBudget bounds the wait for a plan's commit, well inside Slack's
// 3-second acknowledgement budget. The store writes plans saved at the
// same time in one transaction, so the wait is a commit (a millisecond or
// two), unless the single writer is held by something long.
const saveBudget = 1500 * time.Millisecond

// failure turns an error into the reply: what was not understood and an
// example that works for input errors, an apology (and a log line with
// the detail) for anything else.
func (h *Handler) failure(text string, err error) Message {
	if he, ok := asHinted(err); ok {
		return hintedMessage(he)
	}
	var in *sizing.InputError
	if !errors.As(err, &in) {
		h.log.Error("bot: answering failed", "err", err)
		return apology()
	}
	word, rest, _ := strings.Cut(strings.ToLower(strings.TrimSpace(text)), " ")
	if sub := nearSubcommand(word); sub != "" {
		return errorMessage(fmt.Sprintf("There is no subcommand “%s”.", word), strings.TrimSpace(sub+" "+rest))
	}
	return errorMessage(in.Problem, in.Hint)
}

// nearSubcommand returns the subcommand a mistyped first word was most
// likely meant to be, or "".
func nearSubcommand(word string) string {
	if len(word) < 3 {
		return ""
	}
	allowed := 1
	if len(word) >= 5 {
		allowed = 2
	}
	for _, s := range subcommands {
		if word != s && editDistance(word, s) <= allowed {
			return s
		}
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// The two kinds of button value: a saved plan, or the canonical query
// itself when no store is configured. Either is re-parsed on a click,
// never trusted beyond that.
const (
	refPlan  = "plan:"
	refQuery = "q:"
)

func planRef(id int64) string { return refPlan + strconv.FormatInt(id, 10) }

// queryRef carries the canonical form of a question, or the question
// itself when it has none; one that would not fit a button gets no buttons.
func queryRef(canonical, text string) string {
	q := canonical
	if q == "" {
		q = text
	}
	if len(refQuery)+len([]rune(q)) > maxActionValue {
		return ""
	}
	return refQuery + q
}

// escape makes user text safe inside mrkdwn: Slack's three control characters.
func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// questionBack is the language model's question back to the asker.
func questionBack(q string) Message {
	return ephemeral("I couldn't use that: "+q,
		slack.NewSectionBlock(mrkdwn(":thinking_face: "+escape(q)), nil, nil),
		slack.NewContextBlock("", mrkdwn("`/fit help` shows what fitbot understands."))).withOutcome(OutcomeNotUnderstood)
}
