package config

// HooksTemplate returns a project hooks file for `csa init`: one example of
// every hook and of a prompt guard, each commented out, so that the file
// runs nothing until a block is uncommented. It loads without error, and so
// does the file with every block uncommented.
func HooksTemplate() string {
	return `# csa hooks (.csa/hooks.toml): commands csa runs around each run of this
# project, after those of the global hooks.toml beside the global config.
# Each runs with /bin/sh -c in the run's directory, stopped at its timeout
# (default "30s"). {session_id}, {tool}, {model}, {status}, {exit_code},
# {session_dir}, {project_root}, {depth}, {parent_id}, {from_model},
# {to_model} and {reason} are replaced by one shell-quoted word each (write them bare);
# the same values are in CSA_SESSION_ID, CSA_TOOL... Every block below is
# commented out: uncomment one to use it. csa run --no-hooks / --no-guards
# turn them off for one run.

# Once, when a session is created: its output is added to the first
# prompt; failing refuses the run.
# [[pre_session]]
# command = "cat .csa/context.md"
# timeout = "30s"

# Before each program start (each turn, each tier attempt): failing refuses
# the run (exit 3).
# [[pre_run]]
# command = "test -z \"$(git status --porcelain)\""
# timeout = "10s"

# After each program ran, whatever its end; cannot change the result.
# [[post_run]]
# command = "echo {session_id} {status} {exit_code} >> .csa/runs.log"
# timeout = "30s"

# After post_run, when the run ended completed.
# [[session_complete]]
# command = "git -C {project_root} status --short"
# timeout = "30s"

# When a tier leaves a rate-limited model for the next.
# [[on_failover]]
# command = "echo {from_model} '->' {to_model} >> .csa/failovers.log"
# timeout = "30s"

# When an interactive session (csa run -i) starts needing input: its agent
# finished a turn, or went quiet after answering; {reason} says why.
# [[on_needs_input]]
# command = "notify-send 'csa: {tool} needs you' {reason}"
# timeout = "30s"

# When a live worktree run (csa run -w) starts changing files another live
# run of the repository changes: once per pair and file, {overlap_with}
# the other session, {overlap_paths} the files newly shared, one a line.
# [[on_overlap]]
# command = "notify-send 'csa: {session_id} and {overlap_with} edit' {overlap_paths}"
# timeout = "30s"

# Prompt guards, in order: their output is added to every run's prompt
# (resumed turns too), cut at max_bytes; a failing guard never fails a run.
# [[prompt_guard]]
# command = "git status --short"
# timeout = "30s"
# max_bytes = 16384
`
}
