package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// keepAlive is how often an idle stream gets a comment line, so proxies
// and browsers keep it open.
const keepAlive = 15 * time.Second

// stream prepares a server-sent events response.
func stream(w http.ResponseWriter) (func(event string, v any) bool, bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": csa\n\n")
	fl.Flush()
	return func(event string, v any) bool {
		var data string
		if v != nil {
			b, _ := json.Marshal(v)
			data = string(b)
		}
		if event == "" {
			_, err := fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
			return err == nil
		}
		_, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data)
		fl.Flush()
		return err == nil
	}, true
}

// events streams the session tree: a "snapshot" event at once and at each
// change.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	send, ok := stream(w)
	if !ok {
		return
	}
	ctx := r.Context()
	version := 0
	for {
		wait, cancel := context.WithTimeout(ctx, keepAlive)
		snap, v, err := s.Feed.Next(wait, version)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if v == version { // nothing new for keepAlive
			if !send("", nil) {
				return
			}
			continue
		}
		version = v
		if err != nil {
			if !send("problem", map[string]string{"error": err.Error()}) {
				return
			}
			continue
		}
		if !send("snapshot", snap) {
			return
		}
	}
}

// logStream streams a session's log (csa logs ID) as it grows: "replace"
// with the whole text first (and whenever it changed other than by
// growing), then "append" with what was added.
func (s *Server) logStream(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if id == "" {
		http.Error(w, "want ?id=SESSION", http.StatusBadRequest)
		return
	}
	send, ok := stream(w)
	if !ok {
		return
	}
	ctx := r.Context()
	prev, first, quiet := "", true, time.Now()
	for {
		text, err := s.CSA.Logs(ctx, id)
		if ctx.Err() != nil {
			return
		}
		sent := true
		switch {
		case err != nil:
			sent = send("problem", map[string]string{"error": err.Error()})
		case first || !strings.HasPrefix(text, prev):
			sent = send("replace", map[string]string{"text": text})
			prev, first, quiet = text, false, time.Now()
		case text != prev:
			sent = send("append", map[string]string{"text": text[len(prev):]})
			prev, quiet = text, time.Now()
		case time.Since(quiet) > keepAlive:
			sent = send("", nil)
			quiet = time.Now()
		}
		if !sent {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(s.Refresh):
		}
	}
}
