package tool

// Jobs are the background shell jobs of an agent (Bash with
// run_in_background, BashOutput, KillShell). PLACEHOLDER: the tools work
// replaces this file.
type Jobs struct{ dir string }

// NewJobs keeps job output under dir.
func NewJobs(dir string) *Jobs { return &Jobs{dir: dir} }

// KillAll ends every running job (the agent is exiting).
func (j *Jobs) KillAll() {}
