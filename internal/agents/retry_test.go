package agents

import (
	"reflect"
	"testing"
)

// TestRetryReports turns each program's own retry reports, as the real
// programs print them on a 429 (Claude Code 2.1.197, Codex 0.169.0,
// Gemini CLI 0.61.0, OpenCode 1.18.33, seen here), into retry events.
func TestRetryReports(t *testing.T) {
	for _, tc := range []struct {
		tool   Tool
		stdout []string
		stderr []string
		want   []Retry
	}{
		{ClaudeCode, []string{
			`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":1000,"error_status":429,"error":"rate_limit","session_id":"s"}`,
			`{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1191.1819098316707,"error_status":429,"error":"rate_limit","session_id":"s"}`,
			`{"type":"system","subtype":"api_retry","attempt":3,"max_retries":10,"retry_delay_ms":500,"error_status":500,"error":"api_error","session_id":"s"}`,
		}, nil, []Retry{
			{Attempt: 1, Max: 10, Status: 429, DelayMS: 1000, RateLimited: true, Message: "rate_limit"},
			{Attempt: 2, Max: 10, Status: 429, DelayMS: 1191, RateLimited: true, Message: "rate_limit"},
			{Attempt: 3, Max: 10, Status: 500, DelayMS: 500, Message: "api_error"},
		}},
		{Codex, []string{
			`{"type":"thread.started","thread_id":"t"}`,
			`{"type":"error","message":"Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"}`,
			`{"type":"error","message":"Reconnecting... 2/5 (stream disconnected before completion)"}`,
		}, nil, []Retry{
			{Attempt: 1, Max: 5, Status: 429, RateLimited: true, Message: "exceeded retry limit, last status: 429 Too Many Requests"},
			{Attempt: 2, Max: 5, Message: "stream disconnected before completion"},
		}},
		{GeminiCLI, nil, []string{
			"YOLO mode is enabled. All tool calls will be automatically approved.",
			"Attempt 1 failed: Scripted rate limit.",
			"Suggested retry after 1s.. Retrying after 5719ms...",
			"Attempt 2 failed: Internal error. Retrying after 11888ms...",
			"Attempt 3 failed: Scripted rate limit.",
			"Suggested retry after 0.05s.. Max attempts reached",
		}, []Retry{
			{Attempt: 1, Status: 429, DelayMS: 5719, RateLimited: true, Message: "Scripted rate limit. Suggested retry after 1s"},
			{Attempt: 2, DelayMS: 11888, Message: "Internal error"},
		}},
		{Opencode, nil, []string{
			`timestamp=2026-11-23T21:06:19.275Z level=ERROR run=9ed26499 message="stream error" providerID=csa modelID=scripted session.id=ses_df5c small=false agent=build mode=primary error.error="AI_APICallError: Scripted rate limit."`,
			`timestamp=2026-11-23T21:06:20.369Z level=ERROR run=9ed26499 message="stream error" providerID=csa modelID=scripted error.error="AI_APICallError: Rate limit reached for requests (429)"`,
			`timestamp=2026-11-23T21:06:24.951Z level=ERROR run=9ed26499 message=process session.id=ses_df5c error="Scripted rate limit."`,
		}, []Retry{
			{Attempt: 1, RateLimited: true, Message: "Scripted rate limit."},
			{Attempt: 2, Status: 429, RateLimited: true, Message: "Rate limit reached for requests (429)"},
		}},
	} {
		t.Run(string(tc.tool), func(t *testing.T) {
			p := For(tc.tool).NewParser()
			var got []Retry
			collect := func(evs []Event) {
				for _, e := range evs {
					if e.Type == EvRetry {
						got = append(got, e.Data.(Retry))
					}
				}
			}
			_, evs := feed(p, tc.stdout...)
			collect(evs)
			for _, l := range tc.stderr {
				sp, ok := p.(StderrParser)
				if !ok {
					t.Fatalf("%s's parser does not read stderr", tc.tool)
				}
				collect(sp.FeedStderr([]byte(l + "\n")))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("retries\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
