package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaOf is the JSON Schema of a tool's input type In, derived from the
// type (as the MCP go-sdk derives its tools' schemas) so that the schema
// the model sees and the struct the tool decodes cannot drift apart:
//
//   - a property per field, named by its json tag;
//   - required: the fields without omitempty;
//   - the field's description: its `jsonschema:"..."` tag;
//   - the few keywords that tag cannot say, in `jsonschema_extras:"..."`:
//     comma-separated key=value pairs of enum (values split by |),
//     minimum, minLength, minItems, default (JSON) and format.
//
// A type the derivation cannot describe, or a bad extras tag, is a
// programming error: SchemaOf panics (the registry's test derives every
// tool's schema).
func SchemaOf[In any]() json.RawMessage {
	t := reflect.TypeFor[In]()
	if b, ok := schemas.Load(t); ok {
		return b.(json.RawMessage)
	}
	b, err := deriveSchema(t)
	if err != nil {
		panic(fmt.Sprintf("tool: the input schema of %v: %v", t, err))
	}
	schemas.Store(t, b)
	return b
}

// schemas caches SchemaOf by type: tools hand out their schema with every
// model request.
var schemas sync.Map

func deriveSchema(t reflect.Type) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("a tool's input is an object, not %q", s.Type)
	}
	if err := applyExtras(t, s); err != nil {
		return nil, err
	}
	normalise(s)
	return json.Marshal(s)
}

// normalise makes the derived schema the subset every provider's API
// takes (Anthropic, OpenAI, Gemini), in this one place: a pointer or a
// slice may be null to Go's decoder, which jsonschema-go spells
// ["null", T]; a model need not be told so, and some APIs refuse a type
// list. An object without fields still lists its (no) properties.
func normalise(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	if s.Type == "object" && s.Properties == nil && s.AdditionalProperties != nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for _, p := range s.Properties {
		normalise(p)
	}
	normalise(s.Items)
}

// applyExtras sets the jsonschema_extras keywords of t's fields on s,
// into nested structs (an array's items, a pointer's target).
func applyExtras(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
		if s.Items != nil {
			s = s.Items
		}
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		name := jsonName(f)
		p := s.Properties[name]
		if name == "" || p == nil {
			continue
		}
		if tag, ok := f.Tag.Lookup("jsonschema_extras"); ok {
			if err := setExtras(p, tag); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		if err := applyExtras(f.Type, p); err != nil {
			return err
		}
	}
	return nil
}

// jsonName is the name encoding/json gives f; "" when it skips it.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() || f.Anonymous {
		return ""
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return ""
	case "":
		return f.Name
	}
	return name
}

// setExtras sets the keywords of one jsonschema_extras tag on p.
func setExtras(p *jsonschema.Schema, tag string) error {
	for _, kv := range strings.Split(tag, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return fmt.Errorf("jsonschema_extras %q: want key=value", kv)
		}
		switch k {
		case "enum":
			for _, e := range strings.Split(v, "|") {
				p.Enum = append(p.Enum, e)
			}
		case "format":
			p.Format = v
		case "default":
			if !json.Valid([]byte(v)) {
				return fmt.Errorf("jsonschema_extras default=%s: not JSON", v)
			}
			p.Default = json.RawMessage(v)
		case "minimum":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("jsonschema_extras minimum=%s: %w", v, err)
			}
			p.Minimum = &f
		case "minLength", "minItems":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("jsonschema_extras %s=%s: %w", k, v, err)
			}
			if k == "minLength" {
				p.MinLength = &n
			} else {
				p.MinItems = &n
			}
		default:
			return fmt.Errorf("jsonschema_extras %q: unknown keyword %q", kv, k)
		}
	}
	return nil
}
