// Package answer reads a question and answers it, for every face of
// fitbot: the Slack bot and the command line call it and decide nothing
// about what a question means themselves.
//
// A question is read once, in one order: routed (a price question, small
// talk, help, or a sizing question), parsed, its Hugging Face Hub model
// resolved, then placed on the team's live cluster when it asks about it
// ("on our cluster right now"), else on the team's machines when it names
// no GPU.
// Read does the first two steps, which do no I/O; Resolve the last two.
// A face that has to acknowledge within a budget (Slack's 3 seconds) may
// run Resolve in the background; it cannot reorder the steps.
//
// The package is synchronous, takes a context everywhere and knows no
// transport: it returns typed results, never prose or Block Kit.
package answer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// Parser reads a question the way reading.Parse does.
type Parser func(question string) (reading.Request, error)

// Estimator answers a sizing question within ctx; Fixed is one.
type Estimator interface {
	Answer(ctx context.Context, q sizing.Query) (sizing.Answer, error)
}

// Asker answers the questions that run the other way round (largest
// model, longest context, which GPU, buy or rent) within ctx; Fixed is one.
type Asker interface {
	Ask(ctx context.Context, p reading.Request) (sizing.AskAnswer, error)
}

// ModelResolver finishes a parse with the Hugging Face Hub: a repo the
// question names by id or link, or a model name the catalog lacks;
// *hub.Resolver is one.
type ModelResolver interface {
	ResolveParsed(ctx context.Context, question string, p reading.Request, parseErr error) (reading.Request, error)
}

// Machines lists a team's own machines; *store.DB is one.
type Machines interface {
	Machines(ctx context.Context, team string) ([]sizing.Machine, error)
}

// Cluster reads the team's live cluster; *cluster.Cache is one.
type Cluster interface {
	Read(ctx context.Context) (cluster.Snapshot, error)
}

// Fixed answers with one estimator, whose prices never change (tests,
// the command line, the load generator). The estimator does no I/O, so
// it has no use for ctx.
type Fixed struct{ Estimator *sizing.Estimator }

// Answer implements Estimator.
func (f Fixed) Answer(_ context.Context, q sizing.Query) (sizing.Answer, error) {
	return f.Estimator.Answer(q)
}

// Ask implements Asker.
func (f Fixed) Ask(_ context.Context, p reading.Request) (sizing.AskAnswer, error) {
	return f.Estimator.Ask(p.Query, p.Intent, p.Workload)
}

// Service reads and answers questions. Estimator is required; the rest
// may be nil.
type Service struct {
	Parse     Parser        // nil: reading.Parse
	Estimator Estimator     // the estimate of a fit question, and placing a question on machines
	Asker     Asker         // nil: the questions that run the other way round get ErrCannotAsk
	Models    ModelResolver // nil: a Hub model is left to the parser's own message
	Machines  Machines      // nil: questions are never placed on a team's machines
	PriceBook PriceBook     // nil: price questions get ErrNoPrices
	Cluster   Cluster       // nil: questions about the cluster are placed on the team's machines
	Reader    ModelReader   // nil: no language-model fallback (Handle)
	Plans     PlanKeeper    // nil: Handle keeps no plan
	Runs      RunBook       // nil: no measured runs are recorded or said on answers
	Logger    *slog.Logger  // nil: slog.Default()
	// Now is the clock a deadline that names a day ("by friday") is
	// counted from; nil: time.Now.
	Now func() time.Time
}

// ErrCannotAsk is the error of a question that runs the other way round
// on a Service without an Asker.
var ErrCannotAsk = errors.New("this fitbot cannot answer that kind of question yet")

// Question is a question as read: its routing, and for a sizing
// question the parse and the parser's (or the Hub's) error.
type Question struct {
	Text   string
	Route  reading.Routing
	Parsed reading.Request
	Err    error
	// Scope is whose plans and measured runs the answer may draw on: the
	// asker's scope. The zero Scope draws on none.
	Scope store.Scope
	// OnCluster is where the question was put on the team's live cluster
	// (it asked about it and one is configured and was read); nil otherwise.
	OnCluster *OnCluster
	// Comparison is what a question that compares two cards or two
	// training methods compares (Compared); Options then holds one
	// question per option, read, and resolved by Resolve, on its own.
	// Parsed and Err are the first option's.
	Comparison *reading.Comparison
	Options    []Question
	// configured: the model comes with the question (--config), so the
	// Hub and the team's machines have nothing to add.
	configured bool
	// teamFree: Resolve found that neither the team's machines nor its
	// cluster can have a say, whichever team asks (see SameForEveryTeam).
	teamFree bool
}

