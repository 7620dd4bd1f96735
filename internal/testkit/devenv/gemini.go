package devenv

import (
	"path/filepath"
)

// prepareGemini sets up Gemini CLI.
func prepareGemini(home, url string, o Options, env map[string]string) error {
	general := map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
	if o.Retries != ProgramRetries {
		// Attempts per request, capped at 10 by gemini; the default 10
		// with 5-30 s backoff takes minutes on a 429.
		general["maxAttempts"] = min(o.Retries+1, 10)
	}
	settings := map[string]any{
		"general": general,
		// Without it gemini exits 41, "Invalid auth method selected".
		"security":  map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":   map[string]any{"usageStatisticsEnabled": false},
		"telemetry": map[string]any{"enabled": false},
	}
	if err := writeJSONFile(filepath.Join(home, ".gemini", "settings.json"), settings); err != nil {
		return err
	}
	env["GEMINI_API_KEY"] = o.APIKey
	env["GOOGLE_GEMINI_BASE_URL"] = url
	// Else gemini exits 55 in an untrusted folder.
	env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	// Saves a second node process (~1 s, ~170 MB).
	env["GEMINI_CLI_NO_RELAUNCH"] = "true"
	return nil
}
