package reading

import (
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// refusal is the problem a parse reports and the way its Try is made: a
// question fitbot answers, as close to the asker's as the problem allows.
type refusal struct {
	err *sizing.InputError // nil while the question reads
	try tryKind
	fix func(*sizing.Query) // tryQuery, tryClosed: turns the partial query into the corrected one
	// swap is the words at fault and the catalog name the Try puts in
	// their place, keeping every other word the asker typed (saidTry).
	swap typoFix
	// card is the words of a card the catalog lacks, when it is the
	// problem: a typed memory sizes it instead (resolveMemory); cardGB is
	// its memory when fitbot knows it, which the Try types.
	card   string
	cardGB int
}

// tryKind is how a refusal's Try is made.
type tryKind int

const (
	tryQuery       tryKind = iota // what was read, with fix applied (hint), or the asker's words with swap (saidTry)
	tryNone                       // none: no similar question to offer
	tryNamed                      // a model known by name only: the one its refusal was made with
	tryClosed                     // a closed model's open kin, when it fits the cards asked about (closedHint)
	tryTypedMemory                // a device refused: a desktop GPU of the memory typed for it (deviceHint)
	tryWhichGPU                   // a CPU refused: the model's memory in all, with the cards it fits
	tryCompared                   // a device weighed against a GPU: the GPU's half of the question
)

// fail records the first problem; later ones are usually its echoes.
func (p *parser) fail(problem string, fix func(*sizing.Query)) {
	if p.err == nil {
		p.refusal = refusal{err: &sizing.InputError{Problem: problem}, fix: fix}
	}
}

// failAt is fail for the words in tokens [from, to): the Try is the
// question with them replaced by with, or left out when with is "", when
// that reads (saidTry).
func (p *parser) failAt(from, to int, with, problem string, fix func(*sizing.Query)) {
	if p.err == nil {
		p.fail(problem, fix)
		p.swap = typoFix{from: from, to: to, text: with}
	}
}

// refuse makes err the parse's problem over any found before it: a
// refusal of the whole question (a closed model, a device fitbot does not
// size), whose Try is made as try says.
func (p *parser) refuse(err *sizing.InputError, try tryKind, fix func(*sizing.Query)) {
	p.refusal = refusal{err: err, try: try, fix: fix}
	p.missing = NameSpan{} // the model needs no Hub search: the question is refused
}

// tryLine is the Try of the parse's problem.
func (p *parser) tryLine() string {
	switch p.try {
	case tryNone, tryNamed:
		return p.err.Hint
	case tryClosed:
		return p.closedHint()
	case tryTypedMemory, tryWhichGPU, tryCompared:
		return p.deviceHint()
	}
	if try, ok := p.saidTry(); ok {
		return try
	}
	return p.hint() + p.before.ask.hintSuffix()
}

// saidTry is the Try in the asker's own words: the question with the
// words at fault swapped for a name fitbot knows, or else left out, and
// every other word as typed (mentions of the bot left out), when that
// question reads without a problem.
func (p *parser) saidTry() (string, bool) {
	if p.swap.to <= p.swap.from {
		return "", false
	}
	// The passes before the main one take words out of p.toks: the
	// mentions are found in the whole question, lexed again.
	toks, err := lex(p.in)
	if err != nil {
		return "", false
	}
	from, to := p.toks[p.swap.from].start, p.toks[p.swap.to-1].end
	for _, with := range []string{p.swap.text, ""} {
		var b strings.Builder
		at := 0
		for _, t := range toks {
			_, hub := sizing.HubRepoID(t.raw)
			switch {
			case t.start == from:
				b.WriteString(p.in[at:from] + " " + with + " ")
				at = to
			case t.ignorable && (t.raw[0] == '@' || t.raw[0] == '<') && !hub: // "@fitbot", "<@U123>"
				b.WriteString(p.in[at:t.start])
				at = t.end
			}
		}
		b.WriteString(p.in[at:])
		said := strings.Join(strings.Fields(b.String()), " ")
		if again, err := read(said, p.lex); err != nil || again.err != nil {
			continue
		}
		if first, _, _ := strings.Cut(said, " "); strings.EqualFold(first, "fit") {
			return said, true
		}
		return "fit " + said, true
	}
	return "", false
}