// SameForEveryTeam reports whether a resolved question's words alone
// decide its answer, whichever team asks them: they name the card (or
// ask for the cheapest one, or which one), so no team's machines are
// read, and they do not ask about the live cluster. The bot keeps such
// a reply by its words.
func (q Question) SameForEveryTeam() bool { return q.teamFree }

// Sizing reports whether the question is a sizing question (not a price
// question, small talk or help).
func (q Question) Sizing() bool { return q.Route.Kind == reading.RouteSizing }

// Ask reports whether the question is one that runs the other way round
// (largest model, longest context, which GPU, buy or rent, serving
// capacity); anything else, intent none included, is a fit question.
func (q Question) Ask() bool { return IsAsk(q.Parsed.Intent) }

// IsAsk reports whether an intent is one of the questions that run the
// other way round.
func IsAsk(i sizing.Intent) bool {
	switch i {
	case sizing.IntentLargest, sizing.IntentMaxContext, sizing.IntentWhichGPU, sizing.IntentBuyRent, sizing.IntentServe:
		return true
	}
	return false
}

// HasModel reports whether a query names a model: a catalog id, a bare
// size or an architecture.
func HasModel(q sizing.Query) bool {
	return q.Model != "" || q.Params != 0 || q.Arch != nil
}

// Read routes text and, for a sizing question, parses it. It does no I/O.
func (s *Service) Read(text string) Question {
	q := Question{Text: text, Route: reading.Route(text)}
	if alts := reading.Unsure(text); len(alts) >= 2 {
		// The words ask one of several things alike: nothing is read
		// further, and Handle asks which (KindClarify).
		q.Parsed = reading.Request{Kind: q.Route.Kind, Alternatives: alts}
		return q
	}
	if q.Sizing() {
		q.Parsed, q.Err = s.parse(text)
		s.readComparison(&q)
	}
	return q
}

// ReadSizing reads text as a sizing question, without routing: the
// words of a saved plan or a button, which were a sizing question when
// they were asked.
func (s *Service) ReadSizing(text string) Question {
	q := Question{Text: text, Route: reading.Routing{Kind: reading.RouteSizing}}
	q.Parsed, q.Err = s.parse(text)
	return q
}

// ReadConfigured reads text as a sizing question about the model arch
// (a Hugging Face config.json given with the question): the words then
// need only say the method and the hardware. Neither the Hub nor the
// team's machines are asked.
func (s *Service) ReadConfigured(text string, arch sizing.Model) Question {
	q := s.ReadSizing(text)
	q.configured = true
	q.Parsed.Query.Arch = &arch
	q.Parsed.Query.Model, q.Parsed.Query.Params, q.Parsed.Query.Experts = "", 0, 0
	var in *sizing.InputError
	if q.Err != nil && errors.As(q.Err, &in) && (q.Parsed.Query.Method != "" || q.Parsed.Query.GPU != "") {
		q.Err = nil
	}
	return q
}

func (s *Service) parse(text string) (reading.Request, error) {
	if s.Parse == nil {
		return reading.Parse(text)
	}
	return s.Parse(text)
}

// NeedsHub reports whether Resolve will ask the Hugging Face Hub for the
// question's model (which may take a while): it names a Hub repo, or a
// model the catalog lacks, and a ModelResolver is configured.
func (s *Service) NeedsHub(q Question) bool {
	return s.Models != nil && q.Sizing() && !q.configured && (q.Parsed.Hub != "" || q.Parsed.Missing.Words != "")
}

