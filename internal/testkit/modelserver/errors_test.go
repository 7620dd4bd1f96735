package modelserver

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// apiCase is one wire format: where to send a prompt, and its body.
type apiCase struct {
	name, path string
	body       func(prompt string, stream bool) string
}

var apiCases = []apiCase{
	{APIAnthropic, "/v1/messages", func(p string, s bool) string {
		return `{"model":"m","stream":` + boolJSON(s) + `,"messages":[{"role":"user","content":` + quote(p) + `}]}`
	}},
	{APIResponses, "/v1/responses", func(p string, s bool) string {
		return `{"model":"m","stream":` + boolJSON(s) + `,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":` + quote(p) + `}]}]}`
	}},
	{APIChat, "/v1/chat/completions", func(p string, s bool) string {
		return `{"model":"m","stream":` + boolJSON(s) + `,"messages":[{"role":"user","content":` + quote(p) + `}]}`
	}},
	{APIGemini, "/v1beta/models/m:generateContent", func(p string, s bool) string {
		return `{"contents":[{"role":"user","parts":[{"text":` + quote(p) + `}]}]}`
	}},
}

func (c apiCase) url(base string, stream bool) string {
	if c.name == APIGemini && stream {
		return base + "/v1beta/models/m:streamGenerateContent?alt=sse"
	}
	return base + c.path
}

