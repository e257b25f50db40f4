package llm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/internal/golden"
	"github.com/fitbot/fitbot/reading"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// grownRequest is testRequest after fields were added to it: a nullable
// one, a list, an object and plain values, as a helper adds them to
// reading.Request.
type grownRequest struct {
	testRequest
	Emit         *string       `json:"emit"`
	Alternatives []testRequest `json:"alternatives"`
	Budget       struct {
		USD   float64 `json:"usd"`
		Words string  `json:"words"`
	} `json:"budget"`
	Spot bool `json:"spot"`
}

// contentSpan is the span of the first choice's content in body, and
// of the reading inside that content once decoded.
func contentSpan(t *testing.T, body []byte) (cs, ce int, content string, is, ie int) {
	t.Helper()
	s, e, ok, err := valueOf(body, 0, len(body), "choices")
	if err != nil || !ok {
		t.Fatalf("choices: %v %v", ok, err)
	}
	choices, err := elements(body, s, e)
	if err != nil || len(choices) == 0 {
		t.Fatalf("choices: %v", err)
	}
	ms, me, _, _ := valueOf(body, choices[0][0], choices[0][1], "message")
	cs, ce, ok, err = valueOf(body, ms, me, "content")
	if err != nil || !ok {
		t.Fatalf("content: %v %v", ok, err)
	}
	if err := json.Unmarshal(body[cs:ce], &content); err != nil {
		t.Fatal(err)
	}
	text := slices.Clip([]byte(content))
	inner := unwrap(text)
	is = cap(text) - cap(inner)
	return cs, ce, content, is, is + len(inner)
}

// TestUpdateRecordedKeepsTheShape: a recorded reply of every server
// shape, after the request type grew, fails the schema; updated, it
// passes, reads to the same request, and differs from the recording
// only inside its JSON reading: the envelope, the fence and the
// thinking stay byte for byte. A second update changes nothing.
func TestUpdateRecordedKeepsTheShape(t *testing.T) {
	old, err := readerSchema[testRequest](testSpec)
	if err != nil {
		t.Fatal(err)
	}
	grown, err := readerSchema[grownRequest](testSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"reading_openai_strict.json", "reading_ollama_fenced.json", "reading_vllm_think.json",
		"reading_vllm_think_opened_by_prompt.json", "reading_openai_not_understood.json"} {
		body, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		_, _, content, _, _ := contentSpan(t, body)
		was, err := decodeReply[testRequest](old, content)
		if err != nil {
			t.Fatalf("%s does not hold the test schema: %v", file, err)
		}
		if _, err := decodeReply[grownRequest](grown, content); err == nil || !strings.Contains(err.Error(), "data validation failed") {
			t.Errorf("%s against the grown schema: %v, want a validation failure", file, err)
		}

		updated, added, err := updateRecorded(grown, body)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		want := []string{"request.emit", "request.alternatives", "request.budget", "request.spot"}
		if !slices.Equal(added, want) {
			t.Errorf("%s: added %q, want %q", file, added, want)
		}
		cs, ce, newContent, is, ie := contentSpan(t, updated)
		_, oce, oldContent, ois, oie := contentSpan(t, body)
		if !bytes.Equal(updated[:cs], body[:cs]) || !bytes.Equal(updated[ce:], body[oce:]) {
			t.Errorf("%s: the envelope changed:\n%s", file, updated)
		}
		if newContent[:is] != oldContent[:ois] || newContent[ie:] != oldContent[oie:] {
			t.Errorf("%s: the content around the reading changed:\n%q\nwas\n%q", file, newContent, oldContent)
		}
		got, err := decodeReply[grownRequest](grown, newContent)
		if err != nil {
			t.Fatalf("%s updated: %v\n%s", file, err, newContent)
		}
		if !reflect.DeepEqual(got.Request.testRequest, was.Request) || got.Understood != was.Understood || got.QuestionBack != was.QuestionBack ||
			got.Request.Emit != nil || got.Request.Alternatives == nil || len(got.Request.Alternatives) != 0 || got.Request.Spot || got.Request.Budget.USD != 0 || got.Request.Budget.Words != "" {
			t.Errorf("%s updated reads %+v, want %+v with the new fields null or zero", file, got, was)
		}
		again, more, err := updateRecorded(grown, updated)
		if err != nil || len(more) != 0 || !bytes.Equal(again, updated) {
			t.Errorf("%s: a second update added %q (%v)", file, more, err)
		}
	}
}

