package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// BashOutput reads a background shell's new output.
type BashOutput struct{ base[bashOutputInput] }

// NewBashOutput is the BashOutput tool.
func NewBashOutput() *BashOutput {
	return &BashOutput{base[bashOutputInput]{"BashOutput", bashOutputDesc}}
}

type bashOutputInput struct {
	BashID string `json:"bash_id" jsonschema:"The ID of the background shell to retrieve output from"`
	Filter string `json:"filter,omitempty" jsonschema:"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."`
}

const bashOutputDesc = `- Retrieves output from a running or completed background bash shell
- Takes a bash_id parameter identifying the shell (from Bash with run_in_background)
- Always returns only new output since the last check, with the shell's status (running, exited, killed) and exit code once it has ended
- Supports optional regex filtering to show only lines matching a pattern
- Use this tool when you need to monitor or check the output of a long-running shell; do not poll in a tight loop — do other work in between`

func (*BashOutput) ConcurrencySafe(json.RawMessage) bool { return true }
func (*BashOutput) ReadOnly(json.RawMessage) bool        { return true }
func (*BashOutput) Subject(in json.RawMessage) string    { return field(in, "bash_id") }

func (bo *BashOutput) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := bo.parse(input)
	if !ok {
		return bad, nil
	}
	var re *regexp.Regexp
	if in.Filter != "" {
		var err error
		if re, err = regexp.Compile(in.Filter); err != nil {
			return tool.Errorf("invalid filter: %v", err), nil
		}
	}
	if env.Jobs == nil {
		return tool.Errorf("no background shells here"), nil
	}
	st, err := env.Jobs.ReadNew(in.BashID, MaxOutput)
	if err != nil {
		return tool.Errorf("%v", err), nil
	}
	out := st.New
	if re != nil {
		var kept []string
		for _, l := range lines(out) {
			if re.MatchString(l) {
				kept = append(kept, l)
			}
		}
		out = strings.Join(kept, "\n")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<status>%s</status>\n", st.Status)
	if st.Status != tool.JobRunning {
		fmt.Fprintf(&b, "<exit_code>%d</exit_code>\n", st.ExitCode)
	}
	if out == "" {
		b.WriteString("(no new output)\n")
	} else {
		b.WriteString("<output>\n" + strings.TrimSuffix(out, "\n") + "\n</output>\n")
	}
	if st.More {
		fmt.Fprintf(&b, "[More output is waiting: call BashOutput again. The whole output is in %s]\n", st.OutputPath)
	}
	return tool.Result{Output: b.String()}, nil
}
