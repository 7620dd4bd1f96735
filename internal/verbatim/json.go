package verbatim

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// Marshal is json.Marshal of v, a pointer to a struct with a field of
// JSON name raw_bytes (a map[string]string), which it sets to Collect(v)
// first: the record keeps the exact bytes of its strings.
func Marshal(v any) ([]byte, error) {
	keep(v)
	return json.Marshal(v)
}

// MarshalIndent is Marshal, indented as json.MarshalIndent does.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	keep(v)
	return json.MarshalIndent(v, prefix, indent)
}

// Unmarshal is json.Unmarshal into v followed by Restore of its raw_bytes
// field. It returns the pointers that could not be restored.
func Unmarshal(data []byte, v any) (bad []string, err error) {
	if err := json.Unmarshal(data, v); err != nil {
		return nil, err
	}
	if f, ok := rawField(reflect.ValueOf(v)); ok {
		return Restore(v, f.Interface().(map[string]string)), nil
	}
	return nil, nil
}

func keep(v any) {
	if f, ok := rawField(reflect.ValueOf(v)); ok {
		f.Set(reflect.ValueOf(Collect(v)))
	}
}

var rawType = reflect.TypeFor[map[string]string]()

// rawField finds the raw_bytes field of the struct v points to, in it or
// in a struct it embeds.
func rawField(v reflect.Value) (reflect.Value, bool) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return reflect.Value{}, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == Field && sf.Type == rawType && v.Field(i).CanSet() {
			return v.Field(i), true
		}
		if sf.Anonymous && name == "" {
			if f, ok := rawField(v.Field(i)); ok {
				return f, true
			}
		}
	}
	return reflect.Value{}, false
}

// replaced is what encoding/json writes for a byte that is not UTF-8 (a
// U+FFFD that was in the text is written as itself).
var replaced = []byte(`\ufffd`)

// Of is Collect(v) for v already encoded as JSON: the strings of v are
// walked only when its encoding shows a byte that was not UTF-8.
func Of(encoded []byte, v any) map[string]string {
	if !bytes.Contains(encoded, replaced) {
		return nil
	}
	return Collect(v)
}
