package llm

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// sample has every kind of field a request has: named strings, numbers,
// an optional bool and int, a nested struct, an embedded one, a list, a
// skipped field and one without a tag.
type sample struct {
	Kind   string  `json:"kind"`
	Count  int     `json:"count,omitempty"`
	Ratio  float64 `json:"ratio"`
	Stage  *int    `json:"stage"`
	On     *bool   `json:"on,omitempty"`
	Inner  inner   `json:"inner"`
	Tags   []string
	Notes  []string `json:"notes"`
	Hidden string   `json:"-"`
	//lint:ignore U1000 an unexported field, which the schema must leave out
	hidden string
	embedded
}

type inner struct {
	GPU string `json:"gpu"`
}

type embedded struct {
	Flat bool `json:"flat"`
}

func TestGenerate(t *testing.T) {
	spec := schemaSpec{
		enums: map[string][]string{"kind": {"fit", "prices"}, "inner.gpu": {"h100"}, "Tags": {"a", "b"}},
		skip:  map[string]bool{"notes": true},
		about: map[string]string{"inner": "the card"},
	}
	def, err := generate(reflect.TypeFor[sample](), spec)
	if err != nil {
		t.Fatal(err)
	}
	var props []string
	for k := range def.Properties {
		props = append(props, k)
	}
	slices.Sort(props)
	if want := []string{"Tags", "count", "flat", "inner", "kind", "on", "ratio", "stage"}; !slices.Equal(props, want) {
		t.Errorf("properties %v, want %v", props, want)
	}
	if !slices.Equal(sortedCopy(def.Required), props) {
		t.Errorf("required %v, want every property (strict mode)", def.Required)
	}
	if def.AdditionalProperties != false {
		t.Errorf("additionalProperties = %v, want false", def.AdditionalProperties)
	}
	if got := def.Properties["kind"].Enum; !slices.Equal(got, []string{"", "fit", "prices"}) {
		t.Errorf("kind enum %v, want not said first, then the list", got)
	}
	if got := def.Properties["inner"].Properties["gpu"].Enum; !slices.Equal(got, []string{"", "h100"}) {
		t.Errorf("inner.gpu enum %v", got)
	}
	if got := def.Properties["Tags"].Items.Enum; !slices.Equal(got, []string{"", "a", "b"}) {
		t.Errorf("Tags items enum %v", got)
	}
	if d := def.Properties["inner"]; d.Description != "the card" || d.AdditionalProperties != false || len(d.Required) != 1 {
		t.Errorf("inner = %+v, want a strict object described as the card", d)
	}
	stage := def.Properties["stage"]
	if len(stage.AnyOf) != 2 || stage.AnyOf[0].Type != jsonschema.Integer || stage.AnyOf[1].Type != jsonschema.Null {
		t.Errorf("stage = %+v, want an integer or null", stage)
	}

	ok := `{"kind":"fit","count":2,"ratio":0.5,"stage":null,"on":true,"inner":{"gpu":"h100"},"Tags":["a"],"flat":false}`
	bad := map[string]string{
		"enum outside the list": strings.Replace(ok, `"fit"`, `"chat"`, 1),
		"a key missing":         strings.Replace(ok, `"ratio":0.5,`, "", 1),
		"a float for an int":    strings.Replace(ok, `"count":2`, `"count":2.5`, 1),
		"a string for null":     strings.Replace(ok, `"stage":null`, `"stage":"3"`, 1),
	}
	var data any
	if err := json.Unmarshal([]byte(ok), &data); err != nil || !jsonschema.Validate(*def, data) {
		t.Fatalf("a reply that is the schema fails it (%v)", err)
	}
	for name, s := range bad {
		var data any
		if err := json.Unmarshal([]byte(s), &data); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if jsonschema.Validate(*def, data) {
			t.Errorf("%s: validates", name)
		}
	}
}

func TestGenerateRefusesDrift(t *testing.T) {
	for name, spec := range map[string]schemaSpec{
		"enum":  {enums: map[string][]string{"inner.card": {"x"}}},
		"skip":  {skip: map[string]bool{"note": true}},
		"about": {about: map[string]string{"kinds": "x"}},
	} {
		if _, err := generate(reflect.TypeFor[sample](), spec); err == nil || !strings.Contains(err.Error(), "no property") {
			t.Errorf("%s naming no property: err = %v", name, err)
		}
	}
	if _, err := generate(reflect.TypeFor[struct {
		M map[string]int `json:"m"`
	}](), schemaSpec{}); err == nil || !strings.Contains(err.Error(), "m: strict mode cannot say a map") {
		t.Errorf("a map: err = %v", err)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

type loop struct {
	Name string `json:"name"`
	Next []loop `json:"next"`
}

func TestGenerateStopsAtARecursiveType(t *testing.T) {
	if _, err := generate(reflect.TypeFor[loop](), schemaSpec{}); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("a recursive type: err = %v", err)
	}
	if _, err := generate(reflect.TypeFor[loop](), schemaSpec{skip: map[string]bool{"next": true}}); err != nil {
		t.Errorf("a recursive type with its loop skipped: %v", err)
	}
}
