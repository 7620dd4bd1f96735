#!/usr/bin/env bash
# make mcp-servers: the npm MCP servers and client csa's tests use
# (internal/mcp/mcptest/pins: server-everything, server-memory, the MCP
# Inspector), each installed with `npm ci` from its lock file into
# $CSA_AGENTS_CACHE/mcp-test-servers/NAME (default ~/.cache/csa/agents/...),
# outside git. These are test dependencies, not programs csa runs. A pin
# already installed (its .stamp names the pin's files) is left alone, so a
# second run touches no network.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${CSA_AGENTS_CACHE:-$HOME/.cache/csa/agents}/mcp-test-servers

# install NAME: one pin, in the background of the loop below.
install() {
	local name=$1 pin=internal/mcp/mcptest/pins/$1 dst=$cache/$1 want
	# The fingerprint toolcache.Fingerprint computes, and mcptest checks.
	want=$(cd "$pin" && sha256sum package.json package-lock.json | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$dst/.stamp" 2>/dev/null)" = "$want" ]; then
		echo "mcp-servers: $name is installed in $dst"
		return 0
	fi
	mkdir -p "$dst"
	rm -f "$dst/.stamp"
	cp "$pin/package.json" "$pin/package-lock.json" "$dst/"
	echo "mcp-servers: installing $name into $dst"
	if ! (cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >install.log 2>&1); then
		echo "mcp-servers: npm ci of $name failed (log $dst/install.log):" >&2
		tail -n 20 "$dst/install.log" >&2
		return 1
	fi
	echo "$want" >"$dst/.stamp"
}

pids=()
for pin in internal/mcp/mcptest/pins/*/; do
	install "$(basename "$pin")" &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done
exit $status
