package modelserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options configure a Server.
type Options struct {
	Addr    string    // listen address; 127.0.0.1:0 (a free port) when empty
	LogPath string    // append every RequestRecord to this JSONL file
	Log     io.Writer // one human-readable line per request; unmatched ones are flagged
	DumpDir string    // save every request body here, to see what a program sends
}

// Server answers model API requests from a Script.
type Server struct {
	script *Script
	opts   Options
	log    *requestLog
	srv    *http.Server
	url    string

	mu   sync.Mutex
	hits map[[2]int]int // requests seen per (rule, turn), for error steps with Times
	seq  int            // dumped bodies
	busy int            // requests being answered (and not yet recorded)
	idle *sync.Cond     // on mu: busy fell to 0
}

// New makes a server; Start validates the script and listens.
func New(script *Script, opts Options) *Server {
	if script == nil {
		script = &Script{}
	}
	return &Server{script: script, opts: opts, hits: map[[2]int]int{}}
}

// Start listens and serves in the background, returning the base URL
// (http://127.0.0.1:PORT) that the programs take as their API endpoint.
func (s *Server) Start() (string, error) {
	if err := s.script.Validate(); err != nil {
		return "", fmt.Errorf("invalid script: %w", err)
	}
	log, err := openLog(s.opts.LogPath, s.opts.Log)
	if err != nil {
		return "", err
	}
	addr := s.opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = log.close()
		return "", fmt.Errorf("listen: %w", err)
	}
	s.log = log
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s.url, nil
}

// URL is the base URL once started.
func (s *Server) URL() string { return s.url }

// Close stops the server, cutting open streams.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	err := s.srv.Close()
	return errors.Join(err, s.log.close())
}

// Requests returns a copy of the request log so far.
func (s *Server) Requests() []RequestRecord {
	if s.log == nil {
		return nil
	}
	return s.log.all()
}

// Run serves scriptPath on addr until ctx ends; ready gets the base URL.
// It is the whole of a `model-server` command.
func Run(ctx context.Context, addr, scriptPath, logPath string, ready func(url string)) error {
	script, err := Load(scriptPath)
	if err != nil {
		return err
	}
	s := New(script, Options{Addr: addr, LogPath: logPath, Log: os.Stderr})
	url, err := s.Start()
	if err != nil {
		return err
	}
	if ready != nil {
		ready(url)
	}
	<-ctx.Done()
	return s.Close()
}

type wire interface {
	parse(r *http.Request, body []byte) (*request, error)
	write(ctx context.Context, w http.ResponseWriter, req *request, a *answer) error
	writeError(w http.ResponseWriter, e apiError)
}

type apiError struct {
	Kind         string
	Status       int
	Message      string
	RetryAfter   int // seconds
	RetryAfterMs int
}

// retryDelay sets the retry headers and returns the delay in seconds.
func (e apiError) retryDelay(w http.ResponseWriter) float64 {
	switch {
	case e.RetryAfterMs > 0:
		w.Header().Set("Retry-After-Ms", strconv.Itoa(e.RetryAfterMs))
		w.Header().Set("Retry-After", strconv.Itoa((e.RetryAfterMs+999)/1000))
		return float64(e.RetryAfterMs) / 1000
	case e.RetryAfter > 0:
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		return float64(e.RetryAfter)
	}
	return 0
}

// route picks the wire format from the path.
func route(r *http.Request) wire {
	p := r.URL.Path
	switch {
	case r.Method != http.MethodPost:
		return nil
	case strings.HasSuffix(p, "/messages"):
		return anthropicAPI{}
	case strings.HasSuffix(p, "/responses"):
		return responsesAPI{}
	case strings.HasSuffix(p, "/chat/completions"):
		return chatAPI{}
	case strings.Contains(p, "/models/") && (strings.HasSuffix(p, ":generateContent") || strings.HasSuffix(p, ":streamGenerateContent")):
		return geminiAPI{}
	}
	return nil
}

