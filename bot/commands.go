package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/llm"
	"github.com/fitbot/fitbot/plan"
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
		return h.static().gpus
	case "models", "model":
		tip := "Any size works too: `/fit 13B lora 4090`, `/fit 8x7B inference 2xa100`. So does any Hugging Face Hub model, by its id or link: `/fit Qwen/Qwen3-1.7B lora h100`."
		hubModels, more := h.hubEntries(ctx)
		if more {
			tip = fmt.Sprintf("The %d Hugging Face Hub models fetched most recently are listed; older ones are cached too. ", maxListedHubModels) + tip
		}
		return catalogMessage("Models fitbot knows", tip, append(modelEntries(), hubModels...))
	}
	if !h.limiter.allow(cmd.UserID, h.now()) {
		return ephemeral(fmt.Sprintf("You're asking faster than fitbot answers (%d a minute). Try again in a minute.", h.cfg.Policy.PerUserPerMinute)).withOutcome(OutcomeRateLimited)
	}
	switch word {
	case "plans":
		return h.plansCommand(ctx, asker.scope(), rest)
	case "plan":
		if id, measured, ok := measuredWords(rest); ok {
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
			return h.cachedAnswer(ctx, asker, text, e, nil) // kept by words with its notes (answer)
		}
	}
	q := h.answers.Read(text)
	if msg, ok := clarifyMessage(text, readingChoices(q.Parsed.Alternatives)); ok {
		return msg // the words ask one of several things alike: ask which
	}
	if msg, ok := h.routed(ctx, asker, q.Route); ok {
		return msg
	}
	return h.question(ctx, asker, cmd.ResponseURL, q)
}

// question answers a sizing question, read (route and parse) but not
// yet resolved. A question that needs the Hub is resolved and answered
// within the acknowledgement budget or later (hubQuestion); any other is
// resolved here and answered.
func (h *Handler) question(ctx context.Context, asker who, responseURL string, q answer.Question) Message {
	if h.answers.AboutCluster(q) {
		return h.clusterCommand(ctx, asker.team)
	}
	if h.answers.NeedsHub(q) {
		return h.hubQuestion(ctx, asker, responseURL, q)
	}
	q = h.answers.Resolve(ctx, asker.team, q)
	q.Scope = asker.scope() // the asker's measured runs are said on the answer
	return h.resolved(ctx, asker, responseURL, q)
}

// resolved answers a resolved question. One the language model should
// read (answer.NeedsInterpreter) is acknowledged at once and answered
// through responseURL when there is one, and waited for when there is
// none (mentions and DMs, and the Hub's late answers, already in the
// background). When the model cannot help either, the grammar's own
// message stands, or help when there was nothing to size.
func (h *Handler) resolved(ctx context.Context, asker who, responseURL string, q answer.Question) Message {
	if q.Err == nil && q.Compared() {
		return h.compareAnswer(ctx, q)
	}
	if q.Err == nil && q.Ask() {
		return h.askAnswer(ctx, asker, q)
	}
	if answer.Understood(q) && (h.cfg.Interpreter == nil || !answer.NeedsInterpreter(q)) {
		return h.answer(ctx, asker, q, "")
	}
	if q.Err == nil && !answer.Understood(q) {
		// The grammar read every word it knew but found no model ("can
		// we tune the big one on our box"): the estimator says so, and the
		// language model may still read one.
		if _, q.Err = h.answers.Fit(ctx, q); q.Err == nil {
			return h.answer(ctx, asker, q, "")
		}
	}
	if h.cfg.Interpreter != nil && answer.NeedsInterpreter(q) {
		if responseURL != "" {
			q := q // the closure's own copy: only this path pays for moving it to the heap
			h.later(ctx, "interpret", func(ctx context.Context) {
				msg := h.interpretedOr(ctx, asker, q)
				msg.ReplaceOriginal = true
				h.respond(ctx, responseURL, msg, "interpreted answer")
			})
			return ephemeral("Interpreting your question…", slack.NewContextBlock("",
				mrkdwn(fmt.Sprintf("_Reading_ “%s” _with the language model; the answer follows in a moment._", escape(display.Truncate(q.Text, 200)))))).withOutcome(OutcomeInterpreting)
		}
		return h.interpretedOr(ctx, asker, q)
	}
	return h.unanswered(q)
}

