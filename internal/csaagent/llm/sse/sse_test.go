package sse

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

func TestEvents(t *testing.T) {
	stream := ": keep-alive\r\n\r\n" +
		"event: message_start\r\ndata: {\"a\":1}\r\n\r\n" +
		"data: line one\ndata: line two\n\n" +
		"event: ignored-without-data\n\n" +
		"data:no space\nid: 7\nretry: 100\n\n" +
		"data: [DONE]\n\n" +
		"data: cut off without its blank line"
	r := NewReader(io.NopCloser(strings.NewReader(stream)), time.Minute)
	defer r.Close()
	want := []Event{{"message_start", `{"a":1}`}, {"", "line one\nline two"}, {"", "no space"}, {"", "[DONE]"}}
	for i, w := range want {
		ev, err := r.Next()
		if err != nil || ev != w {
			t.Fatalf("event %d: %+v %v, want %+v", i, ev, err, w)
		}
	}
	if ev, err := r.Next(); err != io.EOF {
		t.Errorf("after the last event: %+v %v", ev, err)
	}
}

// A silent stream fails with ErrStalled once the stall timeout passes,
// not before an event that keeps it alive.
func TestStall(t *testing.T) {
	pr, pw := io.Pipe()
	r := NewReader(pr, 200*time.Millisecond)
	defer r.Close()
	go func() { _, _ = pw.Write([]byte("data: first\n\n")) }()
	if ev, err := r.Next(); err != nil || ev.Data != "first" {
		t.Fatalf("first event %+v %v", ev, err)
	}
	start := time.Now()
	_, err := r.Next()
	if !errors.Is(err, llm.ErrStalled) {
		t.Fatalf("error %v, want ErrStalled", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("stalled after %v", d)
	}
}

func TestNoStallTimeout(t *testing.T) {
	r := NewReader(io.NopCloser(strings.NewReader("data: x\n\n")), 0)
	if ev, err := r.Next(); err != nil || ev.Data != "x" {
		t.Fatalf("%+v %v", ev, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}
