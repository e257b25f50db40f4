package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/fitbot/fitbot/reading"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// UpdateRecorded brings a recorded reply of an OpenAI-compatible chat
// completion (a test's testdata file) up to the schema of fitbot's
// request reader (NewRequestReader): every property the schema requires
// that the reading in choices[].message.content lacks is added as a
// strict-mode model fills a property the question did not set, null
// where the schema allows null and else the zero value (false, 0, "",
// [], an object filled the same way). Nothing else of the body changes,
// byte for byte: the envelope, a Markdown fence, a <think> block, a
// refusal, the order and spacing of what the reading already has. added
// are the JSON paths added, none when the body already has them all or
// holds no reading (an error body, a refusal, content that is not JSON).
// Tests call it under -update, and fail naming the file without it, so
// that a field added to reading.Request does not break the recorded
// replies one by one.
func UpdateRecorded(body []byte) (updated []byte, added []string, err error) {
	schema, err := readerSchema[reading.Request](RequestSpec(Kinds()))
	if err != nil {
		return nil, nil, err
	}
	return updateRecorded(schema, body)
}

// updateRecorded is UpdateRecorded for the replies of a Reader whose
// envelope has schema.
func updateRecorded(schema *jsonschema.Definition, body []byte) ([]byte, []string, error) {
	start, end, ok, err := valueOf(body, 0, len(body), "choices")
	if err != nil || !ok {
		return body, nil, err
	}
	choices, err := elements(body, start, end)
	if err != nil {
		return body, nil, err
	}
	var edits []edit
	var added []string
	for _, c := range choices {
		ms, me, ok, err := valueOf(body, c[0], c[1], "message")
		if err != nil || !ok {
			return body, nil, err
		}
		cs, ce, ok, err := valueOf(body, ms, me, "content")
		if err != nil || !ok || body[cs] != '"' {
			return body, nil, err // no content, or null: a refusal
		}
		e, paths, err := fillContent(schema, body[cs:ce])
		if err != nil {
			return body, nil, err
		}
		for _, x := range e {
			edits = append(edits, edit{at: cs + x.at, text: x.text})
		}
		added = append(added, paths...)
	}
	return apply(body, edits), added, nil
}

// edit inserts text at a byte offset.
type edit struct {
	at   int
	text string
}

// apply makes edits, in offset order, on a copy of b.
func apply(b []byte, edits []edit) []byte {
	if len(edits) == 0 {
		return b
	}
	slices.SortStableFunc(edits, func(x, y edit) int { return x.at - y.at })
	out := make([]byte, 0, len(b)+64*len(edits))
	last := 0
	for _, e := range edits {
		out = append(append(out, b[last:e.at]...), e.text...)
		last = e.at
	}
	return append(out, b[last:]...)
}

// fillContent are the insertions into raw, a JSON string as the body
// writes it, that add to the reading in it what schema requires, and
// the paths they add; none when the string holds no JSON object.
func fillContent(schema *jsonschema.Definition, raw []byte) ([]edit, []string, error) {
	var content string
	if err := json.Unmarshal(raw, &content); err != nil {
		return nil, nil, fmt.Errorf("content: %w", err)
	}
	text := slices.Clip([]byte(content))
	inner := unwrap(text)
	if len(inner) == 0 || inner[0] != '{' || !json.Valid(inner) {
		return nil, nil, nil // not a reading: malformed on purpose, or prose
	}
	offset := cap(text) - cap(inner) // unwrap returns a part of text
	f := filler{src: inner}
	dec := json.NewDecoder(bytes.NewReader(inner))
	if err := f.value(dec, *schema, ""); err != nil {
		return nil, nil, err
	}
	edits := make([]edit, 0, len(f.edits))
	for _, e := range f.edits {
		at, err := rawOffset(raw, offset+e.at)
		if err != nil {
			return nil, nil, err
		}
		quoted, err := marshalNoEscape(e.text)
		if err != nil {
			return nil, nil, err
		}
		edits = append(edits, edit{at: at, text: quoted[1 : len(quoted)-1]})
	}
	return edits, f.added, nil
}

// filler walks a JSON value against its schema and notes where each
// object's missing required properties go: before its closing brace.
type filler struct {
	src   []byte
	edits []edit
	added []string
}