// interpretedOr is the language model's answer to q, or, when the model
// could not help, the grammar's answer to a question it understood and
// unanswered's to any other.
func (h *Handler) interpretedOr(ctx context.Context, asker who, q answer.Question) Message {
	if answer.Understood(q) {
		return h.interpretedToo(ctx, asker, q)
	}
	if msg, ok := h.interpreted(ctx, asker, q.Text); ok {
		return msg
	}
	return modelUnavailable(h.unanswered(q))
}

// interpretedToo answers a question the grammar understood but left
// words in that look like they carry meaning: with what the language
// model reads in them added (answer.Interpreted), marked as interpreted,
// or else as the grammar read it, the words named as not used.
func (h *Handler) interpretedToo(ctx context.Context, asker who, q answer.Question) Message {
	m, err := h.cfg.Interpreter.Interpret(ctx, q.Text)
	if errors.Is(err, llm.ErrUnavailable) {
		h.log.Warn("bot: the language model was unavailable; the grammar's reading stands", "err", err)
		return h.answer(ctx, asker, q, modelUnavailableNote)
	}
	if err != nil {
		h.log.Info("bot: the language model added nothing to the grammar's reading", "err", err)
		return h.answer(ctx, asker, q, "")
	}
	if both, ok := answer.Interpreted(q, m); ok {
		return h.answer(ctx, asker, both, interpretedNote)
	}
	return h.answer(ctx, asker, q, "")
}

// unanswered is the reply to a question nothing could answer: help when
// it had nothing to size (a mistyped subcommand keeps its own message),
// else the grammar's (or the Hub's) own message.
func (h *Handler) unanswered(q answer.Question) Message {
	if first, _, _ := strings.Cut(strings.ToLower(q.Text), " "); nothingToSize(q.Parsed, q.Err) && nearSubcommand(first) == "" {
		return notASizingQuestion(h.cfg.Interpreter != nil)
	}
	return h.failure(q.Text, q.Err)
}

// answer estimates a parsed question, saves it as a plan (waiting for
// the commit) and renders it.
// The buttons carry the canonical question, so that they work whether or
// not the plan has been written yet. A question answered before under the
// same AnswerVersion is served from the reply cache (replycache.go): the
// same estimate and Block Kit, with this plan's id and the price's age as
// of now.
func (h *Handler) answer(ctx context.Context, asker who, q answer.Question, note string) Message {
	text, p := q.Text, q.Parsed
	canonical := sizing.Format(p.Query)
	view := answerView{note: note, now: h.now(), ref: queryRef(canonical, text)}
	// An answer that says the asker's measured runs is theirs alone: never
	// kept for, nor served from, the words.
	cache := h.replies != nil && cacheable(p, canonical, note) && !h.answers.HasRuns(ctx, asker.scope())
	var version uint64
	if cache {
		version = h.cfg.AnswerVersion()
		if e := h.replies.get(version, canonical, p.Query); e != nil {
			return h.cachedAnswer(ctx, asker, text, e, p.Notes)
		}
	}
	f, err := h.answers.Fit(ctx, q)
	if err != nil {
		return h.failure(text, err)
	}
	// What the parser assumed or corrected ("lorra" read as "lora", a typed
	// memory, words not used) comes first. These notes are the asker's
	// words', so the cache keeps the estimate without them (own).
	a, own := f.Answer, f.Estimate
	var kept *keptPlan
	if h.cfg.Plans != nil {
		kept = newKeptPlan(text, p.Query, a)
	}
	h.keep(ctx, asker, text, kept, &view)
	blocks := answerBlocks(a, view)
	if next := nextSteps(p.Query, a); next != nil {
		blocks = append(blocks, next)
	}
	msg := withPicture(answered(answerText(a), blocks...), picture{fit: &own})
	if f.Lead != "" {
		msg = withFirstLine(msg, escape(f.Lead))
	}
	msg.question = canonical
	if cache {
		if e, ok := newCachedReply(p.Query, own, view.ref, kept, msg); ok {
			// By its words, the reply is found without a parse: it keeps the
			// notes those words gave. Words that leave the card to the team's
			// machines may be another team's question, and words about the
			// live cluster may land elsewhere a moment later: those by
			// canonical only; and words the language model reads too
			// (answer.NeedsInterpreter) are read again when asked again.
			teamFree := q.SameForEveryTeam() || h.cfg.Hardware == nil && h.cfg.Cluster == nil
			if teamFree && (h.cfg.Interpreter == nil || !answer.NeedsInterpreter(q)) {
				withNotes := *e
				withNotes.answer = a
				h.replies.put(version, canonical, text, &withNotes)
			}
			h.replies.put(version, canonical, "", e)
		}
	}
	return msg
}

