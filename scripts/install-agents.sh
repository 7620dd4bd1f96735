#!/usr/bin/env bash
# Installs the pinned agent programs (agents/<name>/package-lock.json) into a
# cache outside git, one npm prefix per program:
#   ${CSA_AGENTS_CACHE:-$HOME/.cache/csa/agents}/<name>/node_modules/.bin/<name>
# Usage: scripts/install-agents.sh [name...]   (default: every agents/* dir)
# A program is reinstalled only when its package.json or lock file changed
# since the last successful install (sha256 stamp), so a re-run is instant.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${CSA_AGENTS_CACHE:-${HOME}/.cache/csa/agents}

if (($# > 0)); then
	names=("$@")
else
	names=()
	for d in "$root"/agents/*/; do
		names+=("$(basename "$d")")
	done
fi

fingerprint() {
	(cd "$1" && sha256sum package.json package-lock.json) | sha256sum | cut -d' ' -f1
}

# install_one NAME: prints the bin path, or the npm log on failure.
install_one() {
	local name=$1
	local src=$root/agents/$name dst=$cache/$name
	local bin=$dst/node_modules/.bin/$name
	if [[ ! -f $src/package-lock.json ]]; then
		echo "install-agents: no lock file $src/package-lock.json" >&2
		return 1
	fi
	mkdir -p "$dst"
	# Serialise concurrent runs of this script on the same prefix.
	exec {lockfd}>"$dst/.lock"
	flock "$lockfd"
	local want
	want=$(fingerprint "$src")
	if [[ -f $dst/.stamp && $(<"$dst/.stamp") == "$want" && -x $bin ]]; then
		echo "$name: $bin (up to date)"
		return 0
	fi
	rm -f "$dst/.stamp"
	cp "$src/package.json" "$src/package-lock.json" "$dst/"
	local start=$SECONDS
	if ! (cd "$dst" && npm ci --no-audit --no-fund --loglevel=error) >"$dst/install.log" 2>&1; then
		# The registry lacks some platform packages that opencode-ai lists as
		# optional dependencies, so its lock cannot name them and npm ci calls
		# it out of sync; npm install still installs exactly the locked tree.
		if ! grep -q 'can only install packages when your package.json and package-lock.json' "$dst/install.log" ||
			! (cd "$dst" && npm install --no-audit --no-fund --loglevel=error) >>"$dst/install.log" 2>&1; then
			echo "install-agents: $name: npm ci failed; log $dst/install.log:" >&2
			tail -n 30 "$dst/install.log" >&2
			return 1
		fi
	fi
	if [[ ! -x $bin ]]; then
		echo "install-agents: $name: installed but $bin is missing" >&2
		return 1
	fi
	echo "$want" >"$dst/.stamp"
	echo "$name: $bin (installed in $((SECONDS - start)) s)"
}

pids=()
for name in "${names[@]}"; do
	install_one "$name" &
	pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
	wait "$pid" || failed=$((failed + 1))
done
if ((failed > 0)); then
	echo "install-agents: $failed of ${#names[@]} installs failed" >&2
	exit 1
fi
