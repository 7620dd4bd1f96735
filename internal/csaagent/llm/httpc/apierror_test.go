package httpc

import (
	"net/http"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

func TestDecodeError(t *testing.T) {
	tests := []struct {
		name, body string
		status     int
		header     http.Header
		typ, class string
		retry      time.Duration
		overloaded bool
	}{
		{"anthropic 429", `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`, 429,
			http.Header{"Retry-After-Ms": {"1500"}, "Retry-After": {"2"}}, "rate_limit_error", llm.ClassRateLimited, 1500 * time.Millisecond, false},
		{"anthropic 529", `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`, 529,
			nil, "overloaded_error", llm.ClassRateLimited, 0, true},
		{"openai quota", `{"error":{"message":"no money","type":"insufficient_quota","code":"insufficient_quota"}}`, 429,
			nil, "insufficient_quota", llm.ClassQuota, 0, false},
		{"openai key", `{"error":{"message":"bad key","type":"invalid_request_error","code":"invalid_api_key"}}`, 401,
			http.Header{"Retry-After": {"3"}}, "invalid_api_key", llm.ClassAuth, 3 * time.Second, false},
		{"gemini 429", `{"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"0.5s"}]}}`, 429,
			nil, "RESOURCE_EXHAUSTED", llm.ClassRateLimited, 500 * time.Millisecond, false},
		{"gemini 503", `{"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}`, 503,
			nil, "UNAVAILABLE", llm.ClassRateLimited, 0, true},
		{"not json", `<html>bad gateway</html>`, 502, nil, "", llm.ClassCrashed, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			e := DecodeError("p", tt.status, h, []byte(tt.body))
			if e.Type != tt.typ || e.Class() != tt.class || e.RetryAfter != tt.retry || e.Overloaded != tt.overloaded || e.Message == "" {
				t.Errorf("%+v (class %s)", e, e.Class())
			}
		})
	}
}

func TestRetryAfterDate(t *testing.T) {
	h := http.Header{"Retry-After": {time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)}}
	if d := RetryAfter(h); d < 59*time.Minute || d > time.Hour {
		t.Errorf("retry after %v", d)
	}
}