// Resolve finishes reading a sizing question, in this order: the model
// from the Hugging Face Hub (NeedsHub), then, when the question names no
// GPU, the team's machines (see sizing.OnMachines), so that a Hub model
// is placed by its own size; last, a cheapest question that left the
// method unsaid is put on its cheapest way (reading.CheapestWay). team
// names whose machines; the command line's are team "". Other questions
// are returned as they are.
func (s *Service) Resolve(ctx context.Context, team string, q Question) Question {
	if !q.Sizing() || q.configured {
		return q
	}
	if q.Compared() {
		q.Options = slices.Clone(q.Options)
		for i := range q.Options {
			q.Options[i] = s.Resolve(ctx, team, q.Options[i])
		}
		if q.Options[0].Err == nil && q.Options[1].Err == nil && q.Comparison.Setting == "gpu" {
			estimate := func(sq sizing.Query) (sizing.Answer, error) { return s.Estimator.Answer(ctx, sq) }
			ways := reading.AdaptersOnCards([2]reading.Request{q.Options[0].Parsed, q.Options[1].Parsed}, estimate)
			q.Options[0].Parsed, q.Options[1].Parsed = ways[0], ways[1]
		}
		q.Parsed, q.Err = q.Options[0].Parsed, q.Options[0].Err
		if q.Err == nil {
			q.Err = q.Options[1].Err
		}
		return q
	}
	ms := &machineList{s: s, team: team}
	q = s.onNamedMachine(ctx, ms, q)
	if s.NeedsHub(q) {
		q.Parsed, q.Err = s.Models.ResolveParsed(ctx, q.Text, q.Parsed, q.Err)
	}
	if q.Err == nil && !s.onCluster(ctx, ms, &q) {
		q.teamFree = !placeable(q.Parsed)
		q.Parsed = s.onMachines(ctx, ms, q.Text, q.Parsed)
	}
	if q.Err == nil {
		estimate := func(sq sizing.Query) (sizing.Answer, error) { return s.Estimator.Answer(ctx, sq) }
		q.Parsed = reading.CheapestWay(q.Parsed, estimate)
	}
	return q
}

// machineList reads a team's machines for one Resolve, once: a question
// looks at them up to three times (the machine it names, the cluster
// note, the machines it is placed on).
type machineList struct {
	s    *Service
	team string
	read bool
	ms   []sizing.Machine
	err  error
}

// get returns the team's machines, reading them on the first call. A
// failed read is logged once and answers every call.
func (t *machineList) get(ctx context.Context) ([]sizing.Machine, error) {
	if !t.read {
		t.read = true
		t.ms, t.err = t.s.Machines.Machines(ctx, t.team)
		if t.err != nil {
			t.s.logger().Warn("answer: reading the team's machines failed; answered without them", "err", t.err)
		}
	}
	return t.ms, t.err
}

// placeable reports whether a question may be placed on a team's
// machines: it names no card and no count, and asks neither for the
// cheapest card nor which card.
func placeable(p reading.Request) bool {
	return p.Query.GPU == "" && p.Query.GPUs == 0 && !p.Query.Cheapest && p.Intent != sizing.IntentWhichGPU
}

// AboutCluster reports whether a question only asks what the team's
// live cluster has free ("what's free on our cluster right now?", "free
// gpus"): it asks about the cluster and names no model, size or method.
// The faces answer it with the cluster's list or, when no cluster is
// configured or it cannot be read, with why and the team's machines.
func (s *Service) AboutCluster(q Question) bool {
	return q.Sizing() && !HasModel(q.Parsed.Query) && q.Parsed.Query.Method == "" && cluster.Asked(q.Text)
}

// OnCluster is a question put on the team's live cluster: the cluster as
// read, and the nodes the job takes or what is missing.
type OnCluster struct {
	Snapshot  cluster.Snapshot
	Placed    bool
	Placement cluster.Placement
}

