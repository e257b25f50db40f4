package llm

import (
	"encoding/json"
	"testing"

	"github.com/sashabaranov/go-openai/jsonschema"
)

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
