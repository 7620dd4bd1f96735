package interactive

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
)

// Transcript renders the complete lines of an agent's own transcript
// (Claude Code's ~/.claude/projects/.../ID.jsonl, Codex's
// ~/.codex/sessions/.../rollout-...jsonl or csa-agent's
// $CSA_SESSION_DIR/csa-agent/ID.jsonl) from byte off: the user's
// prompts as "> TEXT" and the agent's answers as text. It returns the text
// and the offset after the last complete line.
func Transcript(path string, off int64) (string, int64, error) {
	data, err := readFrom(path, off)
	if err != nil {
		return "", off, err
	}
	end := bytes.LastIndexByte(data, '\n') + 1
	var b strings.Builder
	for _, line := range bytes.Split(data[:end], []byte{'\n'}) {
		for _, m := range transcriptMessages(line) {
			if m.user {
				b.WriteString("> ")
			}
			b.WriteString(strings.TrimRight(m.text, "\n"))
			b.WriteString("\n")
		}
	}
	return b.String(), off + int64(end), nil
}

type message struct {
	user bool
	text string
}

type transcriptLine struct {
	Type    string `json:"type"`
	Kind    string `json:"kind"` // csa-agent's record kind
	IsMeta  bool   `json:"isMeta"`
	Message *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Payload *struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"payload"`
}

func transcriptMessages(line []byte) []message {
	var l transcriptLine
	if len(line) == 0 || json.Unmarshal(line, &l) != nil {
		return nil
	}
	switch {
	case l.Type == "response_item" && l.Payload != nil && l.Payload.Type == "message": // codex
		user := l.Payload.Role == "user"
		if !user && l.Payload.Role != "assistant" {
			return nil // developer instructions
		}
		var out []message
		for _, c := range l.Payload.Content {
			if (c.Type == "input_text" || c.Type == "output_text") && c.Text != "" && !(user && strings.HasPrefix(c.Text, "<")) {
				out = append(out, message{user, c.Text})
			}
		}
		return out
	case l.Kind == "message" && l.Message != nil && (l.Message.Role == "user" || l.Message.Role == "assistant"): // csa-agent
		return contentMessages(l.Message.Role == "user", l.Message.Content)
	case (l.Type == "user" || l.Type == "assistant") && l.Message != nil && !l.IsMeta: // claude
		return contentMessages(l.Type == "user", l.Message.Content)
	}
	return nil
}

// contentMessages are the texts of a message's content: a string or
// Anthropic-style blocks, of which the text blocks count. A user's text
// starting with "<" is the program's own (local commands, caveats,
// reminders), not what was typed.
func contentMessages(user bool, content json.RawMessage) []message {
	var s string
	if json.Unmarshal(content, &s) == nil {
		if user && strings.HasPrefix(s, "<") {
			return nil
		}
		return []message{{user, s}}
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(content, &blocks)
	var out []message
	for _, bl := range blocks {
		if bl.Type == "text" && bl.Text != "" && !(user && strings.HasPrefix(bl.Text, "<")) {
			out = append(out, message{user, bl.Text})
		}
	}
	return out
}

func readFrom(path string, off int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if off > fi.Size() {
		off = fi.Size()
	}
	buf := make([]byte, fi.Size()-off)
	n, err := f.ReadAt(buf, off)
	if err != nil && n < len(buf) && n == 0 && len(buf) > 0 {
		return nil, err
	}
	return buf[:n], nil
}

// FindTranscript is the agent's transcript: the one its hook reported, else
// where the tool keeps the provider session's under home.
func FindTranscript(t Turns, tool, providerID, home string) string {
	if t.Transcript != "" {
		if _, err := os.Stat(t.Transcript); err == nil {
			return t.Transcript
		}
	}
	if s, ok := agents.Lookup(tool); ok && s.Transcript != nil {
		return s.Transcript(home, providerID)
	}
	return ""
}

// PaneText renders recorded pane bytes as text: escape sequences and
// control characters removed, CR LF made LF. It stops before an escape
// sequence cut off at the end and returns how many bytes it consumed.
func PaneText(data []byte) (string, int) {
	var b strings.Builder
	i := 0
	for i < len(data) {
		c := data[i]
		switch {
		case c == 0x1b:
			n := escapeLen(data[i:])
			if n == 0 {
				return b.String(), i // incomplete: wait for the rest
			}
			i += n
			continue
		case c == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
				continue
			}
		case c == '\n' || c == '\t' || c >= 0x20 && c != 0x7f:
			b.WriteByte(c)
		}
		i++
	}
	return b.String(), i
}

// escapeLen is the length of the escape sequence at the start of d, 0 when
// it is incomplete.
func escapeLen(d []byte) int {
	if len(d) < 2 {
		return 0
	}
	switch d[1] {
	case '[': // CSI: parameters, then a final byte 0x40-0x7e
		for j := 2; j < len(d); j++ {
			if d[j] >= 0x40 && d[j] <= 0x7e {
				return j + 1
			}
		}
		return 0
	case ']', 'P', '_', '^': // OSC, DCS...: up to BEL or ESC \
		for j := 2; j < len(d); j++ {
			if d[j] == 0x07 {
				return j + 1
			}
			if d[j] == 0x1b && j+1 < len(d) && d[j+1] == '\\' {
				return j + 2
			}
		}
		return 0
	case '(', ')', '*', '+', '#', '%':
		if len(d) < 3 {
			return 0
		}
		return 3
	}
	return 2
}

// TranscriptWait bounds how long a turn-complete hook waits for the agent's
// transcript to hold the turn's answer (Claude Code writes it 5-115 ms after
// its Stop hook starts, measured; the write does not wait for the hook).
const TranscriptWait = 2 * time.Second

// AwaitAnswer waits, at most TranscriptWait, until the transcript at path
// holds msg, so that a turn reported finished can be read at once. It
// reports whether it saw it; an empty msg or path is not waited for.
func AwaitAnswer(path, msg string) bool {
	if path == "" || strings.TrimSpace(msg) == "" {
		return true
	}
	want := transcriptNeedle(msg)
	deadline := time.Now().Add(TranscriptWait)
	for {
		if b, err := readTail(path, 1<<20); err == nil && bytes.Contains(b, want) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// transcriptNeedle is the start of msg as a JSON string writes it (without
// HTML escaping, as Node does): enough to recognise the answer.
func transcriptNeedle(msg string) []byte {
	if r := []rune(msg); len(r) > 120 {
		msg = string(r[:120])
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(msg)
	out := bytes.TrimSpace(b.Bytes())
	return out[1 : len(out)-1]
}

// readTail returns the last n bytes of path.
func readTail(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(fi.Size()-n, 0)
	b := make([]byte, fi.Size()-off)
	_, err = f.ReadAt(b, off)
	if err == io.EOF {
		err = nil
	}
	return b, err
}
