package reading

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fitbot/fitbot/sizing"
)

// The limits on one question. Longer input is refused, not truncated, so
// that nothing the asker wrote is silently dropped.
const (
	MaxQuestionBytes = 1000
	MaxQuestionWords = 100
)

// token is one word of a question: its text as written (a slice of the
// input) and its key, the lower-case form with hyphens and underscores
// removed that every vocabulary lookup uses ("Llama-3.1-70B" gives
// "llama3.170b", "q4_K_M" gives "q4km").
type token struct {
	raw        string
	key        string
	low        string // raw in lower case, its edge punctuation trimmed (see low)
	start, end int    // byte offsets of raw in the input
	ignorable  bool   // a Slack mention, a link or "@fitbot": never an answer word
	known      bool   // the key is one of the parser's own words (phrases)
	prefix     bool   // the key starts a longer phrase's key (phrasePrefixes)
}

// lex checks the bytes of a question and splits it into tokens. It
// refuses invalid UTF-8, control characters and over-long input with an
// InputError that says where the problem is.
func lex(input string) ([]token, error) { return lexInto(nil, input) }

// lexInto is lex appending the tokens to dst[:0], whose array a parser
// keeps from one question to the next.
func lexInto(dst []token, input string) ([]token, error) {
	if len(input) > MaxQuestionBytes {
		return nil, &sizing.InputError{
			Problem: fmt.Sprintf("the question is too long (%d bytes; the limit is %d)", len(input), MaxQuestionBytes),
			Hint:    "ask in one short sentence, e.g. fit 13b lora rtx-4090",
		}
	}
	for i, r := range input {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(input[i:]); size <= 1 {
				return nil, &sizing.InputError{
					Problem: fmt.Sprintf("the question is not valid UTF-8 text (byte %d)", i),
					Hint:    "type the question as plain text, e.g. fit 13b lora rtx-4090",
				}
			}
		}
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return nil, &sizing.InputError{
				Problem: fmt.Sprintf("the question contains a control character (U+%04X at byte %d)", r, i),
				Hint:    "type the question as plain text, e.g. fit 13b lora rtx-4090",
			}
		}
	}
	toks := dst[:0]
	if n := min(MaxQuestionWords+1, strings.Count(input, " ")+2); cap(toks) < n {
		toks = make([]token, 0, n)
	}
	// Every key, then every lowered word, lives in one buffer, turned
	// into one string at the end: the passes ask for each word many times.
	var buf [2 * MaxQuestionBytes]byte
	keys := buf[:0]
	type keySpan struct{ tok, from, to int }
	var spanBuf [MaxQuestionWords + 1]keySpan
	spans := spanBuf[:0]
	i := 0
	for i < len(input) {
		r, size := utf8.DecodeRuneInString(input[i:])
		switch {
		case r == '<' && slackToken(input[i:]):
			// A Slack mention, channel or link: <@U123>, <#C1|x>, <https://...>.
			end := strings.IndexByte(input[i:], '>')
			toks = append(toks, token{raw: input[i : i+end+1], start: i, end: i + end + 1, ignorable: true})
			i += end + 1
		case r == '<':
			// "<50ms" typed on the command line (Slack sends "&lt;"): a bound.
			i += size
		case r == '×' || r == '*':
			toks = append(toks, token{raw: input[i : i+size], key: "x", start: i, end: i + size})
			i += size
		case r == '&':
			// Slack escapes &, < and > in message text.
			i += size
			for _, ent := range []string{"amp;", "lt;", "gt;"} {
				if strings.HasPrefix(input[i:], ent) {
					i += len(ent)
					break
				}
			}
		case r == '+' && i > 0 && input[i-1] == ' ' && i+1 < len(input) && input[i+1] == ' ':
			// " + " joins two things ("fp16 + kv"): no phrase reads across it
			// ("fp16 + kv" is not an fp16 KV cache).
			toks = append(toks, token{raw: "+", start: i, end: i + 1, ignorable: true})
			i += size
		case sizing.IsSeparator(r):
			i += size
		default:
			j := i
			for j < len(input) {
				r2, s2 := utf8.DecodeRuneInString(input[j:])
				if sizing.IsSeparator(r2) || r2 == '<' || r2 == '×' || r2 == '*' {
					break
				}
				j += s2
			}
			raw := input[i:j]
			for len(raw) > 0 && (raw[len(raw)-1] == '.' || raw[len(raw)-1] == ':') {
				raw = raw[:len(raw)-1] // the end of a sentence, not of a word
			}
			if raw != "" {
				t := token{raw: raw, start: i, end: i + len(raw)}
				from := len(keys)
				if raw[0] != '@' && raw[0] != '$' { // mentions and money are not sizing words
					keys = appendWordKey(keys, raw)
				}
				if len(keys) == from {
					t.ignorable = true // "@fitbot", "$500", or punctuation alone
				} else {
					spans = append(spans, keySpan{len(toks), from, len(keys)})
				}
				toks = append(toks, t)
			}
			i = j
		}
		if len(toks) > MaxQuestionWords {
			return nil, &sizing.InputError{
				Problem: fmt.Sprintf("the question is too long (more than %d words)", MaxQuestionWords),
				Hint:    "ask in one short sentence, e.g. fit 13b lora rtx-4090",
			}
		}
	}
	lowsFrom := len(keys)
	var lowEnds [MaxQuestionWords + 1]int
	for k, t := range toks {
		keys = appendLower(keys, strings.TrimFunc(t.raw, edgePunct))
		lowEnds[k] = len(keys)
	}
	all, from := string(keys), lowsFrom
	for k := range toks {
		toks[k].low, from = all[from:lowEnds[k]], lowEnds[k]
	}
	for _, sp := range spans {
		toks[sp.tok].key = all[sp.from:sp.to]
		if k := toks[sp.tok].key; vocab.rewritten.has(k) {
			toks[sp.tok].key = vocab.rewrites[k] // "gigs" reads as "gb" (vocab.txt)
		}
	}
	if first := slices.IndexFunc(toks, func(t token) bool { return !t.ignorable }); first >= 0 && slashCommands.has(toks[first].low) {
		toks[first].ignorable = true // "/fit hardware add ...": the command's own name typed into the text
	}
	readAs(toks)
	return toks, nil
}

