package jsonrpc

import (
	"encoding/json"
	"testing"
)

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		`1`: true, `-2.5`: true, `"x"`: true, `""`: true, ` 3 `: true,
		``: false, `null`: false, `{}`: false, `[1]`: false, `true`: false, `1x`: false,
	} {
		if got := ValidID(json.RawMessage(id)); got != want {
			t.Errorf("ValidID(%q) = %v", id, got)
		}
	}
}

// TestKinds: an id member makes a request, even null (it is answered
// with null); no id member a notification; no method neither.
func TestKinds(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":1,"method":"m"}`:    "request",
		`{"id":null,"method":"m"}`: "request",
		`{"method":"m"}`:           "notification",
		`{"id":1,"result":{}}`:     "response",
	} {
		var m Message
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		got := "response"
		switch {
		case m.IsRequest() && m.IsNotification():
			got = "both"
		case m.IsRequest():
			got = "request"
		case m.IsNotification():
			got = "notification"
		}
		if got != want {
			t.Errorf("%s is a %s, want %s", line, got, want)
		}
	}
}

func TestIDs(t *testing.T) {
	if string(IDOrNull(nil)) != "null" || string(IDOrNull(json.RawMessage(`"a"`))) != `"a"` {
		t.Errorf("IDOrNull: %s %s", IDOrNull(nil), IDOrNull(json.RawMessage(`"a"`)))
	}
	n := Null()
	n[0] = 'X' // a caller's copy: the next Null is still null
	if string(Null()) != "null" {
		t.Errorf("Null is %s", Null())
	}
}

// TestRaw: nil is no member; a nil pointer is the value null.
func TestRaw(t *testing.T) {
	if r, err := Raw(nil); r != nil || err != nil {
		t.Errorf("Raw(nil) = %q, %v", r, err)
	}
	var p *struct{}
	if r, err := Raw(p); string(r) != "null" || err != nil {
		t.Errorf("Raw(nil pointer) = %q, %v", r, err)
	}
	if _, err := Raw(func() {}); err == nil {
		t.Error("Raw encoded a func")
	}
}

func TestErrorText(t *testing.T) {
	var err error = Errorf(CodeMethodNotFound, "unknown method %q", "x/y")
	if err.Error() != `unknown method "x/y" (-32601)` {
		t.Errorf("error text %q", err.Error())
	}
}
