package modelserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// errCut ends a stream early: the client saw the connection closed.
var errCut = errors.New("stream cut")

// sse writes server-sent events, pausing between them for slow streams.
type sse struct {
	ctx   context.Context
	w     http.ResponseWriter
	delay time.Duration
	n     int // events sent
	// cutAfter ends the stream after that many events (0 = never).
	cutAfter int
	// stallAfter holds the stream silent after that many events (0 =
	// never), until the client goes away.
	stallAfter int
	// breakAt is the event replaced by broken JSON in a malformed answer.
	breakAt   int
	malformed bool
	// crlf ends lines with \r\n as Google's servers do.
	crlf bool
}

func newSSE(ctx context.Context, w http.ResponseWriter, a *answer) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &sse{ctx: ctx, w: w, delay: a.ChunkDelay, breakAt: 1, malformed: a.Malformed}
	if a.Stalled {
		s.stallAfter = 1
	}
	return s
}

// send writes one event; name may be empty. A malformed answer replaces
// event breakAt with broken JSON and ends there.
func (s *sse) send(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.sendRaw(name, string(data))
}

func (s *sse) sendRaw(name, data string) error {
	if s.cutAfter > 0 && s.n >= s.cutAfter {
		return errCut
	}
	if s.stallAfter > 0 && s.n >= s.stallAfter {
		<-s.ctx.Done()
		return s.ctx.Err()
	}
	if s.n > 0 && s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-s.ctx.Done():
			return s.ctx.Err()
		}
	}
	cut := false
	if s.malformed && s.n == s.breakAt {
		data, cut = brokenJSON, true
	}
	nl := "\n"
	if s.crlf {
		nl = "\r\n"
	}
	var err error
	if name != "" {
		_, err = fmt.Fprintf(s.w, "event: %s%sdata: %s%s%s", name, nl, data, nl, nl)
	} else {
		_, err = fmt.Fprintf(s.w, "data: %s%s%s", data, nl, nl)
	}
	if err != nil {
		return err
	}
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
	s.n++
	if cut {
		return errCut
	}
	return nil
}

// brokenJSON is what a malformed answer sends in place of an event or body.
const brokenJSON = `{"type": "broken", "oops": [1, 2,`

// writeJSON writes a whole JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

// writeBody writes a non-streamed answer body, broken or cut off if asked.
func writeBody(w http.ResponseWriter, a *answer, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	switch {
	case a.Malformed:
		data = []byte(brokenJSON)
	case a.Truncated:
		data = data[:len(data)/2]
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}
