package bot

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/slack-go/slack"
)

// The reply cache. A team asks the same question often (same model, same
// card); answer's Memo keeps the estimate, and the Block Kit and its JSON
// are the same every time until the prices, the catalogs or the Hub
// cache change. So the rendered reply is kept, keyed by the result's
// canonical question and the version of everything it was made from
// (Config.AnswerVersion), and a repeated question costs the parse, the
// plan's commit and one small block: the context line, rendered afresh
// every time because it carries the plan id (known only after the
// commit), the asker's words' assumptions and the price's age in words
// ("3 h old"), which moves with the clock. A version the cache has not
// seen empties it, so it never serves an answer older than the prices,
// catalogs or Hub cache it came from. The same reply is also found by the
// question's exact words, which skips the parse: under one version the
// parser reads the same words the same way; its result is kept as a plan
// again (answer.Service.Keep). The cache renders: what a question is, and
// its answer, answer.Service.Handle decides.

// maxCachedReplies bounds the cache; past it an arbitrary entry goes.
const maxCachedReplies = 1024

// replyCache holds rendered answers for one version at a time.
type replyCache struct {
	mu      sync.RWMutex
	version uint64
	entries map[string]*cachedReply // by canonical question
	byText  map[string]*cachedReply // by the words asked
}

// cachedReply is one rendered answer: the result it was rendered from
// (its question compared whole on a hit, so that a field Format leaves
// out cannot make two questions share a reply; kept as a plan again on a
// hit by the words), and the message with its JSON split around the
// context block.
type cachedReply struct {
	result answer.Result
	ref    string        // the buttons' value: the canonical question
	canon  string        // the canonical question, remembered as a thread's question on each hit
	text   string        // the message's fallback text
	blocks []slack.Block // shared by every hit: never changed once cached
	ctx    int           // index in blocks of the context block
	head   []byte        // the message's JSON up to the context block
	tail   []byte        // and after it
}

func newReplyCache() *replyCache {
	return &replyCache{entries: make(map[string]*cachedReply), byText: make(map[string]*cachedReply)}
}

// getText returns the reply cached for the exact words text under
// version, or nil.
func (c *replyCache) getText(version uint64, text string) *cachedReply {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.version != version {
		return nil
	}
	return c.byText[text]
}

// get returns the reply cached for q under version, or nil.
func (c *replyCache) get(version uint64, key string, q sizing.Query) *cachedReply {
	c.mu.RLock()
	e := c.entries[key]
	stale := c.version != version
	c.mu.RUnlock()
	if stale || e == nil || !reflect.DeepEqual(e.result.Question.Parsed.Query, q) {
		return nil
	}
	return e
}

// put caches e under version, by its canonical question key and by the
// words text asked (not by words when text is ""); a newer version than the cache's empties it first,
// an older one (the prices moved while e was being made) is not kept.
func (c *replyCache) put(version uint64, key, text string, e *cachedReply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at(version) {
		return
	}
	putBounded(c.entries, key, e)
	if text == "" {
		return // not to be found by its words (answer says when)
	}
	// The words are a slice of the request's form body: a copy, so that
	// the cache does not keep whole bodies alive.
	putBounded(c.byText, strings.Clone(text), e)
}

// at moves the cache to version, emptying it when version is newer, and
// reports whether an entry made under version may be kept (not when the
// cache has moved past it: the prices moved while it was being made).
// The caller holds c.mu.
func (c *replyCache) at(version uint64) bool {
	switch {
	case version > c.version:
		clear(c.entries)
		clear(c.byText)
		c.version = version
	case version < c.version:
		return false
	}
	return true
}

// putBounded sets m[k] = e, first dropping an arbitrary entry when m is
// full.
func putBounded(m map[string]*cachedReply, k string, e *cachedReply) {
	if _, ok := m[k]; !ok && len(m) >= maxCachedReplies {
		for old := range m {
			delete(m, old)
			break
		}
	}
	m[k] = e
}

// cacheable reports whether a reply to p with note can be cached: a
// question with a canonical form (its buttons carry it) and no note of
// its own and nothing said beyond it (saysMore), about a catalog model
// or a bare size. A model the query carries whole (Arch: a Hugging Face Hub model, resolved through the
// Hub cache, or --config) is not cached: the Hub cache can change under
// it, and AnswerVersion does not count the Hub cache's changes. Caching
// those answers would need the Hub cache's own counter in AnswerVersion.
func cacheable(p reading.Request, canonical, note string) bool {
	return canonical != "" && note == "" && p.Query.Arch == nil && !saysMore(p)
}

// saysMore reports whether a question says what its canonical form does
// not and its answer checks: a deadline (one that names a day moves with
// the clock), a budget or a price per GPU-hour. Its reply is not one to
// share with the plain question.
func saysMore(p reading.Request) bool {
	return p.Deadline != (reading.Deadline{}) || p.Money != (reading.Money{})
}

