# csa — one command for the main job, one for every test.
#   make demo    build csa, install the pinned agents, run a real nested tree offline
#   make test    install what the tests need, vet, and run every test
#   make install csa, csa-agent and csa-model-server into $GOBIN, else ~/.local/bin
#   make docs    the command reference from csa's cobra commands: docs/cli/ and man pages;
#                docs/environment.md's table of CSA_ variables from internal/csaenv
GO      ?= go
# csa starts for every run: a static binary (no cgo, so no dynamic loader) starts
# ~0.6 ms sooner. pflag imports net, which would otherwise pull in libc.
export CGO_ENABLED = 0
BIN     := $(CURDIR)/bin
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# csa-agent is built with csa and carries its version (-X of a package a
# binary does not link is ignored).
LDFLAGS := -X github.com/csa-dev/csa/internal/cli/root.Version=$(VERSION) -X github.com/csa-dev/csa/internal/csaagent/cli.Version=$(VERSION)

.PHONY: build install demo test agents mcp-servers nats-server vet fmt bench docs clean

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...

# make install puts csa, csa-agent (csa's own agent program, which csa looks
# for beside itself), csa-mcp (csa's MCP server, run by csa mcp-server),
# csa-ui (csa top and csa serve --ui) and csa-model-server (not the fake agent, a test stand-in) in $(INSTALL_DIR):
# $GOBIN when go env has one, else ~/.local/bin.
INSTALL_DIR ?= $(or $(shell $(GO) env GOBIN),$(HOME)/.local/bin)

install:
	@mkdir -p "$(INSTALL_DIR)"
	$(GO) build -ldflags "$(LDFLAGS)" -o "$(INSTALL_DIR)/" ./cmd/csa ./cmd/csa-agent ./cmd/csa-mcp ./cmd/csa-cluster ./cmd/csa-ui ./cmd/csa-model-server
	@echo "installed csa, csa-agent, csa-mcp, csa-cluster, csa-ui and csa-model-server in $(INSTALL_DIR)"
	@case ":$$PATH:" in *":$(INSTALL_DIR):"*) ;; *) echo "note: $(INSTALL_DIR) is not on your PATH";; esac

demo: build agents
	./scripts/demo.sh

# The real agent programs and their ACP agents, at the versions csa pins
# (internal/toolcache/pins), installed by csa itself into its cache outside
# git (CSA_AGENTS_CACHE, default ~/.cache/csa/agents).
agents: build
	$(BIN)/csa tools install --acp

# The npm MCP servers and client the tests use (internal/mcp/mcptest/pins),
# installed beside the agents (CSA_AGENTS_CACHE/mcp-test-servers); test
# dependencies, not programs csa runs.
mcp-servers:
	./scripts/mcp-servers.sh

# The nats-server program the cluster tests run as three processes
# (internal/cluster/clustertest), built from the module at the version go.mod pins,
# into csa's cache outside git ($CSA_AGENTS_CACHE/nats-server/VERSION/).
nats-server:
	./scripts/nats-server.sh

# vet also fails when go.mod or go.sum is not what `go mod tidy` makes of
# the imports (run it and commit the result).
vet:
	@test -z "$$(gofmt -l cmd internal bench e2e 2>/dev/null)" || { gofmt -l cmd internal bench e2e; echo "gofmt: files above need formatting"; exit 1; }
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum: run go mod tidy and commit the result"; exit 1; }
	$(GO) vet ./...

# -timeout: the end-to-end package runs the real agents for 7-10 minutes
# beside a second suite on 2 cores, past go test's default of 10; a test
# that hangs still ends the run, well inside CI's 90 minutes.
test: agents mcp-servers nats-server vet
	$(GO) test -count=1 -timeout 40m ./...

bench: build mcp-servers nats-server
	$(GO) test -run '^$$' -bench . -benchtime 1x ./bench/...

# The command reference, generated from csa's cobra commands by cmd/gen-docs
# (a program of its own: csa links no doc generator): markdown in docs/cli/,
# committed (cmd/gen-docs TestCLIDocs fails when it is stale), and man
# pages in share/man/man1/ (not committed: `man share/man/man1/csa.1`); and
# docs/environment.md's table from internal/csaenv (TestEnvironmentDocs).
docs:
	$(GO) run ./cmd/gen-docs --dir docs/cli --env docs/environment.md --man share/man/man1

clean:
	rm -rf $(BIN) share/man
