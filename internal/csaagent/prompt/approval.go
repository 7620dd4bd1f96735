package prompt

import (
	"encoding/json"
	"os"
)

// ExternalImportsApproved reads whether the user let project's memory
// files import files outside the working directory: Claude Code asks once
// and records the answer in its user file (claudeJSON, ~/.claude.json)
// under the project's entry.
func ExternalImportsApproved(claudeJSON, project string) bool {
	data, err := os.ReadFile(claudeJSON)
	if err != nil {
		return false
	}
	var doc struct {
		Projects map[string]struct {
			Approved bool `json:"hasClaudeMdExternalIncludesApproved"`
		} `json:"projects"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	return doc.Projects[project].Approved
}
