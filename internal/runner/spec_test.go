package runner

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/csaenv"
	"github.com/csa-dev/csa/internal/session"
)

const (
	testID     = "01HAAAAAAA0000000000000001"
	testParent = "01HAAAAAAA0000000000000000"
)

func getenv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParentFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    *Parent
		wantErr string // substring; "" for success
	}{
		{"unset", map[string]string{}, nil, ""},
		// The depth holds without a parent id: the limit must not fail open.
		{"depth without an id", map[string]string{csaenv.Depth: "5", csaenv.Tool: "codex"}, &Parent{Tool: "codex", Depth: 5}, ""},
		{"malformed depth without an id", map[string]string{csaenv.Depth: "garbage", csaenv.Tool: "codex"}, nil, csaenv.Depth},
		{"valid", map[string]string{csaenv.SessionID: testID, csaenv.Depth: "2", csaenv.Tool: "codex", csaenv.ProjectRoot: "/p"},
			&Parent{SessionID: testID, Tool: "codex", Depth: 2, ProjectRoot: "/p"}, ""},
		{"depth zero", map[string]string{csaenv.SessionID: testID, csaenv.Depth: "0"},
			&Parent{SessionID: testID, Depth: 0}, ""},
		{"depth missing", map[string]string{csaenv.SessionID: testID}, nil, csaenv.Depth},
		{"depth negative", map[string]string{csaenv.SessionID: testID, csaenv.Depth: "-1"}, nil, csaenv.Depth},
		{"depth not a number", map[string]string{csaenv.SessionID: testID, csaenv.Depth: "two"}, nil, csaenv.Depth},
		{"depth fractional", map[string]string{csaenv.SessionID: testID, csaenv.Depth: "1.5"}, nil, csaenv.Depth},
		{"depth with space", map[string]string{csaenv.SessionID: testID, csaenv.Depth: " 1"}, nil, csaenv.Depth},
		{"depth overflow", map[string]string{csaenv.SessionID: testID, csaenv.Depth: "99999999999999999999"}, nil, csaenv.Depth},
		{"id is a prefix", map[string]string{csaenv.SessionID: testID[:10], csaenv.Depth: "1"}, nil, csaenv.SessionID},
		{"id too long", map[string]string{csaenv.SessionID: testID + "0", csaenv.Depth: "1"}, nil, csaenv.SessionID},
		{"id path", map[string]string{csaenv.SessionID: "../../etc/passwd", csaenv.Depth: "1"}, nil, csaenv.SessionID},
		{"id bad char", map[string]string{csaenv.SessionID: "01HAAAAAAA000000000000000U", csaenv.Depth: "1"}, nil, csaenv.SessionID},
		{"id overflows", map[string]string{csaenv.SessionID: "81HAAAAAAA0000000000000000", csaenv.Depth: "1"}, nil, csaenv.SessionID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParentFromEnv(getenv(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParentFromEnv = %+v, %v; want an error about %s", got, err, tt.wantErr)
				}
				if got != nil {
					t.Errorf("ParentFromEnv returned %+v with an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParentFromEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// envMap turns KEY=VALUE pairs into a map and counts each key.
func envMap(env []string) (map[string]string, map[string]int) {
	m, n := map[string]string{}, map[string]int{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
		n[k]++
	}
	return m, n
}

func TestChildEnv(t *testing.T) {
	base := []string{
		"PATH=/usr/bin:/bin",
		"HOME=/home/u",
		"CLAUDECODE=1",
		"CLAUDE_CODE_ENTRYPOINT=cli",
		"CLAUDECODE_EXTRA=keep", // only exact names are stripped
		csaenv.SessionID + "=01HSTALE000000000000000000",
		csaenv.Depth + "=7",
		csaenv.ProjectRoot + "=/stale",
		csaenv.ParentSession + "=01HSTALE000000000000000001",
		csaenv.Tool + "=gemini-cli",
		csaenv.ParentTool + "=opencode",
		csaenv.SessionDir + "=/stale/dir",
		"FOO=a=b",
	}
	baseCopy := append([]string(nil), base...)
	tests := []struct {
		name  string
		st    *session.State
		extra []string
		want  map[string]string
		gone  []string
	}{
		{
			name: "child of a parent",
			st: &session.State{ID: testID, Depth: 2, ProjectRoot: "/proj", Tool: "codex",
				ParentID: testParent, ParentTool: "claude-code"},
			extra: []string{"TOOL_VAR=x"},
			want: map[string]string{
				csaenv.SessionID: testID, csaenv.Depth: "2", csaenv.ProjectRoot: "/proj", csaenv.Tool: "codex",
				csaenv.SessionDir: "/state/" + testID, csaenv.ParentSession: testParent, csaenv.ParentTool: "claude-code",
				"PATH": "/usr/bin:/bin", "HOME": "/home/u", "CLAUDECODE_EXTRA": "keep", "FOO": "a=b", "TOOL_VAR": "x",
			},
			gone: []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"},
		},
		{
			name: "root session drops stale parent",
			st:   &session.State{ID: testID, Depth: 0, ProjectRoot: "/proj", Tool: "opencode"},
			want: map[string]string{
				csaenv.SessionID: testID, csaenv.Depth: "0", csaenv.ProjectRoot: "/proj", csaenv.Tool: "opencode",
				csaenv.SessionDir: "/state/" + testID, "PATH": "/usr/bin:/bin",
			},
			gone: []string{"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", csaenv.ParentSession, csaenv.ParentTool},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := ChildEnv(base, tt.st, "/state/"+testID, tt.extra)
			m, n := envMap(env)
			for k, v := range tt.want {
				if m[k] != v {
					t.Errorf("%s = %q, want %q", k, m[k], v)
				}
			}
			for k, c := range n {
				if c > 1 {
					t.Errorf("%s appears %d times in %v", k, c, env)
				}
			}
			for _, k := range tt.gone {
				if _, ok := m[k]; ok {
					t.Errorf("%s=%s was not stripped", k, m[k])
				}
			}
			// The genealogy comes last, so configured variables cannot
			// override it (the last value of a name wins).
			if last := env[len(env)-1]; !strings.HasPrefix(last, "CSA_") {
				t.Errorf("the genealogy is not last: %v", env)
			}
			for _, kv := range tt.extra {
				if !strings.HasPrefix(kv, "CSA_") && !slices.Contains(env, kv) {
					t.Errorf("extra variable %s is missing: %v", kv, env)
				}
			}
		})
	}
	if !reflect.DeepEqual(base, baseCopy) {
		t.Error("ChildEnv modified its base environment")
	}
}

func TestDisplayArgs(t *testing.T) {
	long := strings.Repeat("p", 201)
	edge := strings.Repeat("q", 200)
	otherLong := strings.Repeat("s", 500)
	tests := []struct {
		name   string
		args   []string
		prompt string
		want   []string
	}{
		{"short prompt kept", []string{"-p", "hello"}, "hello", []string{"-p", "hello"}},
		{"200 bytes kept", []string{"-p", edge}, edge, []string{"-p", edge}},
		{"long prompt elided", []string{"-p", "--model", "m", long}, long, []string{"-p", "--model", "m", "<prompt: 201 bytes>"}},
		{"other long args kept", []string{"--system", otherLong, long}, long, []string{"--system", otherLong, "<prompt: 201 bytes>"}},
		{"prompt on stdin", []string{"exec", "-"}, long, []string{"exec", "-"}},
		{"empty", nil, long, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.args...)
			got := displayArgs(in, tt.prompt)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("displayArgs = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(in, append([]string(nil), tt.args...)) {
				t.Error("displayArgs modified its input, which is the argv that runs")
			}
		})
	}
}

// TestForgetGone: a parent id naming a session of the store is kept; one
// naming none (removed, or a stillborn directory no agent ran for) is
// dropped, so the new session records parent_unknown at the same depth.
func TestForgetGone(t *testing.T) {
	store, err := session.Open(filepath.Join(t.TempDir(), "sessions"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	live, h, err := NewSession(store, "", "codex", nil, "/p", now)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(live); err != nil {
		t.Fatal(err)
	}
	h.Release()
	stillborn := session.NewID(now)
	if err := store.MakeDir(stillborn); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		id   string
		gone bool
	}{{live.ID, false}, {session.NewID(now), true}, {stillborn, true}} {
		p := &Parent{SessionID: tt.id, Tool: "claude-code", Depth: 2}
		if got := p.ForgetGone(store); got != tt.gone {
			t.Errorf("%s: ForgetGone = %v, want %v", tt.id, got, tt.gone)
		}
		st, h, err := NewSession(store, "", "codex", p, "/p", now)
		if err != nil {
			t.Fatal(err)
		}
		h.Release()
		want := session.State{ParentID: tt.id, ParentTool: "claude-code", Depth: 3}
		if tt.gone {
			want.ParentID, want.ParentUnknown = "", true
		}
		if st.ParentID != want.ParentID || st.ParentUnknown != want.ParentUnknown || st.Depth != 3 || st.ParentTool != "claude-code" {
			t.Errorf("%s: genealogy %q %v %d %q, want %q %v 3", tt.id, st.ParentID, st.ParentUnknown, st.Depth, st.ParentTool, want.ParentID, want.ParentUnknown)
		}
	}
	var none *Parent
	if none.ForgetGone(store) {
		t.Error("no parent: dropped one")
	}
}
