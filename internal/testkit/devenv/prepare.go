package devenv

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/csa-dev/csa/internal/agents"
)

// DefaultAPIKey is the fake key the programs send when Options has none.
const DefaultAPIKey = "sk-csa-modelserver-0000000000000000"

// ProgramRetries, as Options.Retries, leaves each program's own retry
// policy in place, as a user has it.
const ProgramRetries = -1

// Options shape a prepared HOME.
type Options struct {
	// Programs to prepare, by name (claude, codex-acp); all when empty. The ACP agents share
	// their base program's setup.
	Programs []string
	// APIKey is the fake key the programs send; DefaultAPIKey when empty.
	APIKey string
	// Retries is how often each program retries a failed model request by
	// itself. 0 fails at once, so a 429 reaches the caller quickly;
	// ProgramRetries leaves each program its own policy (minutes of
	// retries for some). OpenCode has no such setting: it always retries
	// 5 times, waiting for the server's retry-after-ms or retry-after.
	Retries int
	// Trusted project directories: their trust screens are pre-answered.
	Trusted []string
}

// Prepare writes into home (created if missing) what each program needs to
// run offline, headless, against the model server at serverURL
// (http://127.0.0.1:PORT), and returns the variables to set, as KEY=VALUE.
// Start the programs from Merge(os.Environ(), env), or a cleaner base, with
// PWD set to their working directory and stdin closed or /dev/null.
func Prepare(home, serverURL string, opts Options) ([]string, error) {
	if !filepath.IsAbs(home) {
		return nil, fmt.Errorf("prepare home: %q is not absolute", home)
	}
	serverURL = strings.TrimRight(serverURL, "/")
	if opts.APIKey == "" {
		opts.APIKey = DefaultAPIKey
	}
	if opts.Retries < ProgramRetries {
		return nil, errors.New("prepare home: negative retries")
	}
	programs := opts.Programs
	if len(programs) == 0 {
		programs = ProgramNames()
	}
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return nil, fmt.Errorf("prepare home: %w", err)
	}
	env := map[string]string{
		"HOME": home,
		// Codex refuses its sandbox helper when CODEX_HOME lies under
		// TMPDIR, and Gemini drops error reports in TMPDIR: keep it here.
		"TMPDIR":          tmp,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
	}
	done := map[agents.Tool]bool{}
	for _, p := range programs {
		tool, err := toolOf(p)
		if err != nil {
			return nil, fmt.Errorf("prepare home: %w", err)
		}
		if done[tool] {
			continue
		}
		done[tool] = true
		if err := setups[tool](home, serverURL, opts, env); err != nil {
			return nil, fmt.Errorf("prepare %s: %w", p, err)
		}
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// leaky variables from a developer's own setup that would send a program
// elsewhere or change how it behaves (CLAUDECODE marks a nested session).
// A stale PWD is among them: OpenCode takes its working directory from PWD,
// not from the directory it was started in.
var leaky = []string{
	"PWD", "OLDPWD",
	"CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT", "CLAUDE_CONFIG_DIR", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX",
	"ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL",
	"CODEX_HOME", "CODEX_SANDBOX", "OPENAI_API_KEY", "OPENAI_BASE_URL",
	"GEMINI_MODEL", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS",
	"OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENCODE_CONFIG_CONTENT",
}

// Merge returns base without the variables env sets or that would leak a
// developer's own agent setup into the run, followed by env.
func Merge(base, env []string) []string {
	drop := map[string]bool{}
	for _, k := range leaky {
		drop[k] = true
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	out := make([]string, 0, len(base)+len(env))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// writeFile writes a private file, making its directory.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}

func writeJSONFile(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, append(data, '\n'))
}

// mergeJSONFile sets v's keys in the JSON object at path, keeping the
// others (objects merge key by key): a test's HOME may hold settings of
// its own, such as enabledPlugins, beside what the program needs here.
func mergeJSONFile(path string, v map[string]any) error {
	old := map[string]any{}
	data, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(data, &old); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return writeJSONFile(path, mergeObjects(old, v))
}

func mergeObjects(old, v map[string]any) map[string]any {
	for k, nv := range v {
		oo, ok1 := old[k].(map[string]any)
		no, ok2 := nv.(map[string]any)
		if ok1 && ok2 {
			old[k] = mergeObjects(oo, no)
			continue
		}
		old[k] = nv
	}
	return old
}

func uniqueAbs(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("trusted directory %q is not absolute", d)
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out, nil
}
