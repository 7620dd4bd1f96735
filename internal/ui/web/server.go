// Package web is the local web view of csa serve --ui: the session tree of
// internal/ui/fleet as a page served on loopback, kept live with server-sent
// events, with a session's log as it grows, send and kill (each csa's own
// command). Every request must carry the token of the URL the server
// printed; the assets are embedded, plain HTML, CSS and JavaScript.
package web

import (
	"bytes"
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/ui/fleet"
)

//go:embed assets
var assets embed.FS

// Server is the web view.
type Server struct {
	Token string
	CSA   fleet.CSA
	Feed  *Feed
	// Refresh is how often a log stream reads the log again.
	Refresh time.Duration
}

// Handler routes the view's requests, each refused (403) without the
// token, and (against DNS rebinding) unless addressed to a loopback host.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.asset("assets/index.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /app.js", s.asset("assets/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /app.css", s.asset("assets/app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /api/sessions", s.sessions)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/log", s.logStream)
	mux.HandleFunc("POST /api/send", s.send)
	mux.HandleFunc("POST /api/kill", s.kill)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowed(r) {
			http.Error(w, "forbidden: the URL csa serve --ui printed carries the token", http.StatusForbidden)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		mux.ServeHTTP(w, r)
	})
}

// allowed: the token (query parameter or X-CSA-Token header) and a
// loopback Host.
func (s *Server) allowed(r *http.Request) bool {
	tok := r.URL.Query().Get("token")
	if h := r.Header.Get("X-CSA-Token"); h != "" {
		tok = h
	}
	if subtle.ConstantTimeCompare([]byte(tok), []byte(s.Token)) != 1 {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) asset(name, ctype string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := assets.ReadFile(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if name == "assets/index.html" {
			// The page passes the token on to what it loads.
			b = bytes.ReplaceAll(b, []byte("__TOKEN__"), []byte(s.Token))
		}
		w.Header().Set("Content-Type", ctype)
		w.Write(b)
	}
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	snap, err := s.Feed.Latest(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, snap)
}

// action is the body of send and kill.
type action struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

func (s *Server) send(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, func(ctx context.Context, a action) error { return s.CSA.Send(ctx, a.ID, a.Text) })
}

func (s *Server) kill(w http.ResponseWriter, r *http.Request) {
	s.act(w, r, func(ctx context.Context, a action) error { return s.CSA.Kill(ctx, a.ID) })
}

func (s *Server) act(w http.ResponseWriter, r *http.Request, do func(context.Context, action) error) {
	var a action
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&a); err != nil || a.ID == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want {\"id\": ..., \"text\": ...}"})
		return
	}
	if err := do(r.Context(), a); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		return
	}
	s.Feed.Poke()
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
