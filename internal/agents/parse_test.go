package agents

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

// feed hands lines to p through one reused buffer, as the runner's pump
// does, and returns the event types in order.
func feed(p Parser, lines ...string) ([]string, []Event) {
	var types []string
	var all []Event
	buf := make([]byte, 0, 256)
	for _, l := range lines {
		buf = append(buf[:0], l...)
		buf = append(buf, '\n')
		evs := p.Feed(buf)
		for i := range buf {
			buf[i] = 'X' // a parser must not keep the line
		}
		for _, e := range evs {
			types = append(types, e.Type)
		}
		all = append(all, evs...)
	}
	return types, all
}

func failureClass(o Outcome) string {
	if o.Failure == nil {
		return ""
	}
	return o.Failure.Class
}

func TestParsers(t *testing.T) {
	tests := []struct {
		name      string
		tool      Tool
		lines     []string
		exit      int
		stderr    string
		types     []string
		result    string
		sessionID string
		usage     *session.Usage
		class     string
	}{
		{
			name: "claude success",
			tool: ClaudeCode,
			lines: []string{
				`{"type":"system","subtype":"init","session_id":"s-1","model":"claude-x"}`,
				`{"type":"assistant","session_id":"s-1","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"looking"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
				`{"type":"user","session_id":"s-1","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.go"}],"is_error":false}]}}`,
				`{"type":"assistant","session_id":"s-1","message":{"content":[{"type":"text","text":"done"}]}}`,
				`{"type":"result","subtype":"success","is_error":false,"result":"final answer","session_id":"s-1","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":2}}`,
			},
			types:     []string{EvSession, EvThought, EvText, EvToolCall, EvToolResult, EvText, EvUsage},
			result:    "final answer",
			sessionID: "s-1",
			usage:     &session.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 2},
		},
		{
			name: "claude without result line keeps last text",
			tool: ClaudeCode,
			lines: []string{
				`{"type":"assistant","session_id":"s-2","message":{"content":[{"type":"text","text":"first"}]}}`,
				`{"type":"assistant","session_id":"s-2","message":{"content":[{"type":"text","text":"second"}]}}`,
			},
			types:     []string{EvSession, EvText, EvText},
			result:    "second",
			sessionID: "s-2",
		},
		{
			name: "claude error result",
			tool: ClaudeCode,
			lines: []string{
				`{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate limit reached","session_id":"s-3"}`,
			},
			exit:      1,
			types:     []string{EvSession, EvError},
			sessionID: "s-3",
			class:     session.FailRateLimited,
		},
		{
			name:   "claude auth failure on stderr",
			tool:   ClaudeCode,
			exit:   1,
			stderr: "Invalid API key · Please run /login",
			class:  session.FailAuth,
		},
		{
			name:  "claude exit 0 with nothing",
			tool:  ClaudeCode,
			class: session.FailNoResult,
		},
		{
			name: "codex success",
			tool: Codex,
			lines: []string{
				`{"type":"thread.started","thread_id":"th-1"}`,
				`{"type":"turn.started"}`,
				`{"type":"item.started","item":{"id":"i1","type":"command_execution","command":"go test","status":"in_progress"}}`,
				`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"go test","aggregated_output":"FAIL","exit_code":1,"status":"completed"}}`,
				`{"type":"item.completed","item":{"id":"i2","type":"reasoning","text":"fix it"}}`,
				`{"type":"item.completed","item":{"id":"i3","type":"agent_message","text":"first"}}`,
				`{"type":"item.completed","item":{"id":"i4","type":"agent_message","text":"the answer"}}`,
				`{"type":"turn.completed","usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":9}}`,
			},
			types:     []string{EvSession, EvToolCall, EvToolResult, EvThought, EvText, EvText, EvUsage},
			result:    "the answer",
			sessionID: "th-1",
			usage:     &session.Usage{InputTokens: 100, OutputTokens: 9, CachedTokens: 40},
		},
		{
			name: "codex turn failed",
			tool: Codex,
			lines: []string{
				`{"type":"thread.started","thread_id":"th-2"}`,
				`{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"partial"}}`,
				`{"type":"turn.failed","error":{"message":"You exceeded your current quota, please check your plan and billing details."}}`,
			},
			exit:      1,
			types:     []string{EvSession, EvText, EvError},
			sessionID: "th-2",
			class:     session.FailQuota,
		},
		{
			name: "gemini deltas, answer after the last tool",
			tool: GeminiCLI,
			lines: []string{
				`{"type":"init","session_id":"g-1","model":"gemini-x"}`,
				`{"type":"message","role":"user","content":"prompt"}`,
				`{"type":"message","role":"assistant","content":"let me look","delta":true}`,
				`{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"path":"a"}}`,
				`{"type":"tool_result","tool_id":"t1","status":"error","error":{"message":"no such file"}}`,
				`{"type":"message","role":"assistant","content":"Hel","delta":true}`,
				`{"type":"message","role":"assistant","content":"lo","delta":true}`,
				`{"type":"result","status":"success","stats":{"input_tokens":3,"output_tokens":4,"cached":1}}`,
			},
			types:     []string{EvSession, EvText, EvToolCall, EvToolResult, EvText, EvText, EvUsage},
			result:    "Hello",
			sessionID: "g-1",
			usage:     &session.Usage{InputTokens: 3, OutputTokens: 4, CachedTokens: 1},
		},
		{
			name: "gemini error result",
			tool: GeminiCLI,
			lines: []string{
				`{"type":"init","session_id":"g-2"}`,
				`{"type":"message","role":"assistant","content":"x"}`,
				`{"type":"result","status":"error","error":{"type":"api","message":"Resource has been exhausted (RESOURCE_EXHAUSTED)"}}`,
			},
			exit:      1,
			types:     []string{EvSession, EvText, EvError},
			sessionID: "g-2",
			class:     session.FailRateLimited,
		},
		{
			name: "opencode answer is the last step that spoke; usage sums",
			tool: Opencode,
			lines: []string{
				`{"type":"step_start","sessionID":"ses_1","part":{"type":"step-start"}}`,
				`{"type":"text","sessionID":"ses_1","part":{"type":"text","text":"Hello "}}`,
				`{"type":"text","sessionID":"ses_1","part":{"type":"text","text":"world"}}`,
				`{"type":"step_finish","sessionID":"ses_1","part":{"type":"step-finish","tokens":{"input":5,"output":6,"cache":{"read":1}}}}`,
				`{"type":"step_start","sessionID":"ses_1","part":{"type":"step-start"}}`,
				`{"type":"tool_use","sessionID":"ses_1","part":{"type":"tool","tool":"bash","callID":"c1","state":{"status":"completed","input":{"cmd":"ls"},"output":"a.go"}}}`,
				`{"type":"step_finish","sessionID":"ses_1","part":{"type":"step-finish","tokens":{"input":7,"output":8,"cache":{"read":2}}}}`,
			},
			types:     []string{EvSession, EvText, EvText, EvUsage, EvToolCall, EvToolResult, EvUsage},
			result:    "Hello world",
			sessionID: "ses_1",
			usage:     &session.Usage{InputTokens: 12, OutputTokens: 14, CachedTokens: 3},
		},
		{
			name: "opencode error",
			tool: Opencode,
			lines: []string{
				`{"type":"text","sessionID":"ses_2","part":{"type":"text","text":"hi"}}`,
				`{"type":"error","sessionID":"ses_2","error":{"name":"APIError","data":{"message":"401 Unauthorized"}}}`,
			},
			types:     []string{EvSession, EvText, EvError},
			sessionID: "ses_2",
			class:     session.FailAuth,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := For(tt.tool).NewParser()
			types, _ := feed(p, tt.lines...)
			if strings.Join(types, ",") != strings.Join(tt.types, ",") {
				t.Errorf("event types = %v\n want %v", types, tt.types)
			}
			o := p.Finish(tt.exit, tt.stderr)
			if o.Result != tt.result {
				t.Errorf("Result = %q, want %q", o.Result, tt.result)
			}
			if o.ProviderSessionID != tt.sessionID {
				t.Errorf("ProviderSessionID = %q, want %q", o.ProviderSessionID, tt.sessionID)
			}
			if !reflect.DeepEqual(o.Usage, tt.usage) {
				t.Errorf("Usage = %+v, want %+v", o.Usage, tt.usage)
			}
			if got := failureClass(o); got != tt.class {
				t.Errorf("failure class = %q (%+v), want %q", got, o.Failure, tt.class)
			}
		})
	}
}

