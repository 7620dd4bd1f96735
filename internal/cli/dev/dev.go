// Package dev implements `csa dev`: tools for developing and demonstrating
// csa offline.
package dev

import (
	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
)

// NewCmd builds `csa dev`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Development tools: prepare a HOME for the real agents against csa-model-server",
		Long: `Development tools for running the real agent programs offline. The scripted
model server is the separate program csa-model-server (make build), so that csa
itself carries no HTTP server.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newAgentEnvCmd(f))
	return cmd
}
