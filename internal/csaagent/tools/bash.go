package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/tool"
	"github.com/csa-dev/csa/internal/proc"
)

// Bash timeouts.
const (
	bashDefaultTimeout = 120000 // ms
	bashMaxTimeout     = 600000 // ms
)

// Bash runs a shell command.
type Bash struct{ base[bashInput] }

// NewBash is the Bash tool.
func NewBash() *Bash { return &Bash{base[bashInput]{"Bash", bashDesc}} }

type bashInput struct {
	Command         string  `json:"command" jsonschema:"The command to execute"`
	Timeout         float64 `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (max 600000)"`
	Description     string  `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words, in active voice. Examples:\nInput: ls\nOutput: List files in current directory\n\nInput: git status\nOutput: Show working tree status\n\nInput: npm install\nOutput: Install package dependencies"`
	RunInBackground bool    `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background. Use BashOutput to read the output later."`
}

const bashDesc = `Executes a given bash command with an optional timeout, via ` + "`bash -c`" + ` in the working directory.

Before executing the command:
1. Directory verification: if the command will create new directories or files, first use LS to verify the parent directory exists and is the correct location.
2. Command execution: always quote file paths that contain spaces with double quotes (e.g. cd "path with spaces/file.txt").

Usage notes:
- The command argument is required.
- You can specify an optional timeout in milliseconds (up to 600000ms / 10 minutes). If not specified, commands will time out after 120000ms (2 minutes). On timeout or interruption the command's whole process group is killed and what it printed so far is returned.
- It is very helpful if you write a clear, concise description of what this command does in 5-10 words.
- Output (stdout and stderr together) longer than 30000 characters is truncated in the middle; the full output is saved to a file whose path the result names (Read or Grep it).
- The exit code is reported; a non-zero exit code marks the result as an error.
- Each call starts a new shell in the working directory: cd, variables and aliases do not carry over to the next call. Prefer absolute paths over cd.
- Stdin is empty: interactive commands (editors, pagers, prompts, git rebase -i) cannot work. Pagers are disabled (PAGER=cat).
- Bash is not confined to the allowed directories the file tools are; permission rules decide which commands may run.
- You can use the run_in_background parameter to run the command in the background, which allows you to continue working while it runs (servers, watchers, long builds). You get an id at once; read its output with BashOutput and stop it with KillShell. Never use '&' at the end of a command for this. Do not use sleep to wait for it.
- Avoid using Bash with the find, grep, cat, head, tail, sed, awk, or echo commands, unless explicitly instructed or when these commands are truly necessary for the task. Instead, always prefer the dedicated tools:
  - File search: use Glob (NOT find or ls)
  - Content search: use Grep (NOT grep or rg)
  - Read files: use Read (NOT cat/head/tail)
  - Edit files: use Edit (NOT sed/awk)
  - Write files: use Write (NOT echo >/cat <<EOF)
  - Communication: output text directly (NOT echo/printf)
- When issuing multiple commands: if they are independent, make multiple Bash calls in a single message so they run in parallel; if they depend on each other, chain them with '&&' in one call; use ';' only when you don't care if earlier commands fail. Do not use newlines to separate commands (newlines are ok in quoted strings).
- Clearly read-only commands (ls, cat, grep, git status/diff/log/show and the like, without redirection) may run alongside other calls; anything else runs alone.
- Never run destructive git commands (push --force, reset --hard, clean -f, checkout of others' work) unless the user explicitly asks; never skip hooks (--no-verify) or change git config. Only commit when the user asks you to.`

func (*Bash) ConcurrencySafe(in json.RawMessage) bool { return readOnlyCommand(field(in, "command")) }
func (*Bash) ReadOnly(in json.RawMessage) bool        { return readOnlyCommand(field(in, "command")) }
func (*Bash) Subject(in json.RawMessage) string       { return field(in, "command") }

