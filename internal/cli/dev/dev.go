// Package dev implements `csa dev`: tools for developing and demonstrating
// csa offline, such as the scripted model server.
package dev

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/modelserver"
)

// NewCmd builds `csa dev`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Development tools: a scripted model server for offline runs",
		Args:  cobra.NoArgs,
	}
	var addr, script, logPath, urlFile string
	ms := &cobra.Command{
		Use:   "model-server --script FILE [--addr 127.0.0.1:0] [--log FILE] [--url-file FILE]",
		Short: "Serve the Anthropic, OpenAI (Responses, Chat) and Gemini APIs from a script, on 127.0.0.1",
		Long: `Serve the Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and
Gemini generateContent APIs on a loopback address, answering from a TOML script
of rules (text turns, tool calls, 429 and overloaded errors, slow or malformed
streams). Every request is logged (JSON lines with --log). Runs until SIGINT or
SIGTERM.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if script == "" {
				return cmdutil.Usagef("--script is required")
			}
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return modelserver.Run(ctx, addr, script, logPath, func(url string) {
				if urlFile != "" {
					fsutil.WriteFileAtomic(urlFile, []byte(url+"\n"))
				}
				if f.JSON {
					f.IO.PrintJSON(map[string]string{"url": url})
				} else {
					fmt.Fprintln(f.IO.Out, url)
				}
				if o, ok := f.IO.Out.(*os.File); ok {
					o.Sync()
				}
			})
		},
	}
	ms.Flags().StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (loopback only)")
	ms.Flags().StringVar(&script, "script", "", "TOML script of answers")
	ms.Flags().StringVar(&logPath, "log", "", "append every request as a JSON line to this file")
	ms.Flags().StringVar(&urlFile, "url-file", "", "write the base URL to this file once listening")
	cmd.AddCommand(ms, newAgentEnvCmd(f))
	return cmd
}