// onCluster puts a fit question that asks about the cluster ("on our
// cluster", "right now", "free") on the cluster's free GPUs, and reports
// whether it did. A cluster that is not configured (unless the question
// names one of the team's machines, "the cluster" among them) or cannot
// be read is said in a note, and the question goes on to the team's
// machines.
func (s *Service) onCluster(ctx context.Context, team *machineList, q *Question) bool {
	if q.Ask() || !cluster.Asked(q.Text) {
		return false
	}
	if s.Cluster == nil {
		if !s.namesMachine(ctx, team, q.Text) {
			q.Parsed.Notes = append(q.Parsed.Notes, "No live cluster is configured (KUBECONFIG or FITBOT_SLURM_URL): answered without one.")
		}
		return false
	}
	snap, err := s.Cluster.Read(ctx)
	if err != nil {
		s.logger().Warn("answer: reading the cluster failed; answered without it", "err", err)
		q.Parsed.Notes = append(q.Parsed.Notes, "The cluster could not be read ("+cluster.Explain(err)+"): answered on the team's machines instead.")
		return false
	}
	estimate := func(sq sizing.Query) (sizing.Answer, error) { return s.Estimator.Answer(ctx, sq) }
	f := cluster.OnCluster(snap, q.Parsed.Query, estimate)
	q.Parsed.Query = f.Query
	q.Parsed.Notes = append(q.Parsed.Notes, f.Note)
	q.OnCluster = &OnCluster{Snapshot: snap, Placed: f.Placed, Placement: f.Placement}
	return true
}

// Reread reads words that were a sizing question when they were asked
// (a saved plan's canonical question, a button's), the Hub model
// included; they name their hardware, so the team's machines are not
// asked.
func (s *Service) Reread(ctx context.Context, text string) (reading.Request, error) {
	q := s.ReadSizing(text)
	if s.NeedsHub(q) {
		return s.Models.ResolveParsed(ctx, text, q.Parsed, q.Err)
	}
	return q.Parsed, q.Err
}

// FollowUp reads text as a follow-up to the question canonical (an
// answer's, in its thread: "what about 2 of them?", "qlora instead",
// "how long would that take"): the grammar's reading of text merged over
// canonical's request (reading.FollowUp) and, when the grammar leaves
// words that look like they carry meaning unused (reading.Request's
// Unused), the language model's reading of text as a change to that
// request (a ThreadReader), as for any question. ok is false when canonical no
// longer reads or text is not a follow-up (the Interpretation may still
// carry the model's error). It asks neither the Hub nor the team's
// machines: the follow-up keeps the question's hardware.
func (s *Service) FollowUp(ctx context.Context, canonical, text string) (in Interpretation, ok bool) {
	base := s.ReadSizing(canonical)
	if base.Err != nil {
		return Interpretation{}, false
	}
	p, ok := reading.FollowUp(base.Parsed, text)
	in = Interpretation{Question: Question{Text: text, Route: base.Route, Parsed: p}}
	tr, can := s.Reader.(ThreadReader)
	if !can || len(p.Unused) == 0 {
		return in, ok
	}
	thread := p
	if !ok {
		thread = base.Parsed
		thread.Unused = p.Unused
	}
	m, err := tr.ReadFollowUp(ctx, text, thread)
	if _, back := QuestionBack(err); back {
		return in, ok // the model found no change in it either
	}
	if err != nil {
		s.logger().Warn("answer: the language model could not read a follow-up; the grammar's reading stands", "err", err)
		in.ModelError = err
		return in, ok
	}
	notes := []string{fmt.Sprintf("interpreted by the language model as a change to the thread's question (%s)", canonical)}
	for _, n := range m.Notes {
		if !strings.HasPrefix(n, "not used: ") {
			notes = append(notes, n)
		}
	}
	m.Notes, m.Unused = notes, nil
	read := Question{Text: text, Route: base.Route, Parsed: m}
	if m.Kind != "" && m.Kind != reading.RouteSizing {
		read.Route = reading.Routing{Kind: m.Kind}
		if m.Route != nil {
			read.Route = *m.Route
			read.Route.Kind = m.Kind
		}
	}
	return Interpretation{Question: read, Interpreted: true}, true
}

