package events_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/events"
)

var t0 = time.Date(2025, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600))

func fixedNow() time.Time { return t0 }

func readFile(t *testing.T, path string) ([]events.Event, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	evs, bad, err := events.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return evs, bad
}

func open(t *testing.T, path string) *events.Writer {
	t.Helper()
	w, err := events.OpenWriter(path, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWriterSeqFromOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w := open(t, path)
	types := []string{events.SessionCreated, events.ProcessStarted, events.ProcessExited, events.SessionEnded}
	for i, typ := range types {
		if err := w.Emit(typ, map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("events file mode = %v, want 0600", m)
	}
	evs, bad := readFile(t, path)
	if bad != 0 || len(evs) != len(types) {
		t.Fatalf("read %d events, %d bad; want %d, 0", len(evs), bad, len(types))
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Errorf("event %d seq = %d, want %d", i, e.Seq, i+1)
		}
		if e.Type != types[i] {
			t.Errorf("event %d type = %q, want %q", i, e.Type, types[i])
		}
		if !e.TS.Equal(t0) {
			t.Errorf("event %d ts = %v, want %v", i, e.TS, t0)
		}
		if _, off := e.TS.Zone(); off != 0 {
			t.Errorf("event %d ts %v is not UTC", i, e.TS)
		}
		var d map[string]int
		if err := json.Unmarshal(e.Data, &d); err != nil || d["i"] != i {
			t.Errorf("event %d data = %s, want {\"i\":%d}", i, e.Data, i)
		}
	}
}

func TestWriterEmitBadData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w := open(t, path)
	defer w.Close()
	if err := w.Emit("x", func() {}); err == nil {
		t.Fatal("Emit of unencodable data succeeded")
	}
	if err := w.Emit("y", nil); err != nil {
		t.Fatal(err)
	}
	evs, _ := readFile(t, path)
	if len(evs) != 1 || evs[0].Seq != 1 || evs[0].Type != "y" {
		t.Errorf("events = %+v, want one event y with seq 1 (a failed encode uses no seq)", evs)
	}
}

func TestOpenWriterContinuesSeq(t *testing.T) {
	tests := []struct {
		name     string
		existing string
		wantNext int64
	}{
		{"missing file", "", 1},
		{"empty file", "\x00", 1}, // "\x00" marks: create an empty file
		{"three events", `{"seq":1,"ts":"2025-01-01T00:00:00Z","type":"a"}
{"seq":2,"ts":"2025-01-01T00:00:00Z","type":"b"}
{"seq":3,"ts":"2025-01-01T00:00:00Z","type":"c"}
`, 4},
		{"out of order takes max", `{"seq":7,"ts":"2025-01-01T00:00:00Z","type":"a"}
{"seq":2,"ts":"2025-01-01T00:00:00Z","type":"b"}
`, 8},
		{"garbage lines ignored", `not json
{"seq":5,"ts":"2025-01-01T00:00:00Z","type":"a"}
{"seq":99}
`, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "events.jsonl")
			switch tt.existing {
			case "":
			case "\x00":
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(path, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			w := open(t, path)
			if err := w.Emit("next", nil); err != nil {
				t.Fatal(err)
			}
			if err := w.Emit("after", nil); err != nil {
				t.Fatal(err)
			}
			w.Close()
			evs, _ := readFile(t, path)
			if len(evs) < 2 {
				t.Fatalf("read %d events, want at least 2", len(evs))
			}
			last2 := evs[len(evs)-2:]
			if last2[0].Type != "next" || last2[0].Seq != tt.wantNext || last2[1].Seq != tt.wantNext+1 {
				t.Errorf("appended events = %+v, want seq %d and %d", last2, tt.wantNext, tt.wantNext+1)
			}
			if tt.existing != "" && tt.existing != "\x00" {
				data, _ := os.ReadFile(path)
				if !strings.HasPrefix(string(data), tt.existing) {
					t.Error("OpenWriter did not keep the existing events")
				}
			}
		})
	}
}

