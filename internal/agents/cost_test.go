package agents

import (
	"reflect"
	"testing"

	"github.com/csa-dev/csa/internal/session"
)

// TestParsersRecordModelAndCacheWrites: what a session is priced by, the
// model the program said it used and the tokens it wrote to the cache,
// is kept in the outcome.
func TestParsersRecordModelAndCacheWrites(t *testing.T) {
	for _, tc := range []struct {
		tool  Tool
		lines []string
		model string
		usage *session.Usage
	}{
		{ClaudeCode, []string{
			`{"type":"system","subtype":"init","session_id":"s-1","model":"claude-sonnet-4-5-20250929"}`,
			`{"type":"result","subtype":"success","result":"ok","session_id":"s-1","usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":2,"cache_creation_input_tokens":300}}`,
		}, "claude-sonnet-4-5-20250929", &session.Usage{InputTokens: 10, OutputTokens: 5, CachedTokens: 2, CacheWriteTokens: 300}},
		{Opencode, []string{
			`{"type":"step_finish","sessionID":"ses_1","part":{"type":"step-finish","tokens":{"input":5,"output":6,"cache":{"read":1,"write":40}}}}`,
			`{"type":"step_finish","sessionID":"ses_1","part":{"type":"step-finish","tokens":{"input":1,"output":1,"cache":{"read":2,"write":3}}}}`,
		}, "", &session.Usage{InputTokens: 6, OutputTokens: 7, CachedTokens: 3, CacheWriteTokens: 43}},
		{GeminiCLI, []string{
			`{"type":"init","session_id":"g-1","model":"gemini-2.5-pro"}`,
			`{"type":"result","status":"success","stats":{"input_tokens":100,"output_tokens":7,"cached":60}}`,
		}, "gemini-2.5-pro", &session.Usage{InputTokens: 100, OutputTokens: 7, CachedTokens: 60}},
	} {
		p := For(tc.tool).NewParser()
		feed(p, tc.lines...)
		o := p.Finish(0, "")
		if o.Model != tc.model || !reflect.DeepEqual(o.Usage, tc.usage) {
			t.Errorf("%s: model %q usage %+v, want %q %+v", tc.tool, o.Model, o.Usage, tc.model, tc.usage)
		}
	}
}
