package answer

import (
	"context"
	"errors"
	"fmt"

	"github.com/fitbot/fitbot/plan"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// KindCluster is a question that only asks what the team's live cluster
// has free (AboutCluster): the face lists the cluster.
const KindCluster Kind = "cluster"

// KindClarify is a question fitbot asks back about: one whose words ask
// one of several things alike (Result.Alternatives, the face offers
// each), or one nothing could answer: neither the grammar, the Hugging
// Face Hub nor the language model read a question in it (Result.Err
// says why; the face asks the asker to say it again).
const KindClarify Kind = "clarify"

// Alternative is one thing a question may ask when the reader was unsure
// which: what it asks (Label) and words that ask it without doubt
// (Words), as reading.Unsure gives them.
type Alternative = reading.Alternative

// ModelReader reads a question with a language model: the fallback for
// words the grammar could not read (NeedsInterpreter). grammar is the
// grammar's own reading, which the model may use as a hint. An error
// that is a *NotUnderstood, or has an AskBack method (llm's), carries the
// model's question back to the asker; any other says the model was
// unavailable. *llm.Reader[reading.Request] is one.
type ModelReader interface {
	Read(ctx context.Context, text string, grammar reading.Request) (reading.Request, error)
}

// ThreadReader is a ModelReader that also reads a message written in the
// thread of an answer as a change to the thread's request (thread, with
// what the grammar read in the message merged in) and returns the whole
// request as changed (Service.FollowUp); *llm.Reader[reading.Request] is
// one.
type ThreadReader interface {
	ReadFollowUp(ctx context.Context, text string, thread reading.Request) (reading.Request, error)
}

// Who is the asker of a question: the team whose machines place it, and
// where the question came from, as a kept plan records it.
type Who struct {
	Team, Channel, User string
	// ChannelKind is the kind of conversation the question was asked in
	// (who else may read its plans): store.ChannelKind's words.
	ChannelKind string
	// Keep asks for the answer to be kept as a plan (Service.Plans): the
	// bot keeps every answer, the command line only with --save.
	Keep bool
}

// PlanKeeper keeps an answer as a plan and returns its id; the faces
// wire one over their store.
type PlanKeeper interface {
	KeepPlan(ctx context.Context, who Who, s plan.Summary) (int64, error)
}

// Result is one question's answer, typed by its Kind: exactly one of Fit,
// Ask, Compare and Prices is set for the kinds that have a figure, none
// for small talk, help, plans, cluster and clarify. The faces render it
// and decide nothing about what the question meant.
type Result struct {
	Kind Kind
	// Question is the question as read and resolved: its routing, the
	// parse (what a picture or a launch config is drawn from), the notes.
	Question Question
	Fit      *Fit
	Ask      *sizing.AskAnswer
	Compare  *CompareAnswer
	// Prices is the answer to a price question; nil when the Service has
	// no PriceBook (the face says prices are not available).
	Prices *PriceAnswer
	// Interpreted is set when the language model read the question (or
	// added to the grammar's reading): the face marks the answer so.
	Interpreted bool
	// ModelError is why the language model, asked, could not help (a
	// timeout, a 5xx, a reply that is not the schema): the answer is the
	// grammar's, and the face says the model was unavailable.
	ModelError error
	// Alternatives are the things a clarify result's question may ask,
	// two or more, when the reader was unsure which (reading.Unsure):
	// the face offers each, in its words, rather than answer one.
	Alternatives []Alternative
	// Err is why a clarify result has no answer: the reader's, the Hub's
	// or the estimator's error (a *sizing.InputError for words it could
	// not use), or the language model's question back.
	Err error
	// PlanID is the plan the answer was kept as; 0 when it was not
	// (Who.Keep unset, no PlanKeeper, a comparison, or PlanErr).
	PlanID int64
	// PlanErr is why keeping the plan failed; the answer stands.
	PlanErr error
	// Listed is, when the answer was kept, the words the plans command
	// lists its plan by: the model, or the plan's kind for a question
	// that names none.
	Listed string
}

// Handle reads text and answers it: the one entry point of a face. It
// routes the question, resolves it (the Hub, the team's machines, the
// live cluster), dispatches it to the answer of its kind, falls back on
// the language model (Reader) when the grammar could not read it, and
// keeps the answer as a plan when who asks for that. The error is only
// for a failure of fitbot itself (prices that cannot be read); words
// that cannot be answered are a Result of KindClarify.
func (s *Service) Handle(ctx context.Context, who Who, text string) (Result, error) {
	return s.HandleQuestion(ctx, who, s.Read(text))
}

// HandleQuestion is Handle for a question already read: by ReadConfigured
// (a config.json given with the words), or by Read when the face had to
// look at it first.
func (s *Service) HandleQuestion(ctx context.Context, who Who, q Question) (Result, error) {
	if alts := q.Parsed.Alternatives; len(alts) >= 2 {
		return Result{Kind: KindClarify, Question: q, Alternatives: alts}, nil
	}
	if !q.Sizing() {
		r := Result{Kind: q.Kind(), Question: q}
		if r.Kind == KindPrices && s.PriceBook != nil {
			pa, err := s.Prices(ctx, q.Route)
			if err != nil {
				return r, fmt.Errorf("answer a price question: %w", err)
			}
			r.Prices = &pa
		}
		return r, nil
	}
	if s.AboutCluster(q) {
		return Result{Kind: KindCluster, Question: q}, nil
	}
	q = s.Resolve(ctx, who.Team, q)
	switch {
	case q.Err == nil && q.Compared():
		c, err := s.Compare(ctx, q)
		if err != nil {
			return clarify(q, err), nil
		}
		return Result{Kind: KindCompare, Question: q, Compare: &c}, nil
	case q.Err == nil && q.Ask():
		return s.handleAsk(ctx, who, q), nil
	case Understood(q) && (s.Reader == nil || !NeedsInterpreter(q)):
		return s.handleFit(ctx, who, q, false), nil
	case q.Err == nil && !Understood(q):
		// The grammar read every word it knew but found no model: the
		// estimator says so, and the language model may still read one.
		f, err := s.Fit(ctx, q)
		if err == nil {
			return s.fitResult(ctx, who, q, f, false), nil
		}
		q.Err = err
	}
	if s.Reader != nil && NeedsInterpreter(q) {
		return s.interpret(ctx, who, q), nil
	}
	return clarify(q, q.Err), nil
}

// interpret is the language model's answer to q (modelReading): the
// answer of the kind the model read, or, when the model cannot help, the
// grammar's answer to a question it understood and a clarify result with
// the model's question back, or else the grammar's error, to any other.
func (s *Service) interpret(ctx context.Context, who Who, q Question) Result {
	return s.HandleInterpretation(ctx, who, s.modelReading(ctx, q))
}

// HandleInterpretation answers what the language model made of a
// question (Handle's, or a thread's FollowUp) and keeps the answer as
// Handle does: the answer of the kind the model read, marked
// Interpreted; the grammar's reading, with the model's error, when it
// could not help; a clarify result when nothing answers it.
func (s *Service) HandleInterpretation(ctx context.Context, who Who, in Interpretation) Result {
	read := in.Question
	var r Result
	switch {
	case read.Err != nil:
		r = clarify(read, read.Err)
	case !read.Sizing():
		// The model read a price, plans or help question: answered as one.
		var err error
		if r, err = s.HandleQuestion(ctx, who, read); err != nil {
			r = clarify(read, err)
		}
	case read.Ask():
		r = s.handleAsk(ctx, who, read)
	default:
		r = s.handleFit(ctx, who, read, false)
	}
	r.Interpreted = in.Interpreted && r.Kind != KindClarify
	r.ModelError = in.ModelError
	return r
}

// Interpretation is what the language model made of a question sent to
// it (NeedsInterpreter), for a face to answer.
type Interpretation struct {
	// Question is the question to answer: the model's own reading (its
	// Route may then be a price, plans or help question), the grammar's
	// with what the model added (Interpreted), or the grammar's alone
	// when the model could not help. Its Err is set when nothing answers
	// it: the model's question back (*NotUnderstood) or the grammar's
	// error.
	Question Question
	// Interpreted is set when the model's reading went into Question.
	Interpreted bool
	// ModelError is why the model, asked, could not help (a timeout, a
	// 5xx, a reply that is not the schema); nil when it answered or only
	// asked back.
	ModelError error
}

// modelReading asks the language model (Reader, which must be set) to read
// a resolved question the grammar could not read whole
// (NeedsInterpreter), given the grammar's reading, and returns what to
// answer. A question the grammar understood keeps its model, method and
// card; the model adds only what it left unsaid (Interpreted).
func (s *Service) modelReading(ctx context.Context, q Question) Interpretation {
	m, err := s.Reader.Read(ctx, q.Text, q.Parsed)
	var modelErr error
	if back, ok := QuestionBack(err); ok {
		err = &NotUnderstood{QuestionBack: back}
	} else if err != nil {
		modelErr = err
		s.logger().Warn("answer: the language model could not read the question; the grammar's reading stands", "err", err)
	}
	if Understood(q) {
		if err == nil {
			if both, ok := Interpreted(q, m); ok {
				return Interpretation{Question: both, Interpreted: true}
			}
		}
		return Interpretation{Question: q, ModelError: modelErr}
	}
	if err != nil {
		if modelErr != nil {
			err = q.Err
		}
		if err == nil {
			err = errNoQuestion
		}
		q.Err = err
		return Interpretation{Question: q, ModelError: modelErr}
	}
	read := Question{Text: q.Text, Route: q.Route, Parsed: m, Scope: q.Scope}
	if m.Kind != "" && m.Kind != reading.RouteSizing {
		read.Route = reading.Routing{Kind: m.Kind}
		if m.Route != nil {
			read.Route = *m.Route
			read.Route.Kind = m.Kind
		}
	}
	return Interpretation{Question: read, Interpreted: true}
}

// NotUnderstood is a language model's refusal with a question back to the
// asker ("which model do you mean?"): what Interpretation.Question's Err
// is then.
type NotUnderstood struct{ QuestionBack string }

func (e *NotUnderstood) Error() string { return "not understood: " + e.QuestionBack }

// QuestionBack is the question a language model's err asks back: a
// *NotUnderstood's, or that of an error with an AskBack method; ok is
// false for any other error (the model was unavailable) and for nil.
func QuestionBack(err error) (question string, ok bool) {
	var nu *NotUnderstood
	if errors.As(err, &nu) {
		return nu.QuestionBack, true
	}
	var asks interface{ AskBack() string }
	if errors.As(err, &asks) {
		return asks.AskBack(), true
	}
	return "", false
}

// handleAsk answers a question that runs the other way round and keeps it.
func (s *Service) handleAsk(ctx context.Context, who Who, q Question) Result {
	a, err := s.AskAnswer(ctx, q)
	if err != nil {
		return clarify(q, err)
	}
	r := Result{Kind: q.Kind(), Question: q, Ask: &a}
	s.Keep(ctx, who, &r)
	return r
}

// handleFit answers a fit question and keeps it.
func (s *Service) handleFit(ctx context.Context, who Who, q Question, interpreted bool) Result {
	f, err := s.Fit(ctx, q)
	if err != nil {
		return clarify(q, err)
	}
	return s.fitResult(ctx, who, q, f, interpreted)
}

// fitResult is the result of a fit question answered with f, kept.
func (s *Service) fitResult(ctx context.Context, who Who, q Question, f Fit, interpreted bool) Result {
	r := Result{Kind: KindFit, Question: q, Fit: &f, Interpreted: interpreted}
	s.Keep(ctx, who, &r)
	return r
}

// keep keeps r's answer as a plan when who asks for it and a PlanKeeper
// is configured; summary makes the plan only then. A failure is left in
// r.PlanErr for the face to say.
func (s *Service) keep(ctx context.Context, who Who, r *Result, summary func() plan.Summary) {
	if !who.Keep || s.Plans == nil {
		return
	}
	r.PlanID, r.PlanErr = s.Plans.KeepPlan(ctx, who, summary())
}

// clarify is the result of a question nothing answered, and why.
func clarify(q Question, err error) Result {
	if err == nil {
		err = errNoQuestion
	}
	return Result{Kind: KindClarify, Question: q, Err: err}
}

// AsksModel reports whether Handle may ask the language model about q,
// read but not yet resolved: a face that must acknowledge within a
// budget (Slack's 3 seconds) answers such a question in the background.
func (s *Service) AsksModel(q Question) bool { return s.Reader != nil && NeedsInterpreter(q) }

// errNoQuestion is why a question that nothing read has no answer.
var errNoQuestion = &sizing.InputError{Problem: "no sizing question found in that", Hint: "13b lora rtx-4090"}
