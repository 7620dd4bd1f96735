package runner

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// lineRecorder collects what a pump hands to its line func. The pump may
// reuse the slice it passes, so each line is copied.
type lineRecorder struct{ lines [][]byte }

func (r *lineRecorder) add(b []byte) { r.lines = append(r.lines, append([]byte(nil), b...)) }

func (r *lineRecorder) strings() []string {
	out := make([]string, len(r.lines))
	for i, l := range r.lines {
		out[i] = string(l)
	}
	return out
}

// newPump returns a pump reading from a pipe whose write end is returned,
// logging to a file in a temp dir.
func newPump(t *testing.T, maxLog int64, live io.Writer, lines func([]byte)) (*pump, *os.File, string) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	logPath := filepath.Join(t.TempDir(), "output.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return &pump{src: r, log: log, live: live, maxLog: maxLog, lines: lines}, w, logPath
}

// pumpAll runs p, feeds it chunks through w, closes w and waits for p to
// reach EOF.
func pumpAll(t *testing.T, p *pump, w *os.File, chunks ...[]byte) {
	t.Helper()
	done := make(chan struct{})
	go p.run(done)
	go func() {
		for _, c := range chunks {
			if _, err := w.Write(c); err != nil {
				t.Error(err)
				break
			}
		}
		w.Close()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("pump did not finish after its source closed")
	}
}

func readLog(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestPumpLogCap(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 10)) // 100 bytes
	tests := []struct {
		name          string
		maxLog        int64
		chunks        [][]byte
		wantLog       int
		wantTruncated bool
	}{
		{"under the cap", 1000, [][]byte{data}, 100, false},
		{"exactly the cap", 100, [][]byte{data}, 100, false},
		{"over the cap in one read", 30, [][]byte{data}, 30, true},
		{"cap reached, then more", 100, [][]byte{data, []byte("x")}, 100, true},
		{"one byte cap", 1, [][]byte{data}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var live bytes.Buffer
			p, w, logPath := newPump(t, tt.maxLog, &live, nil)
			var touched atomic.Int64
			p.touch = func() { touched.Add(1) }
			pumpAll(t, p, w, tt.chunks...)
			all := bytes.Join(tt.chunks, nil)
			got := readLog(t, logPath)
			if !bytes.Equal(got, all[:tt.wantLog]) {
				t.Errorf("log = %q, want the first %d bytes", got, tt.wantLog)
			}
			if p.truncated != tt.wantTruncated {
				t.Errorf("truncated = %v, want %v", p.truncated, tt.wantTruncated)
			}
			if p.total != int64(len(all)) {
				t.Errorf("total = %d, want %d (every byte read is counted)", p.total, len(all))
			}
			if p.written != int64(tt.wantLog) {
				t.Errorf("written = %d, want %d", p.written, tt.wantLog)
			}
			if !bytes.Equal(live.Bytes(), all) {
				t.Errorf("live got %d bytes, want all %d (the cap is for the log only)", live.Len(), len(all))
			}
			if touched.Load() == 0 {
				t.Error("the idle clock was not touched")
			}
		})
	}
}