// newCachedReply splits msg, an answer rendered by answerBlocks, around
// its context block; ok is false when the message has no single context
// block to split around.
func newCachedReply(r answer.Result, ref string, msg Message) (e *cachedReply, ok bool) {
	ctx := -1
	for i, b := range msg.Blocks {
		if _, isCtx := b.(*slack.ContextBlock); isCtx {
			if ctx >= 0 {
				return nil, false
			}
			ctx = i
		}
	}
	if ctx < 0 {
		return nil, false
	}
	full, err := msg.encode()
	if err != nil {
		return nil, false
	}
	part, err := Message{Blocks: msg.Blocks[ctx : ctx+1]}.encode()
	if err != nil {
		return nil, false
	}
	block, ok := blockJSON(part)
	if !ok {
		return nil, false
	}
	i := bytes.Index(full, block)
	if i < 0 || bytes.Contains(full[i+1:], block) {
		return nil, false
	}
	return &cachedReply{result: r, ref: ref, canon: msg.question, text: msg.Text, blocks: slices.Clip(slices.Clone(msg.Blocks)), ctx: ctx,
		head: slices.Clone(full[:i]), tail: slices.Clone(full[i+len(block):])}, true
}

// blockJSON is the one block's JSON inside the encoding of a message
// that holds only it: {"text":"","blocks":[BLOCK]}.
func blockJSON(msgJSON []byte) ([]byte, bool) {
	const prefix, suffix = `{"text":"","blocks":[`, `]}`
	if !bytes.HasPrefix(msgJSON, []byte(prefix)) || !bytes.HasSuffix(msgJSON, []byte(suffix)) {
		return nil, false
	}
	return msgJSON[len(prefix) : len(msgJSON)-len(suffix)], true
}

// message is the cached reply with the context block of a, the answer
// (its assumptions the asker's words gave), and view (plan id, price
// age) in place, and its JSON ready: the head and tail as cached around
// the new block's own encoding.
func (e *cachedReply) message(view answerView, a sizing.Answer) Message {
	blocks := slices.Clone(e.blocks)
	ctx := enforceLimits([]slack.Block{slack.NewContextBlock("", contextElements(a, view)...)})[0]
	blocks[e.ctx] = ctx
	msg := Message{ResponseType: slack.ResponseTypeEphemeral, Text: e.text, Blocks: blocks, Outcome: OutcomeAnswered, question: e.canon}
	body := make([]byte, 0, len(e.head)+1024+len(e.tail))
	body = append(body, e.head...)
	body, ok := appendContextJSON(body, ctx.(*slack.ContextBlock))
	if !ok {
		part, err := Message{Blocks: blocks[e.ctx : e.ctx+1]}.encode()
		if err != nil {
			return msg
		}
		block, ok := blockJSON(part)
		if !ok {
			return msg
		}
		body = append(body[:len(e.head)], block...)
	}
	msg.pre = &preEncoded{body: append(body, e.tail...), of: msg}
	return msg
}

// appendContextJSON appends the JSON of a context block of plain mrkdwn
// or plain_text objects exactly as encode writes it (slack-go marshals a
// context block's elements with json.Marshal, so their strings are
// HTML-escaped), without reflection: the block is most of what a cached
// reply still encodes. ok is false for any other block, which the caller
// then encodes the ordinary way.
func appendContextJSON(dst []byte, b *slack.ContextBlock) ([]byte, bool) {
	els := b.ContextElements.Elements
	if b.BlockID != "" || len(els) == 0 {
		return dst, false
	}
	dst = append(dst, `{"type":`...)
	dst = appendJSONString(dst, string(b.Type))
	dst = append(dst, `,"elements":[`...)
	for i, el := range els {
		t, ok := el.(*slack.TextBlockObject)
		if !ok || t.Emoji != nil || t.Verbatim {
			return dst, false
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":`...)
		dst = appendJSONString(dst, t.Type)
		dst = append(dst, `,"text":`...)
		dst = appendJSONString(dst, t.Text)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...), true
}

// appendJSONString appends s quoted as json.Marshal quotes it: HTML
// characters, U+2028 and U+2029 escaped, control characters as \n, \t...
// or \u00XX, invalid UTF-8 as U+FFFD. FuzzAppendJSONString holds it to
// json.Marshal.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// staticReplies are the replies that are the same every time within one
// process: the help (it depends only on whether a language model is
// configured) and the GPU list (the GPU catalog is compiled in). They
// are made once, with their JSON.
type staticReplies struct {
	once       sync.Once
	help, gpus Message
}

// static returns the handler's static replies, making them on first use.
func (h *Handler) static() *staticReplies {
	h.statics.once.Do(func() {
		h.statics.help = preEncode(helpMessage(h.cfg.ModelReader != nil))
		h.statics.gpus = preEncode(catalogMessage("GPUs fitbot knows", "Use the id or the name in a question, e.g. `/fit 13b lora rtx-4090`.", gpuEntries()))
	})
	return &h.statics
}

// preEncode returns m with its JSON made now. Its blocks are clipped, so
// that a caller appending to a copy cannot write into the shared array.
func preEncode(m Message) Message {
	m.Blocks = slices.Clip(m.Blocks)
	if body, err := m.encode(); err == nil {
		m.pre = &preEncoded{body: body, of: m}
	}
	return m
}
