package tools

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWebFetch(t *testing.T) {
	env := newEnv(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html><head><title>T</title><style>p{color:red}</style></head>
<body><script>alert("x")</script><h1>Title</h1><p>Hello &amp; welcome.</p><ul><li>one</li><li>two</li></ul></body></html>`))
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("plain text")) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("a", fetchMaxText+1000)))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", 404) })
	mux.HandleFunc("/same", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/text", http.StatusFound) })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.invalid/x", http.StatusFound)
	})
	mux.HandleFunc("/bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte{0, 1, 2, 3})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tests := []struct {
		name    string
		url     string
		wantErr bool
		want    []string
		not     []string
	}{
		{"html", srv.URL + "/page", false, []string{"# Title", "Hello & welcome.", "- one\n", "- two", "Answer this prompt from the content above: what?"}, []string{"alert", "color:red", "<p>"}},
		{"text", srv.URL + "/text", false, []string{"plain text", "HTTP 200"}, nil},
		{"cap", srv.URL + "/big", false, []string{"truncated: 1000 more bytes"}, nil},
		{"404", srv.URL + "/missing", true, []string{"HTTP 404", "gone"}, nil},
		{"same host redirect", srv.URL + "/same", false, []string{"plain text"}, nil},
		{"cross host redirect", srv.URL + "/away", false, []string{"REDIRECT DETECTED", "http://other.invalid/x"}, nil},
		{"binary", srv.URL + "/bin", true, []string{"binary"}, nil},
		{"bad scheme", "file:///etc/passwd", true, []string{"http or https"}, nil},
		{"relative", "/page", true, []string{"http or https"}, nil},
	}
	for _, tt := range tests {
		res := call(t, NewWebFetch(), env, map[string]any{"url": tt.url, "prompt": "what?"})
		check(t, tt.name, res, tt.wantErr, tt.want...)
		for _, n := range tt.not {
			if strings.Contains(res.Output, n) {
				t.Errorf("%s: output has %q", tt.name, n)
			}
		}
	}
}
