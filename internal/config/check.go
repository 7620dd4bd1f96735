package config

import (
	"encoding"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// This file explains why the strict decoder rejected a file. The decoder
// reports type errors without the key and sometimes without a position, so
// when it fails, the file is decoded into plain maps and compared with the
// schema (the Config struct) here. It runs only on that error path.

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// check compares a document decoded into plain maps with the schema t and
// returns the keys that are unknown, of the wrong type, or rejected by
// their type's UnmarshalText.
func check(doc map[string]any, t reflect.Type) []problem {
	var ps []problem
	checkValue(&ps, nil, doc, t)
	return ps
}

func checkValue(ps *[]problem, key []string, v any, t reflect.Type) {
	wrongType := func() {
		*ps = append(*ps, problem{KindType, key, "expected " + typeName(t) + ", got " + tomlTypeName(v)})
	}
	if isText(t) {
		s, ok := v.(string)
		if !ok {
			wrongType()
			return
		}
		u := reflect.New(t).Interface().(encoding.TextUnmarshaler)
		if err := u.UnmarshalText([]byte(s)); err != nil {
			*ps = append(*ps, problem{KindValue, key, err.Error()})
		}
		return
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			wrongType()
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			wrongType()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(int64)
		if !ok {
			wrongType()
		} else if reflect.New(t).Elem().OverflowInt(n) {
			*ps = append(*ps, problem{KindValue, key, "number out of range"})
		}
	case reflect.Float32, reflect.Float64:
		switch v.(type) {
		case float64, int64:
		default:
			wrongType()
		}
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			wrongType()
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			fv := m[k]
			sub := append(key[:len(key):len(key)], k)
			f, ok := fieldByTag(t, k)
			if !ok {
				*ps = append(*ps, problem{kind: KindUnknownKey, key: sub})
				continue
			}
			checkValue(ps, sub, fv, f.Type)
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			wrongType()
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			checkValue(ps, append(key[:len(key):len(key)], k), m[k], t.Elem())
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			wrongType()
			return
		}
		for _, ev := range a {
			checkValue(ps, key, ev, t.Elem())
		}
	case reflect.Pointer:
		checkValue(ps, key, v, t.Elem())
	}
}

// isText reports whether values of t are written as strings that the type
// parses itself, as the decoder does it (it decodes time.Time natively).
func isText(t reflect.Type) bool {
	return t != reflect.TypeFor[time.Time]() && reflect.PointerTo(t).Implements(textUnmarshaler)
}

// fieldByTag returns the field of struct type t whose toml tag is name.
func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tagName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// typeName names a schema type for messages.
func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeFor[Duration]():
		return `a duration string such as "30s"`
	case isText(t):
		return "a string"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct:
		return "a table"
	case reflect.Map:
		return "a table of " + strings.TrimPrefix(strings.TrimPrefix(typeName(t.Elem()), "a "), "an ") + "s"
	case reflect.Slice:
		return "an array"
	}
	return t.String()
}

// tomlTypeName names the TOML type of a value decoded into plain maps.
func tomlTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	case time.Time, toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return "a date-time"
	}
	return reflect.TypeOf(v).String()
}
