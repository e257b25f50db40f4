package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// MaxQuestionBytes caps the question a Reader sends: a longer one is
// not sent and gets a question back.
const MaxQuestionBytes = 8 << 10

// readingName names the structured output of a Reader's request.
const readingName = "fitbot_reading"

// Spec says how a request type is shown to the model: JSON paths are
// relative to the request ("gpu", "route.kind").
type Spec struct {
	// Enums are the allowed values of string fields (and lists of
	// strings) by JSON path, from the catalogs: GPU ids, model ids,
	// methods, intents. The empty string, meaning not said, is always
	// allowed.
	Enums map[string][]string
	// Skip are the paths the model does not fill (notes, the words the
	// grammar did not use): they are left out of the schema and decode
	// as their zero value.
	Skip []string
	// About describes fields for the model, by path.
	About map[string]string
	// Prompt is the system prompt: what the bot is and how to read a
	// question into the request. It is a constant of the program, never
	// the asker's words.
	Prompt string
}

// envelope is what the model answers: whether it read a question it can
// fill the request for, its question back when not, and the request.
type envelope[R any] struct {
	Understood   bool   `json:"understood"`
	QuestionBack string `json:"question_back"`
	Request      R      `json:"request"`
}

// Reader reads questions into requests of type R with the language
// model, as a second reader beside the grammar: it is given the
// grammar's own reading, asks for an R under a strict JSON schema
// generated from R's JSON tags, and returns the model's R only when it
// passes check, the same check as the grammar's reading. It never
// renders a request to words to parse them again. It is safe for
// concurrent use.
type Reader[R any] struct {
	client *Client
	schema *jsonschema.Definition
	prompt string
	check  func(grammar, read R) (R, error)
}

// NewReader returns a Reader of R over c. check makes the model's
// reading a request: it puts back from the grammar's reading what the
// model may not set (Spec.Skip) and holds the result to the request
// type's one check of bounds and cross-field rules, the same as the
// grammar's. NewReader fails when spec does not fit R (a path that names
// no field, a field strict mode cannot say).
func NewReader[R any](c *Client, spec Spec, check func(grammar, read R) (R, error)) (*Reader[R], error) {
	schema, err := readerSchema[R](spec)
	if err != nil {
		return nil, err
	}
	if spec.Prompt == "" {
		return nil, errors.New("llm: a Reader needs a system prompt")
	}
	return &Reader[R]{client: c, schema: schema, prompt: spec.Prompt, check: check}, nil
}

// readerSchema is the strict schema of a Reader of R's replies: the
// envelope, with spec's paths under its request.
func readerSchema[R any](spec Spec) (*jsonschema.Definition, error) {
	prefixed := schemaSpec{enums: map[string][]string{}, skip: map[string]bool{}, about: map[string]string{
		"understood":    "true when the message asks something fitbot answers (see the system prompt); false for anything else",
		"question_back": "when understood is false, or when the question can be read two ways: one short question for the asker; otherwise empty",
		"request":       "the request, as the question states it",
	}}
	for p, vs := range spec.Enums {
		prefixed.enums["request."+p] = vs
	}
	for _, p := range spec.Skip {
		prefixed.skip["request."+p] = true
	}
	for p, s := range spec.About {
		prefixed.about["request."+p] = s
	}
	return generate(reflect.TypeFor[envelope[R]](), prefixed)
}

// Read asks the model to read text, given the grammar's reading of it,
// and returns the model's request after check.
//
// Errors: ErrUnavailable (errors.Is) when no usable reading came within
// Config.Timeout: no reply, an HTTP error, a reply that is not the
// schema, or a request check refuses (the error says why, without the
// API key); ErrNotUnderstood (errors.As *NotUnderstoodError for the
// question to ask back) when the model found nothing to read, refused,
// or was given an empty or over-long question.
func (r *Reader[R]) Read(ctx context.Context, text string, grammar R) (R, error) {
	return r.read(ctx, text, grammar, readingMessage)
}

// ReadFollowUp asks the model to read text, a message written in the
// thread of fitbot's answer to the request thread (with what the grammar
// read in the message already merged in), as a change to that request,
// and returns the whole request as changed, after check. Its errors are
// Read's.
func (r *Reader[R]) ReadFollowUp(ctx context.Context, text string, thread R) (R, error) {
	return r.read(ctx, text, thread, followUpMessage)
}

