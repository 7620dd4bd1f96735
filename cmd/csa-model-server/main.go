// Command csa-model-server serves the Anthropic Messages, OpenAI Responses,
// OpenAI Chat Completions and Gemini APIs on a loopback address, answering
// from a TOML script (see internal/testkit/modelserver). It is a separate program
// so that csa itself does not carry an HTTP server: every csa start would
// pay for it.
package main

import (
	"os"

	"github.com/csa-dev/csa/internal/testkit/modelserver"
)

func main() { os.Exit(modelserver.Main(os.Args[1:], os.Stdout, os.Stderr)) }
