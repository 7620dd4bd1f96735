// Command fakeagent stands in for a real agent program in tests and in the
// offline demo; see package fakeagent for the directives it understands.
package main

import (
	"os"

	"github.com/csa-dev/csa/internal/testkit/fakeagent"
)

func main() { os.Exit(fakeagent.Main()) }