// read is Read with the user message made by message.
func (r *Reader[R]) read(ctx context.Context, text string, grammar R, message func(string, []byte) string) (read R, err error) {
	start := time.Now()
	var info call
	defer func() { r.client.log(ctx, start, info, len(text), err) }()
	if len(text) > MaxQuestionBytes {
		return read, &NotUnderstoodError{QuestionBack: fmt.Sprintf("That is too long for me to read (%d bytes; at most %d). What is the question, in a sentence or two?", len(text), MaxQuestionBytes)}
	}
	q := sanitize(text)
	if q == "" {
		return read, &NotUnderstoodError{QuestionBack: defaultQuestionBack}
	}
	hint, err := json.Marshal(grammar)
	if err != nil {
		return read, unavailable(fmt.Errorf("the grammar's reading: %w", err), "")
	}
	content, info, err := r.client.complete(ctx, r.client.chat(r.prompt, message(q, hint), readingName,
		"fitbot's reading of one chat question.", r.schema))
	if err != nil {
		return read, err
	}
	got, err := decodeReply[R](r.schema, content)
	if err != nil {
		return read, unavailable(err, r.client.cfg.APIKey)
	}
	if !got.Understood {
		return read, &NotUnderstoodError{QuestionBack: questionBack(got.QuestionBack, defaultQuestionBack)}
	}
	read, err = r.check(grammar, got.Request)
	if err != nil {
		return read, unavailable(fmt.Errorf("its reading does not hold: %w", err), r.client.cfg.APIKey)
	}
	return read, nil
}

// readingMessage is the user message: the question quoted as a JSON
// string, and the grammar's reading as JSON, both data.
func readingMessage(question string, grammar []byte) string {
	quoted, _ := json.Marshal(question) // a string always marshals
	return "Read this chat question into the request.\nQuestion: " + string(quoted) +
		"\nThe grammar's reading (may miss words or intent; correct it): " + string(grammar)
}

// followUpMessage is the user message of a follow-up: the message quoted
// as a JSON string, and the thread's request as JSON, both data.
func followUpMessage(message string, thread []byte) string {
	quoted, _ := json.Marshal(message) // a string always marshals
	return "This message was written in the thread of fitbot's answer to the request below. Read it as a change to that request and reply with the whole request as changed: what the message does not change stays.\nMessage: " + string(quoted) +
		"\nThe thread's request, with what the grammar read in the message merged in (it may miss words or intent; correct it): " + string(thread)
}

// decodeReply checks content against schema and unmarshals it, refusing
// keys the schema does not have; the wrappings unwrap takes off are
// allowed around it.
func decodeReply[R any](schema *jsonschema.Definition, content string) (envelope[R], error) {
	var out envelope[R]
	body := unwrap([]byte(content))
	if len(body) == 0 {
		return out, errors.New("empty reply")
	}
	var data any
	if err := json.Unmarshal(body, &data); err != nil {
		return out, fmt.Errorf("reply is not JSON: %w", err)
	}
	if !jsonschema.Validate(*schema, data) {
		return out, errors.New("reply is not the requested JSON: data validation failed against the schema")
	}
	if key := extraKey(*schema, data, ""); key != "" {
		return out, fmt.Errorf("reply is not the requested JSON: it sets %q, which the schema does not have", key)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return out, fmt.Errorf("reply is not the requested JSON: %w", err)
	}
	return out, nil
}

// extraKey is the path of the first key in data that schema does not
// have, or "": strict mode's additionalProperties false, which
// jsonschema.Validate does not check. A field the model may not set (a
// Spec's Skip) is in the request type but not in the schema, so it is
// refused here rather than decoded.
func extraKey(schema jsonschema.Definition, data any, path string) string {
	for _, sub := range schema.AnyOf {
		if sub.Type != jsonschema.Null && data != nil {
			return extraKey(sub, data, path)
		}
	}
	switch v := data.(type) {
	case map[string]any:
		for k, val := range v {
			sub, ok := schema.Properties[k]
			if !ok {
				return path + k
			}
			if p := extraKey(sub, val, path+k+"."); p != "" {
				return p
			}
		}
	case []any:
		if schema.Items == nil {
			return ""
		}
		for _, val := range v {
			if p := extraKey(*schema.Items, val, path); p != "" {
				return p
			}
		}
	}
	return ""
}

// unwrap takes the JSON out of a reply: after a reasoning model's
// thinking, which ends at "</think>" whether or not the reply opened it
// (Qwen3 thinking models' chat templates put the opening tag in the
// prompt), and inside a Markdown code fence.
func unwrap(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if before, after, found := bytes.Cut(b, []byte("</think>")); found && !bytes.HasPrefix(before, []byte("{")) {
		b = bytes.TrimSpace(after)
	}
	if rest, ok := bytes.CutPrefix(b, []byte("```")); ok {
		rest = bytes.TrimPrefix(rest, []byte("json"))
		if inner, found := bytes.CutSuffix(bytes.TrimSpace(rest), []byte("```")); found {
			b = bytes.TrimSpace(inner)
		}
	}
	return b
}
