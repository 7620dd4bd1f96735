package modelserver

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// API names used in scripts and request records.
const (
	APIAnthropic = "anthropic"
	APIResponses = "responses"
	APIChat      = "chat"
	APIGemini    = "gemini"
)

// Error kinds of an error step.
const (
	ErrRateLimit  = "rate_limit" // 429 with retry-after and the API's own error body
	ErrOverloaded = "overloaded" // Anthropic 529 overloaded_error, 503 elsewhere
	ErrStatus     = "status"     // the step's Status with the API's error body
	ErrMalformed  = "malformed"  // 200 with broken JSON
	ErrTruncated  = "truncated"  // a stream cut off before its end
	ErrStall      = "stall"      // a stream that goes silent after its first event (streams only)
	DefaultText   = "ok"         // answer when no rule matches
	defaultStatus = 500          // ErrStatus without a Status
)

// Script is the server's answer book. Rules are tried in order; the first
// whose matchers all accept the request answers it.
type Script struct {
	// DefaultText answers requests no rule matches (DefaultText if empty).
	DefaultText string `toml:"default_text"`
	Rules       []Rule `toml:"rule"`
}

// Rule answers the conversations whose latest human-authored user text
// matches. Its steps are the successive assistant turns after that text:
// step k answers a request that already holds k assistant turns after it, so
// the same rule serves any program, concurrent agents and resumed sessions.
type Rule struct {
	Name     string `toml:"name"`
	Contains string `toml:"contains"` // substring of the user text
	Regexp   string `toml:"regexp"`   // or a regular expression
	API      string `toml:"api"`      // optional: anthropic, responses, chat or gemini
	Model    string `toml:"model"`    // optional substring of the requested model
	// Body, when set, must occur anywhere in the raw request: it proves
	// that a resumed conversation carried its earlier turns.
	Body  string `toml:"body"`
	Steps []Step `toml:"step"`

	re *regexp.Regexp
}

// Step is one answer. Text may come alone or before tool calls (one generic
// call, or several raw ones), after an optional thinking part; an error
// step fails the request instead. Error steps are not turns: they precede
// the answer step that follows them, each failing Times requests (0 =
// forever) before the next one applies, so "429 once, then succeed" is
// two steps. Those requests are counted per rule and turn, across all
// conversations the rule matches.
type Step struct {
	Text string `toml:"text"`

	WriteFile *WriteFile `toml:"write_file"` // translated into the program's write tool
	Shell     string     `toml:"shell"`      // a command for the program's shell tool
	Call      *ToolCall  `toml:"call"`       // a raw tool call, sent as is
	Calls     []ToolCall `toml:"calls"`      // several raw tool calls in one answer
	// Thinking is sent before the text as the API's own thinking or
	// reasoning part (with a signature where the API has one).
	Thinking string `toml:"thinking"`

	Error      string `toml:"error"`       // one of the Err* kinds
	Status     int    `toml:"status"`      // HTTP status for ErrStatus
	Message    string `toml:"message"`     // error message
	RetryAfter int    `toml:"retry_after"` // seconds, for ErrRateLimit and ErrOverloaded
	// RetryAfterMs sends retry-after-ms too, which the Anthropic and OpenAI
	// SDKs and OpenCode prefer: it keeps retrying programs fast in tests.
	RetryAfterMs int `toml:"retry_after_ms"`
	Times        int `toml:"times"` // how many requests an error step fails; 0 = all

	DelayMs      int `toml:"delay_ms"`       // before the answer starts
	ChunkDelayMs int `toml:"chunk_delay_ms"` // between streamed chunks

	InputTokens  int `toml:"input_tokens"`  // reported usage; estimated when 0
	OutputTokens int `toml:"output_tokens"` // reported usage; estimated when 0
}

// WriteFile writes Content to Path; a relative Path is joined to the
// agent's working directory when the request reveals it.
type WriteFile struct {
	Path    string `toml:"path"`
	Content string `toml:"content"`
}

// ToolCall is a tool call sent under the program's own tool name.
type ToolCall struct {
	Name string         `toml:"name"`
	Args map[string]any `toml:"args"`
	// Namespace is the tool's namespace where the API has them (the
	// Responses API: Codex offers each MCP server's tools as the namespace
	// mcp__SERVER); other APIs ignore it.
	Namespace string `toml:"namespace"`
}

