package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/llm"
	"github.com/csa-dev/csa/internal/csaagent/mention"
	"github.com/csa-dev/csa/internal/csaagent/tools"
)

// mentionedFiles is what Claude Code attaches for the files text mentions
// ("@src/app.go", a command's body naming them): for each, the Read call
// it stands for and its result, as reminders after the prompt; a folder
// is listed. A mention that is no readable file is left as plain text,
// as Claude Code leaves it.
func (s *session) mentionedFiles(ctx context.Context, text string) []llm.Block {
	var out []llm.Block
	reminder := func(s string) llm.Block {
		return llm.Block{Type: llm.BlockText, Text: "<system-reminder>\n" + s + "\n</system-reminder>"}
	}
	for _, ref := range mention.Files(text) {
		abs, err := s.env.Resolve(ref.Path)
		if err != nil {
			continue
		}
		st, err := os.Stat(abs)
		if err != nil {
			continue
		}
		if st.IsDir() {
			entries, err := os.ReadDir(abs)
			if err != nil {
				continue
			}
			names := make([]string, len(entries))
			for i, e := range entries {
				names[i] = e.Name()
			}
			call, _ := json.Marshal(map[string]string{"command": "ls " + shellQuote(abs), "description": "Lists files in " + abs})
			out = append(out, reminder("Called the Bash tool with the following input: "+string(call)),
				reminder("Result of calling the Bash tool:\n"+strings.Join(names, "\n")))
			continue
		}
		in := map[string]any{"file_path": abs}
		if ref.Start > 0 {
			in["offset"], in["limit"] = ref.Start, ref.End-ref.Start+1
		}
		raw, _ := json.Marshal(in)
		res, err := tools.NewRead().Run(ctx, s.env, raw)
		if err != nil || res.IsError {
			continue
		}
		call, _ := json.Marshal(map[string]string{"file_path": abs})
		out = append(out, reminder("Called the Read tool with the following input: "+string(call)),
			reminder("Result of calling the Read tool:\n"+res.Output))
	}
	return out
}

// shellQuote quotes a path for the ls command the listing stands for.
func shellQuote(p string) string {
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}