func boolJSON(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const errorScript = `
[[rule]]
contains = "limit"
  [[rule.step]]
  error = "rate_limit"
  message = "slow down"
  retry_after = 3
[[rule]]
contains = "fast"
  [[rule.step]]
  error = "rate_limit"
  retry_after_ms = 50
[[rule]]
contains = "busy"
  [[rule.step]]
  error = "overloaded"
[[rule]]
contains = "teapot"
  [[rule.step]]
  error = "status"
  status = 418
  message = "short and stout"
[[rule]]
contains = "broken"
  [[rule.step]]
  error = "malformed"
[[rule]]
contains = "cut"
  [[rule.step]]
  error = "truncated"
  message = "one two three four five six seven eight nine ten"
[[rule]]
contains = "flaky"
  [[rule.step]]
  error = "rate_limit"
  times = 2
  [[rule.step]]
  text = "recovered"
[[rule]]
contains = "slow"
  [[rule.step]]
  text = "one two three four five six"
  chunk_delay_ms = 40
  delay_ms = 40
`

func TestErrorSteps(t *testing.T) {
	_, base := startServer(t, errorScript)
	// want: status, then a path into the body and its value per API.
	want := map[string]map[string]struct {
		status int
		path   []any
		value  any
	}{
		"limit": {
			APIAnthropic: {429, []any{"error", "type"}, "rate_limit_error"},
			APIResponses: {429, []any{"error", "code"}, "rate_limit_exceeded"},
			APIChat:      {429, []any{"error", "code"}, "rate_limit_exceeded"},
			APIGemini:    {429, []any{"error", "status"}, "RESOURCE_EXHAUSTED"},
		},
		"busy": {
			APIAnthropic: {529, []any{"error", "type"}, "overloaded_error"},
			APIResponses: {503, []any{"error", "code"}, "server_is_overloaded"},
			APIChat:      {503, []any{"error", "code"}, "server_is_overloaded"},
			APIGemini:    {503, []any{"error", "status"}, "UNAVAILABLE"},
		},
		"teapot": {
			APIAnthropic: {418, []any{"error", "message"}, "short and stout"},
			APIResponses: {418, []any{"error", "message"}, "short and stout"},
			APIChat:      {418, []any{"error", "message"}, "short and stout"},
			APIGemini:    {418, []any{"error", "message"}, "short and stout"},
		},
	}
	for prompt, perAPI := range want {
		for _, c := range apiCases {
			t.Run(prompt+"/"+c.name, func(t *testing.T) {
				w := perAPI[c.name]
				resp := post(t, c.url(base, true), c.body(prompt, true))
				var m map[string]any
				if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != w.status || get(m, w.path...) != w.value {
					t.Errorf("got %d %v, want %d with %v = %v", resp.StatusCode, m, w.status, w.path, w.value)
				}
				if prompt == "limit" {
					if ra := resp.Header.Get("Retry-After"); ra != "3" {
						t.Errorf("retry-after %q", ra)
					}
					if c.name == APIGemini && get(m, "error", "details", 0, "retryDelay") != "3s" {
						t.Errorf("no RetryInfo: %v", m)
					}
				}
			})
		}
	}
}

func TestRetryAfterMs(t *testing.T) {
	_, base := startServer(t, errorScript)
	for _, c := range apiCases {
		resp := post(t, c.url(base, false), c.body("fast", false))
		if resp.Header.Get("Retry-After-Ms") != "50" || resp.Header.Get("Retry-After") != "1" {
			t.Errorf("%s: headers %v", c.name, resp.Header)
		}
		if c.name == APIGemini {
			var m map[string]any
			_ = json.NewDecoder(resp.Body).Decode(&m)
			if get(m, "error", "details", 0, "retryDelay") != "0.05s" {
				t.Errorf("gemini retryDelay in %v", m)
			}
		}
	}
}

func TestErrorTimesThenRecover(t *testing.T) {
	srv, base := startServer(t, errorScript)
	c := apiCases[0]
	for i, want := range []int{429, 429, 200, 200} {
		resp := post(t, c.url(base, false), c.body("flaky", false))
		if resp.StatusCode != want {
			t.Errorf("request %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
	}
	recs := srv.Requests()
	if recs[0].Step != 1 || recs[2].Step != 2 || recs[2].Answer != "text" {
		t.Errorf("records %+v", recs)
	}
}

func TestMalformedAnswers(t *testing.T) {
	_, base := startServer(t, errorScript)
	for _, c := range apiCases {
		t.Run(c.name, func(t *testing.T) {
			body, _ := io.ReadAll(post(t, c.url(base, false), c.body("broken", false)).Body)
			if json.Valid(body) {
				t.Errorf("non-streamed body is valid JSON: %s", body)
			}
			evs := readSSE(t, post(t, c.url(base, true), c.body("broken", true)).Body)
			last := evs[len(evs)-1]
			if last.raw != brokenJSON {
				t.Errorf("stream does not end in broken JSON: %q", last.raw)
			}
		})
	}
}

func TestTruncatedStreams(t *testing.T) {
	_, base := startServer(t, errorScript)
	for _, c := range apiCases {
		t.Run(c.name, func(t *testing.T) {
			body, _ := io.ReadAll(post(t, c.url(base, false), c.body("cut", false)).Body)
			if json.Valid(body) || len(body) == 0 {
				t.Errorf("non-streamed body is not cut: %s", body)
			}
			evs := readSSE(t, post(t, c.url(base, true), c.body("cut", true)).Body)
			if len(evs) == 0 {
				t.Fatal("no events before the cut")
			}
			for _, e := range evs {
				done := e.name == "message_stop" || e.name == "response.completed" || e.raw == "[DONE]" ||
					get(e.data, "candidates", 0, "finishReason") != nil
				if done {
					t.Errorf("truncated stream has its end: %s", e.raw)
				}
			}
		})
	}
}

func TestSlowStream(t *testing.T) {
	_, base := startServer(t, errorScript)
	c := apiCases[0]
	start := time.Now()
	evs := readSSE(t, post(t, c.url(base, true), c.body("slow", true)).Body)
	// The delay is a lower bound, so this cannot flake on a slow machine.
	if min := 40*time.Millisecond + time.Duration(len(evs)-1)*40*time.Millisecond; time.Since(start) < min {
		t.Errorf("%d events took %v, want at least %v", len(evs), time.Since(start), min)
	}
	var text []string
	for _, e := range evs {
		if s, ok := get(e.data, "delta", "text").(string); ok {
			text = append(text, s)
		}
	}
	if strings.Join(text, "") != "one two three four five six" || len(text) < 2 {
		t.Errorf("deltas %q", text)
	}
}