func TestParsersSkipNonJSON(t *testing.T) {
	for _, tool := range All {
		t.Run(string(tool), func(t *testing.T) {
			p := For(tool).NewParser()
			if evs := p.Feed([]byte("   \n")); len(evs) != 0 {
				t.Errorf("blank line gave events %+v", evs)
			}
			_, evs := feed(p, "Warning: something \xff\xfe odd "+strings.Repeat("z", 200))
			if len(evs) != 1 || evs[0].Type != EvUnparsed {
				t.Fatalf("non-JSON line gave %+v, want one unparsed event", evs)
			}
			u := evs[0].Data.(Unparsed)
			if len(u.Prefix) > 80 || !strings.HasPrefix(u.Prefix, "Warning: something") || !json.Valid(mustJSON(t, u)) {
				t.Errorf("unparsed prefix %q", u.Prefix)
			}
			n := 1
			for i := 0; i < 100; i++ {
				evs := p.Feed([]byte("not json\n"))
				n += len(evs)
			}
			if n != maxUnparsedEvents {
				t.Errorf("%d unparsed events for 101 bad lines, want the cap %d", n, maxUnparsedEvents)
			}
			// A non-zero exit is classified from stderr.
			o := p.Finish(2, "segmentation fault")
			if failureClass(o) != session.FailCrashed || o.Failure.Message != "segmentation fault" {
				t.Errorf("Finish = %+v, want crashed with the stderr line", o.Failure)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestClassify(t *testing.T) {
	tests := []struct {
		evidence string
		exit     int
		class    string
		message  string
	}{
		{"Error: 429 Too Many Requests", 1, session.FailRateLimited, "Error: 429 Too Many Requests"},
		{"rate_limit_error: slow down", 1, session.FailRateLimited, ""},
		{"Overloaded", 1, session.FailRateLimited, ""},
		{"insufficient_quota (HTTP 429)", 1, session.FailQuota, ""},
		{"Credit balance is too low", 1, session.FailQuota, ""},
		{"HTTP 401: Unauthorized", 1, session.FailAuth, ""},
		{"PERMISSION_DENIED", 1, session.FailAuth, ""},
		{"listening on port 4290\n", 1, session.FailCrashed, "listening on port 4290"},
		{"first\n\nlast line  \n\n", 3, session.FailCrashed, "last line"},
		{"", 3, session.FailCrashed, "the program exited with status 3"},
		{strings.Repeat("e", 600), 1, session.FailCrashed, strings.Repeat("e", 500) + "..."},
	}
	for _, tt := range tests {
		f := Classify(tt.evidence, tt.exit)
		if f == nil || f.Class != tt.class {
			t.Errorf("Classify(%.40q) = %+v, want class %s", tt.evidence, f, tt.class)
			continue
		}
		if tt.message != "" && f.Message != tt.message {
			t.Errorf("Classify(%.40q).Message = %.60q, want %.60q", tt.evidence, f.Message, tt.message)
		}
	}
}