// Settle waits until every request received so far has been answered and
// recorded, at most timeout: a client reads an answer's last event (and
// may exit) before the server's handler returns and records it.
func (s *Server) Settle(timeout time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.idle == nil {
		s.idle = sync.NewCond(&s.mu)
	}
	t := time.AfterFunc(timeout, func() {
		s.mu.Lock()
		s.idle.Broadcast()
		s.mu.Unlock()
	})
	defer t.Stop()
	deadline := time.Now().Add(timeout)
	for s.busy > 0 && time.Now().Before(deadline) {
		s.idle.Wait()
	}
	return s.busy == 0
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.busy++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.busy--; s.busy == 0 && s.idle != nil {
			s.idle.Broadcast()
		}
		s.mu.Unlock()
	}()
	rec := RequestRecord{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path}
	body, err := io.ReadAll(io.LimitReader(r.Body, 256<<20))
	if err != nil {
		return
	}
	s.dump(r, body)
	api := route(r)
	if api == nil {
		s.serveOther(w, r, body, &rec)
		s.log.add(rec)
		return
	}
	req, err := api.parse(r, body)
	if err != nil {
		rec.Status, rec.Answer, rec.Problem = 400, "error:bad_request", err.Error()
		api.writeError(w, apiError{Status: 400, Message: "modelserver: cannot decode request: " + err.Error()})
		s.log.add(rec)
		return
	}
	rec.API, rec.Model, rec.Stream, rec.Turn = req.API, req.Model, req.Stream, req.Turn
	rec.UserText, rec.Tools, rec.Cwd = req.UserText, req.Tools, req.Cwd
	req.body = body
	s.answer(r.Context(), w, api, req, &rec)
	s.log.add(rec)
}

// answer resolves the script step for req and writes it.
func (s *Server) answer(ctx context.Context, w http.ResponseWriter, api wire, req *request, rec *RequestRecord) {
	rec.Status = http.StatusOK
	if req.Utility != "" {
		rec.Matched, rec.Answer = true, "utility:"+req.Utility
		_ = api.write(ctx, w, req, s.fill(req, utilityText(req), nil))
		return
	}
	st, errStep := s.pick(req, rec)
	if st == nil && errStep == nil {
		_ = api.write(ctx, w, req, s.fill(req, s.script.defaultText(), nil))
		return
	}
	step := st
	if errStep != nil {
		step = errStep
	}
	if step.DelayMs > 0 {
		select {
		case <-time.After(time.Duration(step.DelayMs) * time.Millisecond):
		case <-ctx.Done():
			return
		}
	}
	if errStep != nil {
		s.fail(ctx, w, api, req, errStep, rec)
		return
	}
	calls, err := resolveCalls(st, req)
	if err != nil {
		rec.Problem = err.Error()
	}
	a := s.fill(req, st.Text, st)
	a.Calls, a.Thinking = calls, st.Thinking
	if len(calls) > 0 {
		names := make([]string, len(calls))
		for i, c := range calls {
			names[i] = c.Name
		}
		rec.Answer = "tool:" + strings.Join(names, ",")
	} else if rec.Problem != "" && a.Text == "" {
		a.Text = "modelserver: " + rec.Problem
	}
	if err := api.write(ctx, w, req, a); err != nil && !errors.Is(err, errCut) {
		rec.Problem = "write: " + err.Error()
	}
}

// pick finds the rule and step for req. It returns the answer step, or an
// error step to apply first, or neither for the default answer.
func (s *Server) pick(req *request, rec *RequestRecord) (answerStep, errStep *Step) {
	rec.Answer = "default"
	for i := range s.script.Rules {
		r := &s.script.Rules[i]
		if !r.matches(req.API, req.Model, req.UserText, req.body) {
			continue
		}
		rec.Matched, rec.Rule = true, r.label(i)
		if r.Name != "" {
			rec.Rule = r.Name
		}
		start, end, ok := r.slot(req.Turn)
		if !ok {
			rec.Answer = "exhausted"
			return nil, nil
		}
		s.mu.Lock()
		h := s.hits[[2]int{i, req.Turn}]
		s.hits[[2]int{i, req.Turn}] = h + 1
		s.mu.Unlock()
		for j := start; j < end; j++ {
			e := &r.Steps[j]
			if e.Times == 0 || h < e.Times {
				rec.Step, rec.Answer = j+1, "error:"+e.Error
				return nil, e
			}
			h -= e.Times
		}
		if end == len(r.Steps) {
			rec.Answer = "exhausted"
			return nil, nil
		}
		rec.Step, rec.Answer = end+1, "text"
		return &r.Steps[end], nil
	}
	return nil, nil
}

