package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object whose keys the caller does not know all of:
// each value kept as it was read, the keys in their order (a person's
// settings.json stays as they laid it out; a new key goes last, as
// Claude Code adds it).
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func (o *object) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil { // null
		*o = object{}
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("not a JSON object")
	}
	*o = object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if _, dup := o.vals[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = raw
	}
	_, err = dec.Token()
	return err
}

func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(o.vals[k])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// field decodes o's key into v; a missing key leaves v as it is.
func (o *object) field(key string, v any) error {
	raw, ok := o.vals[key]
	if !ok || string(raw) == "null" {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// set sets key (last, if new) to v.
func (o *object) set(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = b
	return nil
}

func (o *object) has(key string) bool { _, ok := o.vals[key]; return ok }

func (o *object) remove(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// setIn sets or (v nil) removes key in the object held at o's name.
func (o *object) setIn(name, key string, v any) error {
	var inner object
	if err := o.field(name, &inner); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if v == nil {
		inner.remove(key)
	} else if err := inner.set(key, v); err != nil {
		return err
	}
	return o.set(name, inner)
}