func TestPumpSplitsLines(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"whole lines", []string{"a\nb\n"}, []string{"a\n", "b\n"}},
		{"line across reads", []string{"hel", "lo\nwor", "ld\n"}, []string{"hello\n", "world\n"}},
		{"line across three reads", []string{"a", "b", "c\n"}, []string{"abc\n"}},
		{"empty lines", []string{"\n\nx\n"}, []string{"\n", "\n", "x\n"}},
		{"newline alone completes", []string{"abc", "\n"}, []string{"abc\n"}},
		{"no trailing newline", []string{"a\nrest"}, []string{"a\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec lineRecorder
			p := &pump{lines: rec.add}
			for _, c := range tt.chunks {
				p.split([]byte(c))
			}
			if got := rec.strings(); strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPumpRunHandsOverLines(t *testing.T) {
	var rec lineRecorder
	p, w, logPath := newPump(t, 1<<20, nil, rec.add)
	pumpAll(t, p, w, []byte("first li"), []byte("ne\nsecond\nunfinished"))
	want := []string{"first line\n", "second\n", "unfinished"}
	if got := rec.strings(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q (a last line without newline is handed over at EOF)", got, want)
	}
	if got := string(readLog(t, logPath)); got != "first line\nsecond\nunfinished" {
		t.Errorf("log = %q", got)
	}
}

func TestPumpLongLineInChunks(t *testing.T) {
	const readSize = 32 * 1024
	tests := []struct {
		name    string
		data    []byte
		viaPipe bool
	}{
		{"2.5 MiB then newline, fed as reads", append(bytes.Repeat([]byte("a"), 5*maxLine/2), "tail\n"...), false},
		{"3 MiB without newline, through a pipe", bytes.Repeat([]byte("b"), 3*maxLine), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec lineRecorder
			if tt.viaPipe {
				p, w, _ := newPump(t, int64(len(tt.data))+1, nil, rec.add)
				pumpAll(t, p, w, tt.data)
			} else {
				p := &pump{lines: rec.add}
				for b := tt.data; len(b) > 0; {
					n := min(readSize, len(b))
					p.split(b[:n])
					b = b[n:]
				}
			}
			if len(rec.lines) < 3 {
				t.Fatalf("handed over %d pieces, want at least 3 for %d bytes", len(rec.lines), len(tt.data))
			}
			for i, l := range rec.lines {
				if len(l) > maxLine+readSize {
					t.Errorf("piece %d is %d bytes, more than %d", i, len(l), maxLine+readSize)
				}
			}
			if got := bytes.Join(rec.lines, nil); !bytes.Equal(got, tt.data) {
				t.Errorf("pieces join to %d bytes, want the %d bytes written, in order", len(got), len(tt.data))
			}
		})
	}
}

// failingWriter fails every write and counts the calls.
type failingWriter struct{ calls int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.calls++
	return 0, errors.New("terminal gone")
}

func TestPumpLiveErrorsDoNotStopRecording(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcde\n"), 20*1024) // 320 KiB: many reads
	t.Run("failing writer", func(t *testing.T) {
		fw := &failingWriter{}
		var rec lineRecorder
		p, w, logPath := newPump(t, 1<<30, fw, rec.add)
		pumpAll(t, p, w, data)
		if got := readLog(t, logPath); !bytes.Equal(got, data) {
			t.Errorf("log has %d bytes, want %d", len(got), len(data))
		}
		if fw.calls != 1 {
			t.Errorf("live writer called %d times, want once (dropped after its first error)", fw.calls)
		}
		if len(rec.lines) != 20*1024 {
			t.Errorf("parser got %d lines, want %d", len(rec.lines), 20*1024)
		}
		if p.total != int64(len(data)) {
			t.Errorf("total = %d, want %d", p.total, len(data))
		}
	})
	t.Run("closed pipe", func(t *testing.T) {
		lr, lw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		lr.Close() // the reader went away: writes fail with EPIPE
		defer lw.Close()
		p, w, logPath := newPump(t, 1<<30, lw, nil)
		pumpAll(t, p, w, data)
		if got := readLog(t, logPath); !bytes.Equal(got, data) {
			t.Errorf("log has %d bytes, want %d", len(got), len(data))
		}
		if p.live != nil {
			t.Error("live writer kept after it failed")
		}
	})
}

// failFirst is a log whose first write fails part-way for lack of space,
// as a full disk does; later writes would succeed (space came back).
type failFirst struct {
	bytes.Buffer
	writes int
}

func (f *failFirst) Write(b []byte) (int, error) {
	f.writes++
	if f.writes == 1 {
		n, _ := f.Buffer.Write(b[:len(b)/2])
		return n, &os.PathError{Op: "write", Path: "output.log", Err: syscall.ENOSPC}
	}
	return f.Buffer.Write(b)
}

// A log that fails a write is written no more: it keeps the stream's
// start without a gap, the run is told once, and the output still counts
// and reaches the parser whole.
func TestPumpLogWriteFails(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	log := &failFirst{}
	var told []error
	seen := make(chan string, 3)
	p := &pump{src: r, log: log, maxLog: 1 << 20, lines: func(b []byte) { seen <- string(b) },
		failed: func(err error) { told = append(told, err) }}
	done := make(chan struct{})
	go p.run(done)
	var got string
	// One line at a time: each is a read, and a write, of its own.
	for _, line := range []string{"one\n", "two\n", "three\n"} {
		if _, err := w.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
		got += <-seen
	}
	w.Close()
	<-done
	if log.String() != "on" || log.writes != 1 {
		t.Errorf("log %q after %d writes, want the start of the stream up to the failed write, and no write after it", log.String(), log.writes)
	}
	if len(told) != 1 || !errors.Is(told[0], syscall.ENOSPC) {
		t.Errorf("failed was told %v, want one ENOSPC", told)
	}
	if !p.truncated || p.total != 14 || p.written != 2 {
		t.Errorf("truncated %v, total %d, written %d; want true, 14, 2", p.truncated, p.total, p.written)
	}
	if got != "one\ntwo\nthree\n" {
		t.Errorf("parser got %q", got)
	}
}