// TestUpdateRecordedFillsNestedObjects: a property added inside an
// object the reading already has goes in that object, after what it
// has, escaped as the content string is; null alternatives and lists
// are left as they are.
func TestUpdateRecordedFillsNestedObjects(t *testing.T) {
	type query struct {
		Model string   `json:"model"`
		Seq   *int     `json:"seq"`
		Tags  []string `json:"tags"`
		Serve struct {
			Users int `json:"users"`
		} `json:"serve"`
	}
	type request struct {
		Query  query   `json:"query"`
		Routes *query  `json:"routes"`
		List   []query `json:"list"`
	}
	schema, err := readerSchema[request](Spec{})
	if err != nil {
		t.Fatal(err)
	}
	content := `<think>a "quoted" é 🙂 \u003c</think>` + "\n" + "```json\n" +
		`{"understood":true,"question_back":"","request":{"query":{"model":"x"},"routes":null,"list":[{"model":"y","seq":3,"tags":[],"serve":{}}]}}` + "\n```"
	quoted, err := json.Marshal(content) // escapes <, > and & as \u003c...
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"choices": [ {"message": {"role":"assistant", "content": ` + string(quoted) + `, "refusal": null}} ]}`)
	updated, added, err := updateRecorded(schema, body)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"request.query.seq", "request.query.tags", "request.query.serve", "request.list.serve.users"}
	if !slices.Equal(added, want) {
		t.Errorf("added %q, want %q", added, want)
	}
	_, _, got, _, _ := contentSpan(t, updated)
	wantContent := strings.Replace(strings.Replace(content, `{"model":"x"}`, `{"model":"x","seq":null,"tags":[],"serve":{"users":0}}`, 1),
		`"serve":{}`, `"serve":{"users":0}`, 1)
	if got != wantContent {
		t.Errorf("content\n%s\nwant\n%s", got, wantContent)
	}
	if !bytes.HasPrefix(updated, body[:bytes.Index(body, []byte(`\u003c`))+6]) {
		t.Errorf("the escapes before the reading changed:\n%s", updated)
	}
	if _, err := decodeReply[request](schema, got); err != nil {
		t.Errorf("updated reply: %v", err)
	}
}

// TestUpdateRecordedLeavesOtherBodies: an error body, a refusal, content
// that is not JSON: nothing to add, the body as it was.
func TestUpdateRecordedLeavesOtherBodies(t *testing.T) {
	for _, file := range []string{"openai_refusal.json", "openai_malformed.json", "openai_error_500.json", "openai_error_401.json"} {
		body, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		got, added, err := UpdateRecorded(body)
		if err != nil || len(added) != 0 || !bytes.Equal(got, body) {
			t.Errorf("%s: added %q (%v)", file, added, err)
		}
	}
}

// TestRecordedRepliesHoldTheSchema: the recorded replies this package
// replays have every property their reader's schema requires; when a
// field is added to the request type, -update adds it to them as a
// strict-mode model returns it (null or zero). The replies of an older
// schema (openai_structured.json) are kept as they are, to be refused.
func TestRecordedRepliesHoldTheSchema(t *testing.T) {
	test, err := readerSchema[testRequest](testSpec)
	if err != nil {
		t.Fatal(err)
	}
	request, err := readerSchema[reading.Request](RequestSpec(Kinds()))
	if err != nil {
		t.Fatal(err)
	}
	for file, schema := range map[string]*jsonschema.Definition{
		"reading_openai_strict.json":               test,
		"reading_ollama_fenced.json":               test,
		"reading_vllm_think.json":                  test,
		"reading_vllm_think_opened_by_prompt.json": test,
		"reading_openai_not_understood.json":       test,
		"reading_openai_over_bounds.json":          test,
		"reading_openai_request.json":              request,
	} {
		checkRecorded(t, filepath.Join("testdata", file), func(b []byte) ([]byte, []string, error) { return updateRecorded(schema, b) })
	}
}

// checkRecorded fails when the recorded reply at path lacks properties
// its schema requires, naming them and the update; with -update it
// writes them in.
func checkRecorded(t *testing.T, path string, update func([]byte) ([]byte, []string, error)) {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	updated, added, err := update(body)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	if len(added) == 0 {
		return
	}
	if golden.Updating() {
		if err := os.WriteFile(path, updated, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s lacks %s, which the schema now requires: `go test ./llm -run TestRecordedReplies -update` adds them as a strict-mode model returns them (null or zero)",
		path, strings.Join(added, ", "))
}

// FuzzUpdateRecorded: any body is updated without a panic; an update
// that adds properties leaves nothing to add to its result, and one that
// adds none returns the body as it was.
func FuzzUpdateRecorded(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	schema, err := readerSchema[grownRequest](testSpec)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		updated, added, err := updateRecorded(schema, body)
		if err != nil {
			return
		}
		if len(added) == 0 {
			if !bytes.Equal(updated, body) {
				t.Fatalf("nothing added, but the body changed:\n%s\n%s", body, updated)
			}
			return
		}
		if _, more, err := updateRecorded(schema, updated); err != nil || len(more) != 0 {
			t.Fatalf("a second update adds %q (%v) to\n%s", more, err, updated)
		}
	})
}
