package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The hub speaks MCP's streamable HTTP transport itself, with net/http:
// each message is POSTed as it is (the answer comes as JSON or as an SSE
// stream), the server's own messages come on a GET stream, and the
// session is the Mcp-Session-Id header. The go-sdk's client transport
// would decode every message into its own types and treat a 404 as the
// end of the connection, losing the request; here a stale session renews
// the session and the same bytes are sent again.

// httpClient has no overall timeout: answers may stream for as long as a
// tool runs. Calls end with their context.
var httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// initID is the id of the hub's own initialize request over HTTP (the
// hub's other ids are numbers).
const initID = `"csa-hub-initialize"`

// httpLink is one session with a streamable HTTP server.
type httpLink struct {
	b      *backend
	c      *bconn
	ctx    context.Context
	cancel context.CancelFunc
	notes  *outbox // notifications and responses, POSTed in order
	once   sync.Once

	renewMu sync.Mutex // one re-initialisation at a time

	mu      sync.Mutex
	session string // Mcp-Session-Id; "" if the server keeps none
	version string // negotiated protocol version
	lastID  string // last event id of the GET stream, to resume it
}

func newHTTPLink(b *backend, c *bconn) *httpLink {
	ctx, cancel := context.WithCancel(b.hub.ctx)
	l := &httpLink{b: b, c: c, ctx: ctx, cancel: cancel}
	l.notes = newOutbox(noteWriter{l})
	return l
}

func (l *httpLink) pid() int { return 0 }

func (l *httpLink) current() (session, version string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.session, l.version
}

// newRequest is an HTTP request to the server with the configured
// headers and the session's.
func (l *httpLink) newRequest(ctx context.Context, method string, body []byte, session, version string) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.b.cfg.URL, r)
	if err != nil {
		return nil, err
	}
	for k, v := range l.b.cfg.Headers {
		req.Header.Set(k, v)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	} else {
		req.Header.Set("Accept", "text/event-stream")
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	return req, nil
}

// post sends body. A kept-alive connection the server closed while idle
// (it restarted, or timed the connection out) fails a POST that Go's
// transport will not resend, as a POST may have been acted on; one that
// was reused and dropped before any answer is sent once more on a new
// connection, as browsers and HTTP clients do.
func (l *httpLink) post(ctx context.Context, body []byte, session, version string) (*http.Response, error) {
	for attempt := 0; ; attempt++ {
		req, err := l.newRequest(ctx, http.MethodPost, body, session, version)
		if err != nil {
			return nil, err
		}
		reused := false
		req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			GotConn: func(info httptrace.GotConnInfo) { reused = info.Reused },
		}))
		resp, err := httpClient.Do(req)
		if err == nil || attempt > 0 || !reused || ctx.Err() != nil || !droppedConn(err) {
			return resp, err
		}
		// The other idle connections to it are as stale (a restarted
		// server dropped them all): the retry gets a new one.
		httpClient.CloseIdleConnections()
	}
}

