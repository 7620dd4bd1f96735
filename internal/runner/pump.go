package runner

import (
	"bytes"
	"io"
	"os"
)

// pump copies one output stream of the program: every byte to the log (up
// to a cap, after which bytes are counted but dropped so the program never
// stalls), to the live writer while it accepts them, and, for stdout, line
// by line to the adapter's parser. A log that fails a write is written no
// more (it holds what came before, without a gap) and failed is told.
type pump struct {
	src    *os.File
	log    io.Writer
	live   io.Writer
	maxLog int64
	lines  func([]byte) // nil: the stream is only recorded
	touch  func()       // output arrived (the idle clock)
	failed func(error)  // the log could not be written (nil: nobody asks)
	logErr error

	written   int64 // bytes in the log
	total     int64 // bytes read
	truncated bool
	partial   []byte
}

// maxLine bounds a line handed to the parser: binary output without
// newlines must not grow memory without limit.
const maxLine = 1 << 20

func (p *pump) run(done chan<- struct{}) {
	defer close(done)
	buf := make([]byte, 32*1024)
	for {
		n, err := p.src.Read(buf)
		if n > 0 {
			if p.touch != nil {
				p.touch()
			}
			p.consume(buf[:n])
		}
		if err != nil {
			break
		}
	}
	if p.lines != nil && len(p.partial) > 0 {
		p.lines(p.partial)
		p.partial = nil
	}
}

func (p *pump) consume(b []byte) {
	p.total += int64(len(b))
	if room := p.maxLog - p.written; room > 0 && p.logErr == nil {
		w := b
		if int64(len(w)) > room {
			w = w[:room]
			p.truncated = true
		}
		n, err := p.log.Write(w)
		p.written += int64(n)
		if err != nil {
			p.logErr, p.truncated = err, true
			if p.failed != nil {
				p.failed(err)
			}
		}
	} else if len(b) > 0 {
		p.truncated = true
	}
	if p.live != nil {
		if _, err := p.live.Write(b); err != nil {
			p.live = nil // a closed terminal must not stop the recording
		}
	}
	if p.lines != nil {
		p.split(b)
	}
}

func (p *pump) split(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.partial = append(p.partial, b...)
			if len(p.partial) >= maxLine {
				p.lines(p.partial)
				p.partial = p.partial[:0]
			}
			return
		}
		if len(p.partial) > 0 {
			p.partial = append(p.partial, b[:i+1]...)
			p.lines(p.partial)
			p.partial = p.partial[:0]
		} else {
			p.lines(b[:i+1])
		}
		b = b[i+1:]
	}
}