// onMachines sizes a question on the team's own machines: the one it
// names ("on our box"), or, when it names no GPU at all, the smallest of
// them it fits on (the largest when it fits on none); a question that
// asks about rented cards ("cloud credits") and names none of them is
// left to the cloud. The assumption says which. Machines that cannot be
// read are logged and left out.
func (s *Service) onMachines(ctx context.Context, team *machineList, text string, p reading.Request) reading.Request {
	if s.Machines == nil || !placeable(p) {
		return p
	}
	ms, err := team.get(ctx)
	if err != nil {
		return p
	}
	if reading.CloudAsked(text) && !slices.ContainsFunc(ms, func(m sizing.Machine) bool { return m.Mentions(text) }) {
		return p // "with our cloud credits": rented cards, not the team's
	}
	estimate := func(q sizing.Query) (sizing.Answer, error) { return s.Estimator.Answer(ctx, q) }
	p.Query, p.Notes = sizing.OnMachines(p.Query, p.Intent, text, ms, estimate, p.Notes)
	return p
}

// onNamedMachine rereads a question that names one of the team's
// machines with the machine's hardware in place of its name, so that a
// name the grammar cannot read ("13b lora on gpu-box-1") or reads as
// something else (a "h100-rig" of L40S) is the machine. The note says
// which. A question put on the live cluster is left to it.
func (s *Service) onNamedMachine(ctx context.Context, team *machineList, q Question) Question {
	if s.Machines == nil || (s.Cluster != nil && !q.Ask() && cluster.Asked(q.Text)) {
		return q
	}
	ms, err := team.get(ctx)
	if err != nil {
		return q
	}
	for _, m := range ms {
		text, ok := m.Substitute(q.Text)
		if !ok {
			continue
		}
		p, err := s.parse(text)
		if err != nil && q.Err == nil {
			return q // the machine's words make it worse: keep the first reading
		}
		q.Parsed, q.Err = p, err
		q.Parsed.Notes = append(q.Parsed.Notes, fmt.Sprintf("%q is the team's %s", m.Name, m.Hardware()))
		return q
	}
	return q
}