// Load reads a TOML script file.
func Load(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// Parse decodes a TOML script and validates it.
func Parse(data []byte) (*Script, error) {
	var s Script
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			return nil, fmt.Errorf("unknown keys:\n%s", strict.String())
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("line %d column %d: %w", row, col, err)
		}
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Validate checks the script and compiles its regular expressions; scripts
// built in Go must call it (New does).
func (s *Script) Validate() error {
	for i := range s.Rules {
		r := &s.Rules[i]
		label := r.label(i)
		if r.Contains != "" && r.Regexp != "" {
			return fmt.Errorf("%s: set contains or regexp, not both", label)
		}
		if r.Regexp != "" && r.re == nil {
			re, err := regexp.Compile(r.Regexp)
			if err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			r.re = re
		}
		switch r.API {
		case "", APIAnthropic, APIResponses, APIChat, APIGemini:
		default:
			return fmt.Errorf("%s: unknown api %q", label, r.API)
		}
		if len(r.Steps) == 0 {
			return fmt.Errorf("%s: no steps", label)
		}
		for j, st := range r.Steps {
			if err := st.validate(); err != nil {
				return fmt.Errorf("%s step %d: %w", label, j+1, err)
			}
		}
	}
	return nil
}

func (r *Rule) label(i int) string {
	if r.Name != "" {
		return fmt.Sprintf("rule %d (%s)", i+1, r.Name)
	}
	return fmt.Sprintf("rule %d", i+1)
}

func (st Step) validate() error {
	calls := 0
	for _, set := range []bool{st.WriteFile != nil, st.Shell != "", st.Call != nil, len(st.Calls) > 0} {
		if set {
			calls++
		}
	}
	switch {
	case calls > 1:
		return errors.New("set at most one of write_file, shell, call and calls")
	case st.Call != nil && st.Call.Name == "":
		return errors.New("call without a name")
	case slices.ContainsFunc(st.Calls, func(c ToolCall) bool { return c.Name == "" }):
		return errors.New("calls: a call without a name")
	case st.WriteFile != nil && st.WriteFile.Path == "":
		return errors.New("write_file without a path")
	}
	switch st.Error {
	case "":
		if calls == 0 && st.Text == "" {
			return errors.New("empty step: set text, a tool call or an error")
		}
	case ErrRateLimit, ErrOverloaded, ErrStatus, ErrMalformed, ErrTruncated, ErrStall:
		if calls > 0 || st.Text != "" || st.Thinking != "" {
			return errors.New("an error step cannot also answer")
		}
	default:
		return fmt.Errorf("unknown error kind %q", st.Error)
	}
	if st.Times < 0 || st.DelayMs < 0 || st.ChunkDelayMs < 0 || st.RetryAfter < 0 || st.RetryAfterMs < 0 {
		return errors.New("negative times, delay or retry_after")
	}
	return nil
}

func (st Step) isError() bool { return st.Error != "" }

// matches reports whether the rule accepts a request.
func (r *Rule) matches(api, model, userText string, body []byte) bool {
	if r.API != "" && r.API != api {
		return false
	}
	if r.Body != "" && !bytes.Contains(body, []byte(r.Body)) {
		return false
	}
	if r.Model != "" && !strings.Contains(model, r.Model) {
		return false
	}
	if r.re != nil {
		return r.re.MatchString(userText)
	}
	return strings.Contains(userText, r.Contains)
}

// slot finds the steps for the turn-th assistant turn: steps[start:end]
// are the error steps before that turn's answer, steps[end] the answer
// (end == len(steps) when only trailing errors remain). ok is false when
// the rule has no step for that turn.
func (r *Rule) slot(turn int) (start, end int, ok bool) {
	for k := 0; start < len(r.Steps); k++ {
		end = start
		for end < len(r.Steps) && r.Steps[end].isError() {
			end++
		}
		if k == turn {
			return start, end, true
		}
		start = end + 1
	}
	return 0, 0, false
}

func (s *Script) defaultText() string {
	if s.DefaultText != "" {
		return s.DefaultText
	}
	return DefaultText
}
