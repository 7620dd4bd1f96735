package agents

// The minimal adapters run each program headless with the prompt and take
// its plain standard output as the result. Every argv ends with the prompt
// (or the program's read-stdin form) so the shape is easy to check.

type claudeCode struct{}

func (claudeCode) Tool() Tool        { return ClaudeCode }
func (claudeCode) Program() string   { return "claude" }
func (claudeCode) Package() string   { return "@anthropic-ai/claude-code" }
func (claudeCode) Family() string    { return FamilyAnthropic }
func (claudeCode) NewParser() Parser { return &plainParser{} }
func (claudeCode) Build(r Request) (Invocation, error) {
	args := []string{"-p"}
	args = appendModel(args, "--model", r.Model)
	return withPrompt(args, r.Prompt, ""), nil
}

type codex struct{}

func (codex) Tool() Tool        { return Codex }
func (codex) Program() string   { return "codex" }
func (codex) Package() string   { return "@openai/codex" }
func (codex) Family() string    { return FamilyOpenAI }
func (codex) NewParser() Parser { return &plainParser{} }
func (codex) Build(r Request) (Invocation, error) {
	args := []string{"exec", "--skip-git-repo-check"}
	args = appendModel(args, "-m", r.Model)
	return withPrompt(args, r.Prompt, "-"), nil
}

type geminiCLI struct{}

func (geminiCLI) Tool() Tool        { return GeminiCLI }
func (geminiCLI) Program() string   { return "gemini" }
func (geminiCLI) Package() string   { return "@google/gemini-cli" }
func (geminiCLI) Family() string    { return FamilyGoogle }
func (geminiCLI) NewParser() Parser { return &plainParser{} }
func (geminiCLI) Build(r Request) (Invocation, error) {
	args := appendModel(nil, "-m", r.Model)
	if len(r.Prompt) > MaxArgvPrompt {
		return Invocation{Args: args, Stdin: []byte(r.Prompt)}, nil
	}
	return Invocation{Args: append(args, "-p", r.Prompt)}, nil
}

type opencode struct{}

func (opencode) Tool() Tool        { return Opencode }
func (opencode) Program() string   { return "opencode" }
func (opencode) Package() string   { return "opencode-ai" }
func (opencode) Family() string    { return "" } // the family of its configured model
func (opencode) NewParser() Parser { return &plainParser{} }
func (opencode) Build(r Request) (Invocation, error) {
	args := []string{"run"}
	args = appendModel(args, "-m", r.Model)
	return withPrompt(args, r.Prompt, ""), nil
}

func appendModel(args []string, flag, model string) []string {
	if model == "" {
		return args
	}
	return append(args, flag, model)
}

// withPrompt puts the prompt last in argv, or on stdin when it is long;
// stdinArg is what the program wants in argv to read stdin ("" for none).
func withPrompt(args []string, prompt, stdinArg string) Invocation {
	if len(prompt) > MaxArgvPrompt {
		if stdinArg != "" {
			args = append(args, stdinArg)
		}
		return Invocation{Args: args, Stdin: []byte(prompt)}
	}
	return Invocation{Args: append(args, prompt)}
}

// plainParser keeps the tail of standard output as the result.
type plainParser struct{ tail []byte }

// maxResult bounds the result kept in the state file; the whole output is
// in the log.
const maxResult = 16 * 1024

func (p *plainParser) Feed(line []byte) []Event {
	p.tail = append(p.tail, line...)
	if len(p.tail) > 2*maxResult {
		p.tail = append(p.tail[:0], p.tail[len(p.tail)-maxResult:]...)
	}
	return nil
}

func (p *plainParser) Finish(int) Outcome {
	t := p.tail
	if len(t) > maxResult {
		t = t[len(t)-maxResult:]
	}
	return Outcome{Result: trimSpace(string(t))}
}

func trimSpace(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == '\r' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}