// fail answers with an error step.
func (s *Server) fail(ctx context.Context, w http.ResponseWriter, api wire, req *request, st *Step, rec *RequestRecord) {
	msg := st.Message
	switch st.Error {
	case ErrMalformed, ErrTruncated, ErrStall:
		if msg == "" {
			msg = "This answer is cut short by the script."
		}
		a := s.fill(req, msg, st)
		a.Malformed, a.Truncated, a.Stalled = st.Error == ErrMalformed, st.Error == ErrTruncated, st.Error == ErrStall
		_ = api.write(ctx, w, req, a)
		return
	}
	e := apiError{Kind: st.Error, Status: st.Status, Message: msg, RetryAfter: st.RetryAfter, RetryAfterMs: st.RetryAfterMs}
	switch st.Error {
	case ErrRateLimit:
		e.Status = 429
		if e.Message == "" {
			e.Message = "Rate limit exceeded (scripted)."
		}
		if e.RetryAfter == 0 && e.RetryAfterMs == 0 {
			e.RetryAfter = 1
		}
	case ErrOverloaded:
		e.Status = 503
		if e.Message == "" {
			e.Message = "Overloaded (scripted)."
		}
	default:
		if e.Status == 0 {
			e.Status = defaultStatus
		}
		if e.Message == "" {
			e.Message = fmt.Sprintf("Scripted HTTP %d.", e.Status)
		}
	}
	rw := &statusWriter{ResponseWriter: w}
	api.writeError(rw, e)
	rec.Status = rw.status
}

// fill makes an answer with usage: the step's numbers or an estimate.
func (s *Server) fill(req *request, text string, st *Step) *answer {
	a := &answer{Text: text, InTokens: estimateTokens(req.size), OutTokens: estimateTokens(len(text))}
	if st != nil {
		a.ChunkDelay = time.Duration(st.ChunkDelayMs) * time.Millisecond
		if st.InputTokens > 0 {
			a.InTokens = st.InputTokens
		}
		if st.OutputTokens > 0 {
			a.OutTokens = st.OutputTokens
		}
	}
	return a
}

// utilityText answers the programs' side calls without the script.
func utilityText(req *request) string {
	switch req.Utility {
	case "title":
		return "Scripted session"
	case "router":
		return `{"complexity_reasoning":"scripted model server","complexity_score":1}`
	}
	v := fillSchema(req.schema)
	if m, ok := v.(map[string]any); ok {
		if _, ok := m["next_speaker"]; ok {
			m["next_speaker"] = "user" // let the program stop after its turn
		}
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// serveOther answers the probes and side endpoints the programs call.
func (s *Server) serveOther(w http.ResponseWriter, r *http.Request, body []byte, rec *RequestRecord) {
	rec.Matched, rec.Status = true, http.StatusOK
	p := r.URL.Path
	switch {
	case p == "/" && (r.Method == http.MethodHead || r.Method == http.MethodGet):
		rec.Answer = "probe"
		w.WriteHeader(http.StatusOK)
	case strings.HasSuffix(p, "/messages/count_tokens"):
		rec.API, rec.Answer = APIAnthropic, "count_tokens"
		writeJSON(w, 200, map[string]any{"input_tokens": estimateTokens(len(body))})
	case strings.HasSuffix(p, ":countTokens"):
		rec.API, rec.Answer = APIGemini, "count_tokens"
		writeJSON(w, 200, map[string]any{"totalTokens": estimateTokens(len(body))})
	case strings.HasSuffix(p, "/models") && r.Method == http.MethodGet:
		rec.Answer = "models"
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{}, "models": []any{}})
	default:
		rec.Matched, rec.Status, rec.Answer = false, http.StatusNotFound, "not_found"
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"type": "not_found_error", "message": "modelserver: no handler for " + r.Method + " " + p}})
	}
}

func (s *Server) dump(r *http.Request, body []byte) {
	if s.opts.DumpDir == "" {
		return
	}
	s.mu.Lock()
	s.seq++
	n := s.seq
	s.mu.Unlock()
	name := fmt.Sprintf("%04d-%s%s.json", n, r.Method, strings.NewReplacer("/", "_", ":", "_").Replace(r.URL.Path))
	_ = os.WriteFile(filepath.Join(s.opts.DumpDir, name), body, 0o644)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