// cachedAnswer is answer for a reply found in the cache: the plan is
// kept as ever, and the context line made for it and for now.
// notes are this asker's parser notes, said first as in a fresh answer.
func (h *Handler) cachedAnswer(ctx context.Context, asker who, text string, e *cachedReply, notes []string) Message {
	if len(notes) > 0 {
		c := *e
		c.answer.Assumptions = sizing.MergeAssumptions(notes, e.answer.Assumptions)
		e = &c
	}
	view := answerView{now: h.now(), ref: e.ref}
	kept := e.kept
	if kept == nil && h.cfg.Plans != nil { // cached before the handler had plans: not in serve
		kept = newKeptPlan(text, e.query, e.answer)
	}
	h.keep(ctx, asker, text, kept, &view)
	return withPicture(e.message(view), picture{fit: &e.answer})
}

// keptPlan is what keeping an answer as a plan writes, made once for a
// reply and kept with it in the cache: the summary (its Question is the
// words of the first ask; keep sets each asker's), the request's JSON
// and the words `/fit plans` finds the plan by.
type keptPlan struct {
	summary plan.Summary
	reqJSON string // "" when it could not be made: the store marshals (and says why not)
	words   string
}

// newKeptPlan is the plan of answer a to text, read as q.
func newKeptPlan(text string, q sizing.Query, a sizing.Answer) *keptPlan {
	k := &keptPlan{summary: plan.FromAnswer(text, q, a)}
	if b, err := json.Marshal(k.summary.Request); err == nil {
		k.reqJSON = string(b)
	}
	k.words = sizing.Format(sizing.Query{Model: q.Model, Params: q.Params, Experts: q.Experts})
	if k.words == "" {
		k.words = "MODEL" // a --config architecture has no name to look it up by
	}
	return k
}

// keep saves k, asked in the words text, as a plan, when there is a
// plan store, and on its commit sets the view's plan id and the words
// `/fit plans` finds it by.
func (h *Handler) keep(ctx context.Context, asker who, text string, k *keptPlan, view *answerView) {
	if h.cfg.Plans == nil || k == nil {
		return
	}
	s := k.summary
	s.Question = text
	saved := store.NewPlan(asker.saver(), s)
	saved.RequestJSON = k.reqJSON
	if id, ok := h.savePlan(ctx, saved); ok {
		view.planID = id
		view.kept = k.words
	}
}

// saveBudget bounds the wait for a plan's commit, well inside Slack's
// 3-second acknowledgement budget. The store writes plans saved at the
// same time in one transaction, so the wait is a commit (a millisecond or
// two), unless the single writer is held by something long.
const saveBudget = 1500 * time.Millisecond

// savePlan writes a plan and waits for its commit, so that an answer
// that says "kept" is on disk before Slack sees it. A failed or late
// write is logged as an error and the answer still goes, without the
// "kept" line: the estimate does not need the database.
func (h *Handler) savePlan(ctx context.Context, plan store.Plan) (int64, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), saveBudget)
	defer cancel()
	id, err := h.cfg.Plans.SavePlan(ctx, &plan)
	if err != nil {
		h.failures.Error(h.log, "save-plan", "bot: saving the plan failed; answered without keeping it", "model", plan.ModelKey, "err", err)
		return 0, false
	}
	h.failures.OK(h.log, "save-plan", "bot: plans are saved again")
	return id, true
}

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