func TestReadSkipsTornLine(t *testing.T) {
	in := `{"seq":1,"ts":"2025-01-01T00:00:00Z","type":"session.created","data":{"tool":"codex"}}
{"seq":2,"ts":"2025-01-01T00:00:01Z","type":"process.started"}
{"seq":3,"ts":"2025-01-01T00:00:02Z","ty`
	evs, bad, err := events.Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if bad != 1 {
		t.Errorf("bad = %d, want 1 (the torn line)", bad)
	}
	if len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || evs[1].Type != events.ProcessStarted {
		t.Errorf("events = %+v", evs)
	}
	if string(evs[0].Data) != `{"tool":"codex"}` {
		t.Errorf("data = %s", evs[0].Data)
	}
}

func TestReadCountsBadLines(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		good, bad int
	}{
		{"empty", "", 0, 0},
		{"blank line", "\n", 0, 1},
		{"no type", `{"seq":1}` + "\n", 0, 1},
		{"array", "[1,2]\n", 0, 1},
		{"good without trailing newline", `{"seq":1,"type":"a"}`, 1, 0},
		{"mixed", "x\n" + `{"seq":1,"type":"a"}` + "\n{\n" + `{"seq":2,"type":"b"}` + "\n", 2, 2},
		{"long line", `{"seq":1,"type":"a","data":"` + strings.Repeat("z", 200*1024) + `"}` + "\n", 1, 0},
	}
	for _, tt := range tests {
		evs, bad, err := events.Read(strings.NewReader(tt.in))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if len(evs) != tt.good || bad != tt.bad {
			t.Errorf("%s: %d good, %d bad; want %d, %d", tt.name, len(evs), bad, tt.good, tt.bad)
		}
	}
}

func TestConcurrentEmit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w := open(t, path)
	const goroutines, each = 8, 50
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := w.Emit("text", map[string]any{"g": g, "i": i, "pad": strings.Repeat("p", 500)}); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	w.Close()
	evs, bad := readFile(t, path)
	if bad != 0 {
		t.Errorf("%d bad lines: concurrent writes interleaved", bad)
	}
	if len(evs) != goroutines*each {
		t.Fatalf("read %d events, want %d", len(evs), goroutines*each)
	}
	// Each line is written under the lock, so file order is seq order.
	perG := map[int]int{}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d, want %d (unique and consecutive)", i, e.Seq, i+1)
		}
		var d struct{ G, I int }
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.I != perG[d.G] {
			t.Errorf("goroutine %d: event %d came as %d", d.G, perG[d.G], d.I)
		}
		perG[d.G]++
	}
}

// An agent's output is any bytes: every byte value, in a struct's field and
// in a map's nested value, reads back exactly through Decode, while a
// reader that knows nothing of raw_bytes sees text with U+FFFD.
func TestEventsKeepEveryByte(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	w, err := events.OpenWriter(path, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	type text struct {
		Text string `json:"text"`
	}
	var want []string
	for b := 0; b < 256; b++ {
		s := "x" + string([]byte{byte(b)}) + "\xe9"
		want = append(want, s)
		if err := w.Emit("text", text{s}); err != nil {
			t.Fatal(err)
		}
		if err := w.Emit("other", map[string]any{"nested": []any{map[string]any{"v": s}}}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	evs, bad := readFile(t, path)
	if bad != 0 || len(evs) != 512 {
		t.Fatalf("%d events, %d bad", len(evs), bad)
	}
	for i := 0; i < 256; i++ {
		var got text
		if err := evs[2*i].Decode(&got); err != nil || got.Text != want[i] {
			t.Fatalf("byte %#x: %q, %v", i, got.Text, err)
		}
		if !json.Valid(evs[2*i].Data) || !strings.HasSuffix(string(evs[2*i].Data), "\\ufffd\"}") {
			t.Fatalf("byte %#x: data %s", i, evs[2*i].Data)
		}
		var m struct {
			Nested []struct {
				V string `json:"v"`
			} `json:"nested"`
		}
		if err := evs[2*i+1].Decode(&m); err != nil || m.Nested[0].V != want[i] {
			t.Fatalf("byte %#x nested: %q, %v", i, m.Nested, err)
		}
	}
}
