package devenv

import (
	"os"
	"path/filepath"
	"strconv"
)

// prepareClaude sets up Claude Code (and claude-code-acp, which bundles its
// own Claude Code and reads the same files).
func prepareClaude(home, url string, o Options, env map[string]string) error {
	trusted, err := uniqueAbs(o.Trusted)
	if err != nil {
		return err
	}
	projects := map[string]any{}
	for _, d := range trusted {
		projects[d] = map[string]any{"hasTrustDialogAccepted": true}
	}
	key := o.APIKey
	if len(key) > 20 {
		key = key[len(key)-20:]
	}
	// Pre-answer the interactive UI's blocking screens: onboarding (which
	// checks Anthropic's hosts and exits offline), folder trust and the
	// custom API key question.
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{key}, "rejected": []string{}},
		"projects":               projects,
		"autoUpdates":            false,
	}
	if err := mergeJSONFile(filepath.Join(home, ".claude.json"), state); err != nil {
		return err
	}
	settings := map[string]any{"skipDangerousModePermissionPrompt": true}
	if err := mergeJSONFile(filepath.Join(home, ".claude", "settings.json"), settings); err != nil {
		return err
	}
	env["ANTHROPIC_BASE_URL"] = url
	env["ANTHROPIC_API_KEY"] = o.APIKey
	env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
	env["CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL"] = "1"
	env["DISABLE_TELEMETRY"] = "1"
	env["DISABLE_AUTOUPDATER"] = "1"
	env["DISABLE_ERROR_REPORTING"] = "1"
	// Without it Claude Code retries a 429 ten times with backoff (~2 min).
	if o.Retries != ProgramRetries {
		env["CLAUDE_CODE_MAX_RETRIES"] = strconv.Itoa(o.Retries)
	}
	if os.Geteuid() == 0 {
		// As root --dangerously-skip-permissions is refused without it.
		env["IS_SANDBOX"] = "1"
	}
	return nil
}
