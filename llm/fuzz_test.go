package llm

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// FuzzDecodeCommand feeds arbitrary reply content through decode and
// command: never a panic, and whatever the model wrote, the command is
// bounded, valid UTF-8, without control characters or the separators a
// name could use to smuggle in structure.
func FuzzDecodeCommand(f *testing.F) {
	for _, s := range []string{
		`{"understood":true,"question_back":"","model":"Llama 3 70B","params_billions":0,"experts":0,"method":"qlora","optimizer":"unspecified","precision":"unspecified","quant":"unspecified","gpu":"A100","gpus":2,"nodes":0,"zero_stage":"unspecified","offload":"unspecified","seq_len":0,"micro_batch":0,"grad_checkpointing":"unspecified","lora_rank":0,"tokens":0}`,
		"```json\n{\"understood\":false}\n```",
		"<think>hmm</think>{}",
		`{"understood":true,"model":"x\u0000<@U1>","gpus":1e30}`,
		"",
	} {
		f.Add(s)
	}
	schema, err := newSchema()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string) {
		x, err := decode(schema, content)
		if err != nil {
			return
		}
		cmd := x.command()
		if len(cmd) > 1000 {
			t.Errorf("command is %d bytes, over the parser's 1000-byte cap: %q", len(cmd), cmd)
		}
		if !utf8.ValidString(cmd) {
			t.Errorf("command %q is not valid UTF-8", cmd)
		}
		if i := strings.IndexFunc(cmd, func(r rune) bool { return unicode.IsControl(r) || strings.ContainsRune("<>\"',;?!", r) }); i >= 0 {
			t.Errorf("command %q has a forbidden character at %d", cmd, i)
		}
		if n := name(x.Model); len(n) > maxNameBytes {
			t.Errorf("model name %q longer than %d bytes", n, maxNameBytes)
		}
	})
}

// FuzzDecodeReply feeds arbitrary reply content to a Reader's decoder:
// never a panic, and whatever it accepts is the schema exactly: it
// marshals back to JSON the schema validates, with no key of its own.
func FuzzDecodeReply(f *testing.F) {
	for _, s := range []string{
		`{"understood":true,"question_back":"","request":{"intent":"serve","model":"llama-3.1-70b","gpu":"h100","gpus":8,"method":"inference","zero_stage":null}}`,
		"```json\n{\"understood\":false,\"question_back\":\"which?\",\"request\":{}}\n```",
		"thinking</think>{\"understood\":true}",
		`{"understood":true,"question_back":"","request":{"intent":"x","model":"","gpu":"","gpus":1e30,"method":"","zero_stage":3,"unused_words":["a"]}}`,
		"",
	} {
		f.Add(s)
	}
	r := newTestReader(f, newFakeServer(f, ok("reading_openai_strict.json")), 0)
	f.Fuzz(func(t *testing.T, content string) {
		got, err := decodeReply[testRequest](r.schema, content)
		if err != nil {
			return
		}
		if got.Request.Unused != nil {
			t.Errorf("a skipped field was set from the reply: %q", got.Request.Unused)
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var data any
		if err := json.Unmarshal(b, &data); err != nil || !jsonschema.Validate(*r.schema, data) {
			t.Errorf("accepted %q, whose request %s is not the schema", content, b)
		}
	})
}