// namesMachine reports whether the question names one of the team's
// machines.
func (s *Service) namesMachine(ctx context.Context, team *machineList, text string) bool {
	if s.Machines == nil {
		return false
	}
	ms, err := team.get(ctx)
	if err != nil {
		return false
	}
	for _, m := range ms {
		if m.Mentions(text) {
			return true
		}
	}
	return false
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

// Fit is the answer to a fit question.
type Fit struct {
	// Answer is the estimate with what the reading assumed or corrected
	// (a typo read as a word, a machine chosen) said first.
	Answer sizing.Answer
	// Estimate is the estimator's answer alone, the same for every
	// wording of the question: what a cache keyed by the canonical
	// question keeps.
	Estimate sizing.Answer
	// OnCluster is the question's place on the team's live cluster; nil
	// when it did not ask about one.
	OnCluster *OnCluster
	// Lead is said before the answer: on a question about the cluster
	// now that its free GPUs do not hold, that it is not free now, what
	// is missing, and that the answer is the cheapest cloud option.
	Lead string
}

// Fit answers a resolved fit question.
func (s *Service) Fit(ctx context.Context, q Question) (Fit, error) {
	if q.Err != nil {
		return Fit{}, q.Err
	}
	a, err := s.Estimator.Answer(ctx, q.Parsed.Query)
	if err != nil {
		return Fit{}, err
	}
	f := Fit{Answer: a, Estimate: a, OnCluster: q.OnCluster}
	if c := q.OnCluster; c != nil && !c.Placed {
		cloud := "the cheapest cloud option"
		if q.Parsed.Query.GPU != "" {
			cloud = "in the cloud"
		}
		f.Lead = cluster.Fit{Placement: c.Placement}.Lead(c.Snapshot) + fmt.Sprintf(" Below: %d× %s, %s.", a.Request.GPUs, a.GPUName, cloud)
	}
	f.Answer.Assumptions = sizing.MergeAssumptions(q.Parsed.Notes, a.Assumptions)
	f.Answer.Warnings = slices.Clone(a.Warnings)
	if m := q.Parsed.Money; m.USDPerGPUHour > 0 {
		f.Answer.Alternatives = slices.Clone(a.Alternatives)
		f.Answer.Assumptions = slices.Clone(f.Answer.Assumptions)
		if a.Serving != nil {
			sv := *a.Serving
			f.Answer.Serving = &sv
		}
		f.Answer.AtPrice(m.USDPerGPUHour, m.PriceWords)
	}
	checkGPUHours(&f.Answer)
	checkBudget(&f.Answer, q.Parsed.Money)
	checkDeadline(&f.Answer, q.Parsed.Deadline.At(s.now()))
	checkHostRAM(&f.Answer, q.Parsed.HostRAMBytes)
	checkMeasured(&f.Answer, q.Parsed.Query.MeasuredTokensPerSecond)
	s.withTeamRuns(ctx, q.Scope, &f.Answer)
	return f, nil
}

// AskAnswer answers a resolved question that runs the other way round,
// with what the reading assumed said first.
func (s *Service) AskAnswer(ctx context.Context, q Question) (sizing.AskAnswer, error) {
	if q.Err != nil {
		return sizing.AskAnswer{}, q.Err
	}
	if s.Asker == nil {
		return sizing.AskAnswer{}, ErrCannotAsk
	}
	a, err := s.Asker.Ask(ctx, q.Parsed)
	if err != nil {
		return sizing.AskAnswer{}, err
	}
	a.Assumptions = sizing.MergeAssumptions(q.Parsed.Notes, a.Assumptions)
	m := q.Parsed.Money
	if a.AtPrice(m.USDPerGPUHour, m.PriceWords) {
		m.USDPerGPUHour = 0 // honoured: no "not used" line
	}
	a.Targets = askTargets(&a, q.Parsed.Deadline.At(s.now()), m)
	if line := askGPUHours(q.Parsed.Query); line != "" {
		a.Targets = append(a.Targets, line)
	}
	return a, nil
}

// NeedsInterpreter reports whether a resolved question is one for the
// language model: the grammar and the Hub found no model or no method in
// it (an input error, not a refusal such as a gated repo), or they read
// its model (Understood) but left words that look like they carry
// meaning (reading.Request's Unused: "distributed", "long context"), which
// the model may read into a setting (see Interpreted). Questions that
// run the other way round are not (those name no model on purpose). It
// is the one place the language model is decided; the faces only choose
// whether to wait for it or acknowledge first.
func NeedsInterpreter(q Question) bool {
	p := q.Parsed
	if !q.Sizing() && q.Route.Kind != "" || IsAsk(p.Intent) {
		return false
	}
	if Understood(q) {
		return len(p.Unused) > 0
	}
	var in *sizing.InputError
	if q.Err != nil && !errors.As(q.Err, &in) {
		return false
	}
	return !HasModel(p.Query) || p.Query.Method == ""
}

// Understood reports whether the grammar (and the Hub) read a question's
// model without an error: its answer stands on its own, and a language
// model can only add to it (Interpreted).
func Understood(q Question) bool {
	return q.Err == nil && HasModel(q.Parsed.Query)
}

// Interpreted is a question the grammar understood (Understood), with
// what the language model's reading m of its words adds: the settings
// the grammar left unsaid (reading.Fill; the grammar's model, method and card stand).
// The combined request is held to reading.Validate, as either reader's
// is (never rendered to words and parsed again), and its first note says
// what the language model read in the words the grammar did not use, in
// place of the "not used" note. ok is false when the model adds nothing
// or the combination does not hold: the grammar's answer stands.
func Interpreted(q Question, m reading.Request) (Question, bool) {
	p, added := reading.Fill(q.Parsed, m)
	if len(added) == 0 {
		return q, false
	}
	p, err := reading.Validate(p)
	if err != nil {
		return q, false
	}
	unused := make([]string, len(q.Parsed.Unused))
	for i, w := range q.Parsed.Unused {
		unused[i] = fmt.Sprintf("%q", w)
	}
	read := make([]string, len(added))
	for i, w := range added {
		read[i] = fmt.Sprintf("%q", w)
	}
	note := "interpreted by the language model: " + strings.Join(read, ", ")
	if len(unused) > 0 {
		note = fmt.Sprintf("interpreted by the language model: %s read as %s", strings.Join(unused, ", "), strings.Join(read, ", "))
	}
	notes := []string{note}
	for _, n := range p.Notes {
		if !strings.HasPrefix(n, "not used: ") {
			notes = append(notes, n)
		}
	}
	p.Notes, p.Unused = notes, nil
	q.Parsed = p
	return q, true
}
