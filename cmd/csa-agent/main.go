// Command csa-agent is csa's own coding agent: a model, its tools and a
// loop, headless (-p) or in a line-mode session. It is a program of its
// own so that csa never links the provider code.
package main

import (
	"os"

	"github.com/csa-dev/csa/internal/csaagent/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
