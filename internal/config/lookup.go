package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Map returns the effective configuration, defaults included, as nested
// maps keyed like the file (snake_case, tool names as written). Values are
// string, bool, int64, []any and map[string]any; durations are strings
// such as "5s", "" when unset. The map is the caller's own.
func (l *Loaded) Map() map[string]any {
	return toMap(reflect.ValueOf(&l.Config).Elem()).(map[string]any)
}

// Get returns the effective value of a dotted key such as
// "max_recursion_depth", "tools.codex.path" or "defaults" (a table, as in
// Map). A key that is not part of the configuration gives an error
// wrapping ErrUnknownKey.
func (l *Loaded) Get(key string) (any, error) {
	v, ok := lookup(l.Map(), strings.Split(key, "."))
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownKey, key)
	}
	return v, nil
}

// lookup follows key parts through nested maps.
func lookup(m map[string]any, parts []string) (any, bool) {
	var v any = m
	for _, p := range parts {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// toMap converts a schema value to plain maps and TOML scalar types.
func toMap(v reflect.Value) any {
	if v.Type() != reflect.TypeFor[time.Time]() && v.Type().Implements(textMarshaler) {
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return fmt.Sprint(v.Interface())
		}
		return string(b)
	}
	switch v.Kind() {
	case reflect.Struct:
		m := make(map[string]any, v.NumField())
		for i := range v.NumField() {
			if name := tagName(v.Type().Field(i)); name != "" {
				if f := v.Field(i); f.Kind() == reflect.Pointer && f.IsNil() {
					continue // an unset override
				}
				m[name] = toMap(v.Field(i))
			}
		}
		return m
	case reflect.Map:
		m := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			m[it.Key().String()] = toMap(it.Value())
		}
		return m
	case reflect.Slice:
		a := make([]any, v.Len())
		for i := range a {
			a[i] = toMap(v.Index(i))
		}
		return a
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return toMap(v.Elem())
	}
	return v.Interface()
}
