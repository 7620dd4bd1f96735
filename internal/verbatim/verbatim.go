// Package verbatim keeps the exact bytes of strings that JSON and TOML
// cannot hold. Prompts, paths and agents' output are user data and may be
// any bytes, while a JSON or TOML string holds only UTF-8: an encoder
// writes such a field with U+FFFD for each byte that is not text, and
// Collect gives, beside it, the field's exact bytes in base64, keyed by
// the field's JSON Pointer (RFC 6901, with the fields' JSON names). A
// reader that knows nothing of it still reads sensible text; Restore puts
// the exact bytes back.
package verbatim

import (
	"encoding/base64"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Field is the name records give the map Collect makes ("raw_bytes"): a
// struct field of that JSON name is not walked.
const Field = "raw_bytes"

// Collect returns the base64 of every string reachable from v that is not
// valid UTF-8, keyed by its JSON Pointer; nil when every string is text.
func Collect(v any) map[string]string {
	var c collector
	c.walk(reflect.ValueOf(v), "")
	return c.raw
}

type collector struct{ raw map[string]string }

func (c *collector) walk(v reflect.Value, at string) {
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); !utf8.ValidString(s) {
			if c.raw == nil {
				c.raw = map[string]string{}
			}
			c.raw[at] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			c.walk(v.Elem(), at)
		}
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			if f.inline {
				c.walk(v.Field(f.index), at)
				continue
			}
			c.walk(v.Field(f.index), at+"/"+escape(f.name))
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // []byte: JSON writes it as base64 already
		}
		for i := 0; i < v.Len(); i++ {
			c.walk(v.Index(i), at+"/"+strconv.Itoa(i))
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		it := v.MapRange()
		for it.Next() {
			c.walk(it.Value(), at+"/"+escape(it.Key().String()))
		}
	}
}

// Restore puts the exact bytes of raw (as Collect made it) back into the
// fields of v, a pointer. It returns the pointers it could not restore:
// no such string field, or not base64.
func Restore(v any, raw map[string]string) (bad []string) {
	if len(raw) == 0 {
		return nil
	}
	root := reflect.ValueOf(v)
	if root.Kind() != reflect.Pointer || root.IsNil() {
		for p := range raw {
			bad = append(bad, p)
		}
		return bad
	}
	for p, enc := range raw {
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || (p != "" && !strings.HasPrefix(p, "/")) {
			bad = append(bad, p)
			continue
		}
		var segs []string
		if p != "" {
			segs = strings.Split(p[1:], "/")
		}
		nv, ok := set(root.Elem(), segs, string(b))
		if !ok {
			bad = append(bad, p)
			continue
		}
		root.Elem().Set(nv)
	}
	return bad
}

// set returns v with the string at segs replaced by s, copying what it
// cannot change in place (struct and interface values in maps).
func set(v reflect.Value, segs []string, s string) (reflect.Value, bool) {
	if len(segs) == 0 {
		switch {
		case v.Kind() == reflect.String:
			return reflect.ValueOf(s).Convert(v.Type()), true
		case v.Kind() == reflect.Interface && !v.IsNil() && v.Elem().Kind() == reflect.String:
			return reflect.ValueOf(s).Convert(v.Elem().Type()), true
		}
		return v, false
	}
	seg := unescape(segs[0])
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		nv, ok := set(v.Elem(), segs, s)
		if ok {
			v.Elem().Set(nv)
		}
		return v, ok
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		inner := reflect.New(v.Elem().Type()).Elem()
		inner.Set(v.Elem())
		return set(inner, segs, s)
	case reflect.Struct:
		for _, f := range fieldsOf(v.Type()) {
			rest := segs[1:]
			if f.inline {
				rest = segs
			} else if f.name != seg {
				continue
			}
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			fv := c.Field(f.index)
			nv, ok := set(fv, rest, s)
			if !ok {
				if f.inline {
					continue
				}
				return v, false
			}
			fv.Set(nv)
			return c, true
		}
	case reflect.Slice, reflect.Array:
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || i >= v.Len() {
			return v, false
		}
		if v.Kind() == reflect.Array {
			c := reflect.New(v.Type()).Elem()
			c.Set(v)
			v = c
		}
		nv, ok := set(v.Index(i), segs[1:], s)
		if ok {
			v.Index(i).Set(nv)
		}
		return v, ok
	case reflect.Map:
		if v.IsNil() || v.Type().Key().Kind() != reflect.String {
			return v, false
		}
		k := reflect.ValueOf(seg).Convert(v.Type().Key())
		mv := v.MapIndex(k)
		if !mv.IsValid() {
			return v, false
		}
		c := reflect.New(mv.Type()).Elem()
		c.Set(mv)
		nv, ok := set(c, segs[1:], s)
		if ok {
			v.SetMapIndex(k, nv)
		}
		return v, ok
	}
	return v, false
}

// field is a struct field as encoding/json names it; an inline one is an
// embedded struct whose fields are its parent's.
type field struct {
	name   string
	index  int
	inline bool
}

var fieldCache sync.Map // reflect.Type -> []field

// fieldsOf lists the fields encoding/json writes: exported, not "-",
// embedded structs without a name inline, the raw map itself left out.
func fieldsOf(t reflect.Type) []field {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]field)
	}
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || name == Field {
			continue
		}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			fs = append(fs, field{index: i, inline: true})
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		fs = append(fs, field{name: name, index: i})
	}
	fieldCache.Store(t, fs)
	return fs
}

func escape(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescape(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
