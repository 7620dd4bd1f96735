#!/usr/bin/env bash
# The main job, offline: a root agent asks a reviewer of another model family
# for a review through `csa run`, the reviewer asks a third agent, and csa
# records the whole genealogy. Stand-in agents (bin/fakeagent) play the tools.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/csa-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

export PATH=$root/bin:$PATH
export CSA_STATE_DIR=$work/state CSA_CONFIG_HOME=$work/config
mkdir -p "$CSA_CONFIG_HOME" "$work/project/.csa"
for t in claude-code codex gemini-cli opencode; do
	printf '[tools.%s]\npath = "%s"\n' "$t" "$root/bin/fakeagent"
done >"$CSA_CONFIG_HOME/config.toml"
cd "$work/project"

echo "== csa run: claude-code asks codex for a review, codex asks gemini-cli"
csa run --tool claude-code "echo claude-code: writing the change; \
csa run --tool codex 'echo codex: reviewing; csa run --tool gemini-cli \"echo gemini-cli: second opinion, looks good\"; echo codex: verdict pass'; \
echo claude-code: done"

echo
echo "== a detached run, waited for"
id=$(csa run -d --tool opencode "echo opencode: background job; sleep 200ms; echo opencode: finished")
csa wait "$id"
csa logs "$id"

echo
echo "== csa ps --tree"
csa ps --tree
