package httpc

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// errorBody covers the three APIs' error shapes:
//
//	Anthropic {"type":"error","error":{"type":"rate_limit_error","message":"..."}}
//	OpenAI    {"error":{"message":"...","type":"requests","code":"rate_limit_exceeded"}}
//	Gemini    {"error":{"code":429,"message":"...","status":"RESOURCE_EXHAUSTED","details":[...]}}
type errorBody struct {
	Error struct {
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"` // OpenAI: a string; Gemini: the HTTP status
		Status  string          `json:"status"`
		Message string          `json:"message"`
		Details []struct {
			Type       string `json:"@type"`
			RetryDelay string `json:"retryDelay"`
		} `json:"details"`
	} `json:"error"`
	Message string `json:"message"` // some compatible servers answer {"message": ...}
}

// overloadedTypes mark an overloaded model, a reason for the fallback.
var overloadedTypes = map[string]bool{
	"overloaded_error": true, "server_is_overloaded": true, "UNAVAILABLE": true,
}

// DecodeError makes the APIError of a non-2xx answer.
func DecodeError(provider string, status int, h http.Header, raw []byte) *llm.APIError {
	e := &llm.APIError{Provider: provider, Status: status, RetryAfter: RetryAfter(h)}
	var b errorBody
	if json.Unmarshal(raw, &b) == nil {
		e.Type, e.Message = ErrorType(b.Error.Type, b.Error.Code, b.Error.Status), b.Error.Message
		if e.Message == "" {
			e.Message = b.Message
		}
		for _, d := range b.Error.Details {
			if e.RetryAfter == 0 && strings.HasSuffix(d.Type, "RetryInfo") {
				e.RetryAfter, _ = time.ParseDuration(d.RetryDelay)
			}
		}
	}
	if e.Message == "" {
		e.Message = strings.TrimSpace(string(raw))
		if len(e.Message) > 500 {
			e.Message = e.Message[:500]
		}
	}
	e.Overloaded = status == 529 || status == 503 || overloadedTypes[e.Type]
	return e
}

// ErrorType picks the most specific of an error's type fields: OpenAI's
// code (insufficient_quota, rate_limit_exceeded) says more than its type.
func ErrorType(typ string, code json.RawMessage, status string) string {
	var s string
	if json.Unmarshal(code, &s) == nil && s != "" {
		return s
	}
	if typ != "" {
		return typ
	}
	return status
}

// RetryAfter reads retry-after-ms (preferred: finer) or retry-after, in
// seconds or as an HTTP date.
func RetryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