// droppedConn: the connection ended before an answer began.
func droppedConn(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// handshake opens the session.
func (l *httpLink) handshake(ctx context.Context) (json.RawMessage, error) {
	return l.initialize(ctx)
}

// initialize opens a new session: initialize, then initialized, then the
// GET stream for what the server says unasked.
func (l *httpLink) initialize(ctx context.Context) (json.RawMessage, error) {
	body := encode(&msg{ID: json.RawMessage(initID), Method: "initialize", Params: initParams})
	resp, err := l.post(ctx, body, "", "")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("initialize: HTTP %s", resp.Status)
	}
	var answer *msg
	err = l.read(resp, func(m *msg) bool {
		if m.Method == "" && string(m.ID) == initID {
			answer = m
			return true
		}
		l.b.handle(l.c, m)
		return false
	})
	switch {
	case answer == nil && err == nil:
		return nil, errors.New("initialize: the server did not answer")
	case answer == nil:
		return nil, fmt.Errorf("initialize: %w", err)
	case answer.Error != nil:
		return nil, answer.Error
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(answer.Result, &res)
	session := resp.Header.Get("Mcp-Session-Id")
	l.mu.Lock()
	l.session, l.version, l.lastID = session, res.ProtocolVersion, ""
	l.mu.Unlock()
	note, err := l.post(ctx, encode(notification("notifications/initialized", nil)), session, res.ProtocolVersion)
	if err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	drain(note)
	go l.listen(session)
	return answer.Result, nil
}

// send delivers a message to the server: requests each in their own POST
// (their answers may take long), the rest in order.
func (l *httpLink) send(m *msg) {
	if m.IsRequest() {
		go l.request(m)
		return
	}
	l.notes.send(m)
}

// request POSTs one request and routes the answer. A session the server
// forgot (it restarted, say) is renewed and the request sent once more,
// which the caller never sees.
func (l *httpLink) request(m *msg) {
	body := encode(m)
	for attempt := 0; ; attempt++ {
		session, version := l.current()
		resp, err := l.post(l.ctx, body, session, version)
		if err != nil {
			l.b.failed(l.c, m.ID, err)
			return
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if a := answerIn(body, m.ID); a != nil { // an error answer with an error status
				l.b.handle(l.c, a)
				return
			}
			if session != "" && attempt == 0 && staleSession(resp.StatusCode, body) {
				if err := l.renew(session); err != nil {
					l.b.failed(l.c, m.ID, fmt.Errorf("the server forgot the session and a new one failed: %w", err))
					return
				}
				continue
			}
			l.b.failed(l.c, m.ID, fmt.Errorf("HTTP %s: %s", resp.Status, snippet(body)))
			return
		}
		answered := false
		err = l.read(resp, func(a *msg) bool {
			l.b.handle(l.c, a)
			answered = a.Method == "" && bytes.Equal(a.ID, m.ID)
			return answered
		})
		if answered {
			// The rest of the stream (the server ends it after the answer)
			// is read to its end so that the connection is reused.
			go func() {
				_ = l.readStream(resp.Body, func(a *msg) bool { l.b.handle(l.c, a); return false })
				resp.Body.Close()
			}()
			return
		}
		resp.Body.Close()
		if err == nil {
			err = errors.New("the server's answer ended without a reply")
		}
		l.b.failed(l.c, m.ID, err)
		return
	}
}

// answerIn is the JSON-RPC answer to id in an error status's body, if
// it is one (servers may answer errors with 4xx).
func answerIn(body []byte, id json.RawMessage) *msg {
	var m msg
	if json.Unmarshal(body, &m) != nil || m.Method != "" || !bytes.Equal(m.ID, id) {
		return nil
	}
	return &m
}

// staleSession reports whether an error status says the server no
// longer knows the session: 404, as the transport specifies, or the 400
// "no valid session ID" that the TypeScript SDK's servers answer instead.
func staleSession(status int, body []byte) bool {
	return status == http.StatusNotFound ||
		status == http.StatusBadRequest && bytes.Contains(bytes.ToLower(body), []byte("session"))
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// renew re-initialises after the server forgot session; requests that
// found it gone at the same time share one new session.
func (l *httpLink) renew(stale string) error {
	l.renewMu.Lock()
	defer l.renewMu.Unlock()
	if s, _ := l.current(); s != stale {
		return nil
	}
	ctx, cancel := context.WithTimeout(l.ctx, time.Minute)
	defer cancel()
	res, err := l.initialize(ctx)
	if err != nil {
		return err
	}
	l.b.renewed(l.c, res)
	return nil
}

// read routes the messages of a POST's answer (JSON, a JSON batch or an
// SSE stream) to each until it returns true.
func (l *httpLink) read(resp *http.Response, each func(*msg) bool) error {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "text/event-stream":
		return l.readStream(resp.Body, each)
	case "application/json":
		data, err := io.ReadAll(io.LimitReader(resp.Body, MaxMessage+1))
		if err != nil {
			return err
		}
		if len(data) > MaxMessage {
			return errTooLong
		}
		var ms []*msg
		if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '[' {
			err = json.Unmarshal(d, &ms)
		} else {
			var m msg
			err = json.Unmarshal(d, &m)
			ms = []*msg{&m}
		}
		if err != nil {
			return fmt.Errorf("the server's answer: %w", err)
		}
		for _, m := range ms {
			if each(m) {
				return nil
			}
		}
		return nil
	}
	return fmt.Errorf("the server answered with Content-Type %q", ct)
}

// readStream routes an SSE stream's messages until each returns true or
// the stream ends (nil at its normal end).
func (l *httpLink) readStream(r io.Reader, each func(*msg) bool) error {
	sr := newSSEReader(r)
	for {
		ev, err := sr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var m msg
		if json.Unmarshal(ev.data, &m) != nil {
			continue
		}
		if each(&m) {
			return nil
		}
	}
}

// listen keeps the session's GET stream open, on which the server sends
// what no request asked for (list_changed, resource updates), and opens
// it again if it drops, resuming after the last event seen. A server that
// offers no stream (405), or forgot the session (404: the next request
// renews it), ends it.
func (l *httpLink) listen(session string) {
	backoff := minBackoff
	for l.ctx.Err() == nil {
		s, version := l.current()
		if s != session {
			return
		}
		req, err := l.newRequest(l.ctx, http.MethodGet, nil, session, version)
		if err != nil {
			return
		}
		l.mu.Lock()
		if l.lastID != "" {
			req.Header.Set("Last-Event-ID", l.lastID)
		}
		l.mu.Unlock()
		resp, err := httpClient.Do(req)
		if err == nil && resp.StatusCode == http.StatusOK {
			backoff = minBackoff
			sr := newSSEReader(resp.Body)
			for {
				ev, err := sr.next()
				if err != nil {
					break
				}
				if ev.id != "" {
					l.mu.Lock()
					l.lastID = ev.id
					l.mu.Unlock()
				}
				var m msg
				if json.Unmarshal(ev.data, &m) == nil {
					l.b.handle(l.c, &m)
				}
			}
			resp.Body.Close()
			continue
		}
		if err == nil {
			drain(resp)
			if resp.StatusCode >= 400 && resp.StatusCode < 500 {
				return
			}
		}
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-l.ctx.Done():
			t.Stop()
			return
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// noteWriter POSTs the notifications and responses an outbox hands it.
type noteWriter struct{ l *httpLink }

func (w noteWriter) Write(b []byte) (int, error) {
	session, version := w.l.current()
	resp, err := w.l.post(w.l.ctx, b, session, version)
	if err != nil {
		if w.l.ctx.Err() != nil {
			return 0, err
		}
		return len(b), nil // lost like a dropped packet; the hub goes on
	}
	drain(resp)
	return len(b), nil
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
}

// stop ends the session (DELETE, as the transport asks of a client that
// leaves) and every request still open on it.
func (l *httpLink) stop(grace time.Duration) {
	if session, version := l.current(); session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), min(grace, time.Second))
		if req, err := l.newRequest(ctx, http.MethodDelete, nil, session, version); err == nil {
			if resp, err := httpClient.Do(req); err == nil {
				drain(resp)
			}
		}
		cancel()
	}
	l.kill()
}

func (l *httpLink) kill() {
	l.once.Do(func() {
		l.cancel()
		l.notes.close()
		l.b.ended(l.c, "was disconnected")
		close(l.c.gone)
	})
}