func (b *Bash) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	in, bad, ok := b.parse(input)
	if !ok {
		return bad, nil
	}
	if strings.TrimSpace(in.Command) == "" {
		return tool.Errorf("command is empty"), nil
	}
	if in.RunInBackground {
		return background(env, in.Command)
	}
	timeout := time.Duration(bashDefaultTimeout) * time.Millisecond
	if in.Timeout > 0 {
		timeout = time.Duration(min(in.Timeout, bashMaxTimeout) * float64(time.Millisecond))
	}
	dir, err := spillDir(env)
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash output directory: %w", err)
	}
	// The child writes straight into a file: nothing to copy, no pipe a
	// straggling grandchild could hold open, and the spill file for free.
	f, err := os.CreateTemp(dir, "bash-*.out")
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash output file: %w", err)
	}
	defer f.Close()
	p, err := proc.Start(proc.Spec{
		Path: "bash", Args: []string{"-c", in.Command}, Dir: env.Cwd, Env: shellEnv(),
		Stdout: f, Stderr: f, DieWithParent: true,
	})
	if err != nil {
		os.Remove(f.Name())
		return tool.Errorf("cannot run bash: %v", err), nil
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string
	select {
	case <-p.Done():
	case <-timer.C:
		stopped = fmt.Sprintf("Command timed out after %dms and was killed.", timeout.Milliseconds())
		p.Terminate(tool.KillGrace)
	case <-ctx.Done():
		stopped = "Command was interrupted and killed."
		p.Terminate(tool.KillGrace)
	}
	ps := p.Wait()
	out, err := collect(f)
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash output: %w", err)
	}
	res := tool.Result{Output: out, Response: bashResponse{Stdout: strings.TrimRight(out, "\n"), Stderr: "",
		Interrupted: ctx.Err() != nil && stopped != ""}}
	if res.Output != "" && !strings.HasSuffix(res.Output, "\n") {
		res.Output += "\n"
	}
	code := ps.ExitCode()
	switch {
	case stopped != "":
		res.Output += stopped
		res.IsError = true
	case code == -1:
		res.Output += "Command was killed by a signal: " + ps.String()
		res.IsError = true
	default:
		res.Output += fmt.Sprintf("Exit code: %d", code)
		res.IsError = code != 0
	}
	return res, nil
}

// background starts command as a job.
func background(env *tool.Env, command string) (tool.Result, error) {
	if env.Jobs == nil {
		return tool.Errorf("background shells are not available here"), nil
	}
	id, err := env.Jobs.Start(command, env.Cwd)
	if err != nil {
		return tool.Errorf("cannot start background command: %v", err), nil
	}
	return tool.Result{Output: fmt.Sprintf("Command running in background with ID: %s. Use BashOutput with bash_id %q to read its output, and KillShell with shell_id %q to stop it.", id, id, id)}, nil
}

// shellEnv is the agent's environment with pagers and prompts off: no one
// is at a terminal.
func shellEnv() []string {
	return append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
}

// spillDir is Env.SpillDir, created on first use (a temporary directory
// when unset).
func spillDir(env *tool.Env) (string, error) {
	if env.SpillDir == "" {
		return os.TempDir(), nil
	}
	return env.SpillDir, os.MkdirAll(env.SpillDir, 0o755)
}

// collect returns the output in f. Short output is returned whole and the
// file removed; longer output keeps its head and tail and names the file
// that keeps all of it.
func collect(f *os.File) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	size := fi.Size()
	if size <= MaxOutput {
		b, err := io.ReadAll(io.NewSectionReader(f, 0, size))
		os.Remove(f.Name())
		return strings.ToValidUTF8(string(b), "\uFFFD"), err
	}
	half := int64(MaxOutput / 2)
	head := make([]byte, half)
	tail := make([]byte, half)
	if _, err := f.ReadAt(head, 0); err != nil {
		return "", err
	}
	if _, err := f.ReadAt(tail, size-half); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\n\n... [%d bytes omitted] ...\n\n%s\n[Output truncated; the full output is in %s (%d bytes)]\n",
		strings.ToValidUTF8(string(head), ""), size-2*half, strings.ToValidUTF8(string(tail), ""), f.Name(), size), nil
}
