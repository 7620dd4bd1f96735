// Package sse reads server-sent events from a model API's streamed answer,
// giving up when the stream goes silent.
package sse

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Event is one dispatched event. Name is "" for unnamed events (the
// default "message" type is left empty).
type Event struct {
	Name string
	Data string
}

// Reader reads events from a stream body. With a stall timeout, a timer
// closes the body when no event or comment arrives in time; the blocked
// read then fails and Next returns llm.ErrStalled. A timer, not a reader
// goroutine: nothing is left running when the caller stops reading.
type Reader struct {
	body    io.ReadCloser
	br      *bufio.Reader
	stall   time.Duration
	timer   *time.Timer
	stalled atomic.Bool
}

// maxLine bounds one line, so a broken server cannot grow memory forever.
const maxLine = 16 << 20

// NewReader reads body; stall <= 0 waits forever.
func NewReader(body io.ReadCloser, stall time.Duration) *Reader {
	r := &Reader{body: body, br: bufio.NewReaderSize(body, 64<<10), stall: stall}
	if stall > 0 {
		r.timer = time.AfterFunc(stall, func() {
			r.stalled.Store(true)
			_ = body.Close()
		})
	}
	return r
}

// Next returns the next event; io.EOF at the end of the stream, whether
// the last event was complete or not (the caller knows its API's final
// event), llm.ErrStalled after a silence, or the transport's error.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data strings.Builder
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			return Event{}, r.fail(err)
		}
		switch {
		case line == "":
			if hasData {
				ev.Data = data.String()
				r.progress()
				return ev, nil
			}
			ev = Event{} // an event without data is not dispatched
		case line[0] == ':':
			r.progress() // a comment: servers send them as keep-alives
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				ev.Name = value
			case "data":
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
			}
		}
	}
}

// readLine reads a line without its \n or \r\n ending.
func (r *Reader) readLine() (string, error) {
	var b strings.Builder
	for {
		frag, err := r.br.ReadSlice('\n')
		b.Write(frag)
		if b.Len() > maxLine {
			return "", errors.New("sse: line too long")
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			if err == io.EOF && b.Len() > 0 {
				// a last line without its newline still counts
				return strings.TrimRight(b.String(), "\r"), nil
			}
			return "", err
		}
		return strings.TrimRight(b.String(), "\r\n"), nil
	}
}

// progress restarts the stall timer.
func (r *Reader) progress() {
	if r.timer != nil && !r.stalled.Load() {
		r.timer.Reset(r.stall)
	}
}

func (r *Reader) fail(err error) error {
	if r.stalled.Load() {
		return llm.ErrStalled
	}
	return err
}

// Close stops the timer and closes the body.
func (r *Reader) Close() error {
	if r.timer != nil {
		r.timer.Stop()
	}
	return r.body.Close()
}
