package hub

import (
	"bufio"
	"bytes"
	"io"
)

// sseEvent is one server-sent event: its id (for resuming) and data.
type sseEvent struct {
	id   string
	data []byte
}

// sseReader reads a text/event-stream. Events may be as large as a
// message (64 MiB); a longer one is skipped whole.
type sseReader struct {
	br *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{bufio.NewReaderSize(r, 64<<10)} }

// next returns the next event with data; io.EOF at the end of the stream.
func (s *sseReader) next() (*sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	tooLong, hasData := false, false
	for {
		line, err := s.line()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 { // blank line: the event is complete
			if hasData && !tooLong {
				ev.data = data.Bytes()
				return &ev, nil
			}
			ev, tooLong, hasData = sseEvent{}, false, false
			data.Reset()
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			hasData = true
			if data.Len()+len(value) > MaxMessage {
				tooLong = true
				data.Reset()
			} else if !tooLong {
				data.Write(value)
			}
		case "id":
			ev.id = string(value)
		}
	}
}

// line is one line without its end (\n, \r\n); a line over MaxMessage is
// cut there.
func (s *sseReader) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(buf)+len(chunk) <= MaxMessage+2 {
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || len(buf) == 0) {
			return nil, err
		}
		return bytes.TrimRight(buf, "\r\n"), nil
	}
}