// slashCommands are fitbot's slash commands as a message may start with
// them when typed into a mention, a DM or `fitbot fit` (Slack sends a
// slash command's text without it).
var slashCommands = vocab.set("slash_commands")

// appendLower appends s in lower case to dst.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return append(dst, strings.ToLower(s[i:])...)
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// keyOf is the lookup key of a word: lower case, the Hugging Face
// organisation prefix dropped, hyphens and underscores removed.
func keyOf(raw string) string { return string(appendWordKey(nil, raw)) }

// appendWordKey appends the key of raw (see keyOf) to dst.
func appendWordKey(dst []byte, raw string) []byte {
	if k := strings.LastIndexByte(raw, '/'); k >= 0 {
		raw = raw[k+1:]
	}
	if len(raw) > 1 && raw[0] == '-' && '0' <= raw[1] && raw[1] <= '9' {
		dst = append(dst, '-') // a negative number keeps its sign
		raw = raw[1:]
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= utf8.RuneSelf:
			for _, r := range raw[i:] {
				if r != '-' && r != '_' {
					dst = utf8.AppendRune(dst, unicode.ToLower(r))
				}
			}
			return dst
		case c == '-' || c == '_':
		case 'A' <= c && c <= 'Z':
			dst = append(dst, c+'a'-'A')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// span is the text of tokens[from:to] as the asker wrote it.
func span(input string, toks []token, from, to int) string {
	if from >= to || from >= len(toks) {
		return ""
	}
	return input[toks[from].start:toks[to-1].end]
}

// slackToken reports whether s starts a Slack mention, channel, command
// or link ("<@U123>", "<#C1|x>", "<!here>", "<https://...>"): a "<" and
// one of those leads, closed by ">".
func slackToken(s string) bool {
	if !strings.Contains(s, ">") || len(s) < 2 {
		return false
	}
	switch s[1] {
	case '@', '#', '!':
		return true
	}
	rest := strings.ToLower(s[1:])
	return strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") || strings.HasPrefix(rest, "mailto:")
}
