package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Encode is m as one line of the wire: its JSON, then a newline.
func Encode(m *Message) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ErrTooLong is a line over the reader's limit. It was read to its end
// and dropped: the next Line is the line after it.
var ErrTooLong = errors.New("jsonrpc: line too long")

// Reader reads newline-delimited messages of any size up to its limit
// (bufio.Scanner would stop at 64 KiB).
type Reader struct {
	br  *bufio.Reader
	max int
}

// NewReader reads lines of at most max bytes from r.
func NewReader(r io.Reader, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Line returns the next line without its end ("\n", "\r\n"); it may be
// empty. A last line without a newline is a line; after it, io.EOF. A
// line over the limit is ErrTooLong, and the stream stays usable.
func (r *Reader) Line() ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			// max+1: the newline does not count.
			if len(line)+len(chunk) > r.max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && (len(line) > 0 || tooLong):
		case err != nil:
			return nil, err
		}
		if tooLong {
			return nil, ErrTooLong
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}
