package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

// lines reads r to its end: each line, or "ERR" for one too long.
func lines(t *testing.T, r *Reader) []string {
	t.Helper()
	var out []string
	for {
		b, err := r.Line()
		switch {
		case err == io.EOF:
			return out
		case errors.Is(err, ErrTooLong):
			out = append(out, "ERR")
		case err != nil:
			t.Fatal(err)
		default:
			out = append(out, string(b))
		}
	}
}

func TestReaderLines(t *testing.T) {
	in := "{\"a\":1}\n\r\n\n  \n{\"b\":2}\r\nlast"
	got := lines(t, NewReader(strings.NewReader(in), 100))
	want := []string{`{"a":1}`, "", "", "  ", `{"b":2}`, "last"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// TestReaderLimit: a line of max bytes is read, one byte more is too long
// and dropped whole, and the stream goes on; a line longer than the
// reader's buffer (64 KiB) under the limit comes whole.
func TestReaderLimit(t *testing.T) {
	const max = 200 << 10
	big := strings.Repeat("x", max)
	in := big + "\n" + big + "y\n" + "after\n" + strings.Repeat("z", 3*max) + "\r\n" + "end\n"
	got := lines(t, NewReader(strings.NewReader(in), max))
	if len(got) != 5 || got[0] != big || got[1] != "ERR" || got[2] != "after" || got[3] != "ERR" || got[4] != "end" {
		short := make([]string, len(got))
		for i, l := range got {
			short[i] = l[:min(len(l), 10)]
		}
		t.Errorf("lines %q (first bytes)", short)
	}
	// The last line, over the limit and without a newline, is reported
	// too, then the end.
	got = lines(t, NewReader(strings.NewReader("ok\n"+big+"yy"), max))
	if len(got) != 2 || got[0] != "ok" || got[1] != "ERR" {
		t.Errorf("an over-long last line: %d lines", len(got))
	}
}

// TestInvalidUTF8: bytes that are not UTF-8 in params or a result pass
// through a read, a decode and an encode unchanged (the hub forwards what
// a server wrote byte for byte).
func TestInvalidUTF8(t *testing.T) {
	raw := "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"a\xff\xfe\xc3(b\"}}\n"
	b, err := NewReader(strings.NewReader(raw), 1<<10).Line()
	if err != nil {
		t.Fatal(err)
	}
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(m.Result, []byte("a\xff\xfe\xc3(b")) {
		t.Errorf("result %q lost the bytes", m.Result)
	}
	out, err := Encode(&m)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != raw {
		t.Errorf("encoded\n%q\nread\n%q", out, raw)
	}
}

// TestEncode: the bytes each kind of message is on the wire; "jsonrpc"
// only when the side sets it.
func TestEncode(t *testing.T) {
	params, _ := Raw(map[string]any{"b": "<&>", "a": 1})
	for _, c := range []struct {
		m    *Message
		want string
	}{
		{&Message{JSONRPC: Version, ID: json.RawMessage("1"), Method: "csa-hub/status"}, `{"jsonrpc":"2.0","id":1,"method":"csa-hub/status"}`},
		{&Message{Method: "turn/started", Params: params}, `{"method":"turn/started","params":{"a":1,"b":"\u003c\u0026\u003e"}}`},
		{&Message{ID: json.RawMessage(`"x"`), Result: json.RawMessage(`{}`)}, `{"id":"x","result":{}}`},
		{&Message{ID: Null(), Error: Errorf(CodeParse, "bad %d", 1)}, `{"id":null,"error":{"code":-32700,"message":"bad 1"}}`},
		{&Message{ID: json.RawMessage("2"), Error: &Error{Code: -32001, Message: "busy", Data: json.RawMessage(`{"retryable":true}`)}},
			`{"id":2,"error":{"code":-32001,"message":"busy","data":{"retryable":true}}}`},
	} {
		b, err := Encode(c.m)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want+"\n" {
			t.Errorf("encoded %s, want %s", b, c.want)
		}
	}
	if _, err := Encode(&Message{Method: "m", Params: json.RawMessage("{not json")}); err == nil {
		t.Error("params that are not JSON were encoded")
	}
}
