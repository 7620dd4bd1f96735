package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/testkit/devenv"
	"github.com/csa-dev/csa/internal/testkit/modelserver"
	"github.com/csa-dev/csa/internal/toolcache"
)

// The parity tests run the real Claude Code and csa-agent on the same
// project and HOME against the scripted model server and compare what
// each sent the model.

// realClaude is the installed Claude Code: a failure in CI, where the
// test set-up installs it, a skip elsewhere.
func realClaude(t *testing.T) string {
	t.Helper()
	claude, err := toolcache.Bin("claude")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("claude is not installed (run `make agents`): %v", err)
		}
		t.Skipf("claude is not installed; run `make agents`: %v", err)
	}
	return claude
}

// claudeCommand is Claude Code asked prompt, in cwd with HOME home, talking
// only to the model server at url.
func claudeCommand(t *testing.T, claude, home, cwd, url, prompt string) *exec.Cmd {
	t.Helper()
	env, err := devenv.Prepare(home, url, devenv.Options{Programs: []string{"claude"}, Trusted: []string{cwd}, Retries: 0})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(claude, "-p", prompt, "--max-turns", "1")
	cmd.Env = devenv.Merge(cleanEnv(), append(env, "HOME="+home, "PWD="+cwd))
	return cmd
}

// agentCommand is csa-agent asked prompt, in cwd with HOME home (its state
// and config under dir), talking only to the model server at url.
func agentCommand(t *testing.T, dir, home, cwd, url, prompt string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(selfAs(t, "csa-agent"), "-p", prompt)
	cmd.Env = append(cleanEnv(), "HOME="+home, "PWD="+cwd, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=k",
		"CSA_AGENT_MODEL=anthropic/claude-test")
	return cmd
}

// firstRequest runs one program in cwd against a fresh model server
// answering with script, and returns the body of its first request that
// holds marker: the program's answer must say "noted".
func firstRequest(t *testing.T, script, marker, cwd string, command func(url string) *exec.Cmd) string {
	t.Helper()
	sc, err := modelserver.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	dump := t.TempDir()
	srv := modelserver.New(sc, modelserver.Options{DumpDir: dump})
	url, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cmd := command(url)
	cmd.Dir = cwd
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "noted") {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, out)
	}
	srv.Settle(time.Minute)
	entries, err := os.ReadDir(dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dump, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), marker) && strings.Contains(string(data), `"messages"`) {
			return string(data)
		}
	}
	t.Fatalf("%s: no request holding %q reached the model", cmd.Path, marker)
	return ""
}

// writeFixture writes files, their paths relative to dir.
func writeFixture(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		if err := writeFile(filepath.Join(dir, name), content); err != nil {
			t.Fatal(err)
		}
	}
}

// bothSent is what Claude Code and csa-agent each sent the model when
// asked prompt in cwd with HOME home (csa-agent's state under dir); with
// CSA_PARITY_DUMP set both are logged.
func bothSent(t *testing.T, claude, dir, home, cwd, prompt string) (claudeText, agentText string) {
	t.Helper()
	claudeText = requestSent(t, cwd, func(url string) *exec.Cmd {
		return claudeCommand(t, claude, home, cwd, url, prompt)
	})
	agentText = requestSent(t, cwd, func(url string) *exec.Cmd {
		return agentCommand(t, dir, home, cwd, url, prompt)
	})
	if os.Getenv("CSA_PARITY_DUMP") != "" {
		t.Logf("claude:\n%s\n\ncsa-agent:\n%s", claudeText, agentText)
	}
	return claudeText, agentText
}
