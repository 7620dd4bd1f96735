#!/usr/bin/env bash
# Builds the nats-server program the cluster tests start (three processes
# on 127.0.0.1, internal/cluster/clustertest) from the module at the version go.mod
# pins, into csa's cache outside git:
#   ${CSA_AGENTS_CACHE:-~/.cache/csa/agents}/nats-server/VERSION/nats-server
# A build already there is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(go list -m -f '{{.Version}}' github.com/nats-io/nats-server/v2)"
dir="${CSA_AGENTS_CACHE:-$HOME/.cache/csa/agents}/nats-server/$version"
if [[ -x "$dir/nats-server" ]]; then
	echo "nats-server $version already built in $dir"
	exit 0
fi
mkdir -p "$dir"
CGO_ENABLED=0 go build -o "$dir/nats-server.tmp" github.com/nats-io/nats-server/v2
mv "$dir/nats-server.tmp" "$dir/nats-server"
echo "built nats-server $version in $dir"
