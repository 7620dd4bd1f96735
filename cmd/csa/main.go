// Command csa is the recursive agent container.
package main

import (
	"os"

	"github.com/csa-dev/csa/internal/cli/root"
)

func main() { os.Exit(root.Entry()) }
