#!/usr/bin/env bash
# The main job, offline: Claude Code (the real program) implements a change
# and, through its shell tool, runs `csa run --tool auto` to get a review
# from an agent of another model family (Codex). Both talk to csa's scripted
# model server on 127.0.0.1; csa records the whole genealogy. Then the
# real Codex interface runs in tmux for two turns (csa run -i, wait, send,
# logs).
# Needs: make build, csa tools install --acp (make demo does both).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/csa-demo.XXXXXX")
server=
id=
cleanup() {
	[[ -n $id ]] && csa kill "$id" >/dev/null 2>&1
	[[ -n $server ]] && kill "$server" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

export PATH=$root/bin:$PATH
mkdir -p "$work/project"
cd "$work/project"
git init -q .

csa-model-server --script "$root/scripts/demo.toml" --log "$work/model-requests.jsonl" \
	--url-file "$work/url" >/dev/null 2>"$work/model-server.log" &
server=$!
for _ in $(seq 100); do [[ -s $work/url ]] && break; sleep 0.05; done
url=$(<"$work/url")

# A private HOME for the agents, and csa's own state and config beside it.
eval "$(csa dev agent-env --home "$work/home" --url "$url" --csa-config "$work/csa-config/config.toml")"
export CSA_STATE_DIR=$work/state CSA_CONFIG_HOME=$work/csa-config

echo "== csa run --tool claude-code (model server at $url)"
csa run --tool claude-code "Add a greet function in greet.py, then get it reviewed."
echo
echo "== greet.py, written by the agent"
cat greet.py
echo
echo "== csa ps --tree"
csa ps --tree
echo
reviewer=$(csa ps --json | grep '"depth":1' | cut -d'"' -f4)
echo "== csa logs $reviewer (the reviewer's answer)"
csa logs "$reviewer"
echo
echo "== csa run -i --tool codex: the real Codex interface in tmux, two turns"
id=$(csa run -i --tool codex "What does greet.py do?")
csa wait "$id" --until waiting_input --timeout 60s >/dev/null
csa send "$id" --text "And how would you test it?" --enter
csa wait "$id" --until waiting_input --timeout 60s
echo "-- csa logs $id (Codex's own transcript)"
csa logs "$id"
csa kill "$id" >/dev/null
