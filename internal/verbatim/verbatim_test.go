package verbatim

import (
	"encoding/json"
	"reflect"
	"testing"
)

type inner struct {
	Msg string `json:"message"`
}

type Embedded struct {
	Top string `json:"top"`
}

type record struct {
	Embedded
	Name   string            `json:"name"`
	Args   []string          `json:"args"`
	Env    map[string]string `json:"env"`
	Fail   *inner            `json:"failure"`
	Chain  []inner           `json:"chain"`
	Data   map[string]any    `json:"data"`
	Skip   string            `json:"-"`
	Raw    map[string]string `json:"raw_bytes,omitempty"`
	Bytes  []byte            `json:"bytes"`
	Path   string            `json:"a/b~c"`
	hidden string
}

// Every byte value in every kind of place a string can be: a JSON round
// trip with Collect and Restore gives back the exact bytes.
func TestRoundTripEveryByte(t *testing.T) {
	for b := 0; b < 256; b++ {
		s := "x" + string([]byte{byte(b)}) + "\xff\xfe" + string([]byte{byte(b)})
		in := record{
			Embedded: Embedded{Top: s},
			Name:     s, Args: []string{"ok", s}, Env: map[string]string{"K/~": s},
			Fail: &inner{Msg: s}, Chain: []inner{{Msg: "fine"}, {Msg: s}},
			Data:  map[string]any{"text": s, "list": []any{"a", s}, "obj": map[string]any{"m": s}},
			Bytes: []byte{0xff}, Path: s,
		}
		in.Raw = Collect(&in)
		if len(in.Raw) != 10 {
			t.Fatalf("byte %#x: collected %d fields, want 10: %v", b, len(in.Raw), in.Raw)
		}
		data, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out record
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		if bad := Restore(&out, out.Raw); len(bad) != 0 {
			t.Fatalf("byte %#x: not restored %v", b, bad)
		}
		out.Raw, in.Raw = nil, nil
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("byte %#x:\n in %#v\nout %#v", b, in, out)
		}
	}
}

func TestNothingToKeep(t *testing.T) {
	r := record{Name: "café ✓", Args: []string{"\x00\x01"}}
	if raw := Collect(&r); raw != nil {
		t.Fatalf("valid text collected: %v", raw)
	}
}

func TestRestoreRefusesWhatItCannotPlace(t *testing.T) {
	var r record
	bad := Restore(&r, map[string]string{
		"/nosuch":          "eA==",
		"/name":            "not base64!",
		"/args/3":          "eA==",
		"/failure/message": "eA==", // nil pointer
		"/top":             "/w==",
	})
	if len(bad) != 4 {
		t.Fatalf("bad = %v, want the four that cannot be placed", bad)
	}
	if r.Top != "\xff" {
		t.Fatalf("top = %q", r.Top)
	}
}
