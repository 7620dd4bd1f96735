package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// RequestRecord describes one request and how the server answered it.
type RequestRecord struct {
	Time     time.Time `json:"time"`
	Method   string    `json:"method"`
	Path     string    `json:"path"`
	API      string    `json:"api,omitempty"`
	Model    string    `json:"model,omitempty"`
	Stream   bool      `json:"stream,omitempty"`
	Matched  bool      `json:"matched"`        // a rule (or a side-call handler) answered
	Rule     string    `json:"rule,omitempty"` // rule name, or "rule N"
	Step     int       `json:"step,omitempty"` // 1-based step of that rule
	Turn     int       `json:"turn"`           // assistant turns already in the request
	Answer   string    `json:"answer"`         // text, tool:NAME, error:KIND, default, exhausted, utility:KIND
	Status   int       `json:"status"`
	UserText string    `json:"user_text,omitempty"`
	Tools    []string  `json:"tools,omitempty"`
	Cwd      string    `json:"cwd,omitempty"`
	Problem  string    `json:"problem,omitempty"` // why the server could not answer as scripted
}

// requestLog keeps records in memory and appends them to a JSONL file.
type requestLog struct {
	mu      sync.Mutex
	records []RequestRecord
	file    *os.File
	human   io.Writer
}

func openLog(path string, human io.Writer) (*requestLog, error) {
	l := &requestLog{human: human}
	if path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open request log: %w", err)
		}
		l.file = f
	}
	return l, nil
}

func (l *requestLog) add(r RequestRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	if l.file != nil {
		if data, err := json.Marshal(r); err == nil {
			_, _ = l.file.Write(append(data, '\n'))
		}
	}
	if l.human != nil {
		flag := ""
		if !r.Matched {
			flag = "UNMATCHED "
		}
		if r.Problem != "" {
			flag += "PROBLEM(" + r.Problem + ") "
		}
		fmt.Fprintf(l.human, "modelserver: %s%s %s api=%s model=%s rule=%q step=%d turn=%d -> %s %d user=%q\n",
			flag, r.Method, r.Path, r.API, r.Model, r.Rule, r.Step, r.Turn, r.Answer, r.Status, clip(r.UserText, 80))
	}
}

func (l *requestLog) all() []RequestRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]RequestRecord(nil), l.records...)
}

func (l *requestLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	return l.file.Close()
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "..."
	}
	return s
}
