package llm

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/sashabaranov/go-openai/jsonschema"
)

// A schemaSpec says how a Go type becomes the strict JSON schema a model
// fills: which JSON paths take a closed list of values, which are left
// out (the model may not set them), and what each property means.
type schemaSpec struct {
	// enums are the allowed values by JSON path ("route.kind",
	// "request.gpu"); "" is always allowed, meaning not said.
	enums map[string][]string
	// skip are JSON paths the model does not fill ("notes"): they are
	// not in the schema and stay as the decoder leaves them.
	skip map[string]bool
	// about describes a property by JSON path, for the model.
	about map[string]string
}

// maxDepth is how deep strict mode lets objects nest.
const maxDepth = 10

// generate builds the strict structured-output schema of t by reflection
// over its JSON tags, as OpenAI's strict mode requires it: every object
// property required, no additional properties, an optional value (a
// pointer) nullable through anyOf with null. It fails on a kind strict
// mode cannot say (maps, interfaces, channels) and on a path in spec
// that names no property, so that the schema cannot drift from the type
// silently.
func generate(t reflect.Type, spec schemaSpec) (*jsonschema.Definition, error) {
	used := map[string]bool{}
	def, err := spec.of(t, "", used)
	if err != nil {
		return nil, fmt.Errorf("schema of %s: %w", t, err)
	}
	for _, paths := range []map[string]bool{keys(spec.enums), spec.skip, keys(spec.about)} {
		for p := range paths {
			if !used[p] {
				return nil, fmt.Errorf("schema of %s: no property %q", t, p)
			}
		}
	}
	return &def, nil
}

func keys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

func (s schemaSpec) of(t reflect.Type, path string, used map[string]bool) (jsonschema.Definition, error) {
	switch t.Kind() {
	case reflect.Pointer:
		inner, err := s.of(t.Elem(), path, used)
		if err != nil {
			return inner, err
		}
		d := jsonschema.Definition{Description: inner.Description,
			AnyOf: []jsonschema.Definition{inner, {Type: jsonschema.Null}}}
		inner.Description = ""
		d.AnyOf[0] = inner
		return d, nil
	case reflect.Struct:
		if strings.Count(path, ".") >= maxDepth {
			return jsonschema.Definition{}, fmt.Errorf("%s: nested deeper than strict mode's %d levels (a recursive type? skip it)", path, maxDepth)
		}
		return s.object(t, path, used)
	case reflect.Slice, reflect.Array:
		item, err := s.of(t.Elem(), path, used)
		if err != nil {
			return item, err
		}
		d := jsonschema.Definition{Type: jsonschema.Array, Description: item.Description}
		item.Description = ""
		d.Items = &item
		return d, nil
	case reflect.String:
		d := jsonschema.Definition{Type: jsonschema.String, Description: s.about[path]}
		if vs, ok := s.enums[path]; ok {
			d.Enum = append([]string{""}, vs...)
		}
		return d, nil
	case reflect.Bool:
		return jsonschema.Definition{Type: jsonschema.Boolean, Description: s.about[path]}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jsonschema.Definition{Type: jsonschema.Integer, Description: s.about[path]}, nil
	case reflect.Float32, reflect.Float64:
		return jsonschema.Definition{Type: jsonschema.Number, Description: s.about[path]}, nil
	default:
		return jsonschema.Definition{}, fmt.Errorf("%s: strict mode cannot say a %s", orRoot(path), t.Kind())
	}
}

// object is a struct's schema: its exported fields by JSON name, an
// untagged embedded struct's fields inline, as encoding/json does.
func (s schemaSpec) object(t reflect.Type, path string, used map[string]bool) (jsonschema.Definition, error) {
	d := jsonschema.Definition{Type: jsonschema.Object, Description: s.about[path],
		Properties: map[string]jsonschema.Definition{}, AdditionalProperties: false}
	if err := s.fields(t, path, used, &d); err != nil {
		return d, err
	}
	return d, nil
}

func (s schemaSpec) fields(t reflect.Type, path string, used map[string]bool, d *jsonschema.Definition) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			if err := s.fields(f.Type, path, used, d); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		used[p] = true
		if s.skip[p] {
			continue
		}
		prop, err := s.of(f.Type, p, used)
		if err != nil {
			return err
		}
		d.Properties[name] = prop
		d.Required = append(d.Required, name)
	}
	return nil
}

func orRoot(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}
