package llm

import (
	"context"
	"slices"
	"testing"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// TestRequestSpecEnums: the request's names are the catalogs' ids, so a
// reading names only cards and models fitbot knows.
func TestRequestSpecEnums(t *testing.T) {
	spec := RequestSpec([]string{"sizing", "price"})
	for path, want := range map[string]string{"query.gpu": "h100", "query.model": "llama-3.1-8b", "route.gpus": "rtx-4090",
		"query.method": "qlora", "query.quant": "awq", "intent": "which_gpu", "kind": "price"} {
		if !slices.Contains(spec.Enums[path], want) {
			t.Errorf("%s enum lacks %q", path, want)
		}
	}
	if n := len(spec.Enums["query.gpu"]) + len(spec.Enums["query.model"]); n < 150 || n > 900 {
		t.Errorf("%d GPU and model ids; strict mode takes up to 1000 enum values in all", n)
	}
}

// TestRequestReader replays a strict OpenAI reply of fitbot's own
// request: the schema generated from reading.Request fits strict mode's
// limits, the model's reading sets the intent and the settings the
// grammar missed, keeps the grammar's own fields, and passes
// reading.Validate.
func TestRequestReader(t *testing.T) {
	srv := newFakeServer(t, ok("reading_openai_request.json"))
	r, err := NewRequestReader(New(Config{BaseURL: srv.srv.URL + "/v1", APIKey: testKey}, srv.srv.Client(), nil))
	if err != nil {
		t.Fatal(err)
	}
	props, enums := schemaSize(*r.schema)
	if props > 5000 || enums > 1000 {
		t.Errorf("%d properties, %d enum values: over strict mode's limits (5000, 1000)", props, enums)
	}
	const q = "can 8 h100s crunch llama 3.1 70b for 200 users"
	grammar, _ := reading.Read(q)
	got, err := r.Read(context.Background(), q, grammar)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if got.Intent != sizing.IntentServe || got.Query.Model != "llama-3.1-70b" || got.Query.GPU != "h100" || got.Query.GPUs != 8 ||
		got.Query.MicroBatch != 200 || got.Query.Method != sizing.MethodInference {
		t.Errorf("read %+v %+v, want serving llama-3.1-70b to 200 users on 8 h100", got.Intent, got.Query)
	}
	if !slices.Equal(got.Unused, grammar.Unused) || !slices.Equal(got.Notes, grammar.Notes) {
		t.Errorf("unused %q notes %q: want the grammar's %q %q", got.Unused, got.Notes, grammar.Unused, grammar.Notes)
	}
}

// schemaSize counts a schema's properties and enum values.
func schemaSize(d jsonschema.Definition) (props, enums int) {
	enums = len(d.Enum)
	for _, p := range d.Properties {
		n, e := schemaSize(p)
		props, enums = props+1+n, enums+e
	}
	if d.Items != nil {
		n, e := schemaSize(*d.Items)
		props, enums = props+n, enums+e
	}
	for _, a := range d.AnyOf {
		n, e := schemaSize(a)
		props, enums = props+n, enums+e
	}
	return props, enums
}
