// Package modelserver is a scripted model API server. It speaks the wire
// formats of the Anthropic Messages API (Claude Code, claude-code-acp), the
// OpenAI Responses API (Codex, codex-acp), OpenAI Chat Completions
// (OpenCode) and Gemini generateContent (Gemini CLI), streamed and not, well
// enough to drive the real agent programs offline.
//
// Answers come from a Script, written in TOML or built in Go:
//
//	default_text = "ok"          # answer when no rule matches (logged as unmatched)
//
//	[[rule]]
//	name = "review"
//	contains = "review the patch"  # or regexp = '...'; optional api = "...", model = "..."
//	  [[rule.step]]                # turn 0: the answer to the prompt itself
//	  error = "rate_limit"         # fails the first request only...
//	  times = 1
//	  retry_after_ms = 50
//	  [[rule.step]]                # ...then this answers turn 0
//	  text = "Writing the review."
//	  write_file = { path = "review.md", content = "LGTM\n" }
//	  [[rule.step]]                # turn 1: after the tool result
//	  shell = "csa run --tool auto 'check review.md'"
//	  [[rule.step]]                # turn 2
//	  text = "Done."
//	  chunk_delay_ms = 100
//
// A rule matches the latest human-authored user text of a request (the
// programs' own context blocks stripped) and step k answers a request that
// already holds k assistant turns after that text. The step is derived from
// the request alone, so one server serves concurrent agents, nested runs and
// resumed sessions. Error steps are not turns: they fail requests before the
// answer step that follows them (each `times` requests, 0 = forever).
//
// Generic tool calls become each program's own tool: write_file is Write,
// mcp__acp__Write, write_file or write (Codex has none: a shell command writes
// the file); shell is Bash, exec_command, run_shell_command or bash, chosen
// from the tools the request offers. A relative path is joined to the
// working directory found in the request. call = {name, args} sends any
// other tool call as is; calls = [{name, args}, ...] sends several in one
// answer; namespace = "..." puts a call in a namespace of the Responses API
// (Codex offers an MCP server's tools as the namespace mcp__SERVER). In their arguments {cwd} stands for that working directory (some
// programs' tools, Claude Code's Read and Edit, want absolute paths). thinking = "..." sends a thinking part before the text, in the
// API's own form: an Anthropic thinking block with a signature, a Responses
// reasoning item with a summary and encrypted_content, Chat
// reasoning_content deltas, a Gemini thought part (its thoughtSignature on
// the first function call, else on the thought).
//
// Side calls that are not turns are answered without the script: Gemini
// CLI's model router and other JSON-schema requests, OpenCode's title
// request, Claude Code's HEAD probe and count_tokens.
package modelserver