func (f *filler) value(dec *json.Decoder, schema jsonschema.Definition, path string) error {
	schema = nonNull(schema)
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := key.(string)
			seen[k] = true
			if err := f.value(dec, schema.Properties[k], path+k+"."); err != nil {
				return err
			}
		}
		closing := int(dec.InputOffset())
		for closing < len(f.src) && f.src[closing] != '}' {
			closing++
		}
		var text []byte
		for _, k := range schema.Required {
			if seen[k] {
				continue
			}
			if len(seen) > 0 || len(text) > 0 {
				text = append(text, ',')
			}
			text = strconv.AppendQuote(text, k)
			text = append(text, ':')
			text = zero(text, schema.Properties[k])
			f.added = append(f.added, path+k)
		}
		if len(text) > 0 {
			f.edits = append(f.edits, edit{at: closing, text: string(text)})
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		var items jsonschema.Definition
		if schema.Items != nil {
			items = *schema.Items
		}
		for dec.More() {
			if err := f.value(dec, items, path); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

// nonNull is the alternative of a nullable schema that is not null.
func nonNull(s jsonschema.Definition) jsonschema.Definition {
	for _, alt := range s.AnyOf {
		if alt.Type != jsonschema.Null {
			return alt
		}
	}
	return s
}

// zero appends to b what a strict-mode model returns for a property it
// was not asked about: null where allowed, else the type's zero value.
func zero(b []byte, s jsonschema.Definition) []byte {
	if len(s.AnyOf) > 0 {
		return append(b, "null"...)
	}
	switch s.Type {
	case jsonschema.Object:
		b = append(b, '{')
		for i, k := range s.Required {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(strconv.AppendQuote(b, k), ':')
			b = zero(b, s.Properties[k])
		}
		return append(b, '}')
	case jsonschema.Array:
		return append(b, "[]"...)
	case jsonschema.String:
		return append(b, `""`...)
	case jsonschema.Boolean:
		return append(b, "false"...)
	case jsonschema.Integer, jsonschema.Number:
		return append(b, '0')
	}
	return append(b, "null"...)
}

// valueOf is the span of the value of key in the JSON object b[start:end].
func valueOf(b []byte, start, end int, key string) (int, int, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(b[start:end]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, false, errors.Join(errors.New("not a JSON object"), err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, 0, false, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false, err
		}
		if k == key {
			e := start + int(dec.InputOffset())
			return e - len(v), e, true, nil
		}
	}
	return 0, 0, false, nil
}

// elements are the spans of the elements of the JSON array b[start:end].
func elements(b []byte, start, end int) ([][2]int, error) {
	dec := json.NewDecoder(bytes.NewReader(b[start:end]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.Join(errors.New("choices is not a JSON array"), err)
	}
	var out [][2]int
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		e := start + int(dec.InputOffset())
		out = append(out, [2]int{e - len(v), e})
	}
	return out, nil
}

// rawOffset is the offset in raw, a JSON string with its quotes, of the
// byte at offset at of the string it decodes to.
func rawOffset(raw []byte, at int) (int, error) {
	decoded := 0
	for i := 1; i < len(raw)-1; {
		if decoded == at {
			return i, nil
		}
		if raw[i] != '\\' {
			i++
			decoded++
			continue
		}
		if raw[i+1] != 'u' {
			i += 2
			decoded++
			continue
		}
		r, size := unicodeEscape(raw[i:])
		i += size
		decoded += utf8.RuneLen(r)
	}
	if decoded == at {
		return len(raw) - 1, nil
	}
	return 0, fmt.Errorf("offset %d is past the content", at)
}

// unicodeEscape decodes the \uXXXX escape (a surrogate pair with the
// next) at the start of b, as encoding/json does, and its length.
func unicodeEscape(b []byte) (rune, int) {
	hex := func(b []byte) rune {
		n, err := strconv.ParseUint(string(b), 16, 32)
		if err != nil {
			return -1
		}
		return rune(n)
	}
	r := hex(b[2:6])
	if r >= 0xD800 && r < 0xDC00 && len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if lo := hex(b[8:12]); lo >= 0xDC00 && lo < 0xE000 {
			return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, 12
		}
	}
	if r < 0 || r >= 0xD800 && r < 0xE000 {
		return utf8.RuneError, 6
	}
	return r, 6
}

// marshalNoEscape is s as a JSON string, with <, > and & as they are.
func marshalNoEscape(s string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}
