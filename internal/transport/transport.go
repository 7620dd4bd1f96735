// Package transport names the closed set of ways a run talks to its agent
// program; the ACP client itself is in transport/acp.
package transport

import "fmt"

// Transports, as recorded in events and chosen in tools.NAME.transport.
const (
	CLI  = "cli"  // the program's own structured output (headless)
	ACP  = "acp"  // the Agent Client Protocol over stdio
	Tmux = "tmux" // the program's interactive interface in a tmux pane
	// Auto is a choice, not a transport: ACP when the tool's ACP program
	// is installed, else CLI.
	Auto = "auto"
)

// Choices are the values tools.NAME.transport and --transport accept.
var Choices = []string{CLI, ACP, Auto}

// ParseChoice validates a configured or requested transport.
func ParseChoice(s string) (string, error) {
	switch s {
	case CLI, ACP, Auto:
		return s, nil
	}
	return "", fmt.Errorf("%q is not one of cli, acp, auto", s)
}
