package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/csa-dev/csa/internal/csaagent/mcpserve"
	"github.com/csa-dev/csa/internal/csaagent/perm"
)

// mcpServe is `csa-agent mcp-serve`: csa-agent as an MCP server on
// standard input and output, until the client closes its input.
func mcpServe(ctx context.Context, args []string, sio IO) int {
	fs := pflag.NewFlagSet("csa-agent mcp-serve", pflag.ContinueOnError)
	fs.SetOutput(sio.Stderr)
	var base options
	fs.StringVar(&base.model, "model", "", "the conversations' default model (provider/model)")
	fs.StringVar(&base.permissionMode, "permission-mode", "", "the conversations' default permission mode")
	fs.Usage = func() {
		fmt.Fprintf(sio.Stderr, "usage: csa-agent mcp-serve [flags]\n\ncsa-agent as an MCP server on stdio: tools %s (start a conversation) and %s (continue it).\n\n%s",
			mcpserve.StartTool, mcpserve.ReplyTool, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(sio.Stderr, "csa-agent mcp-serve:", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(sio.Stderr, "csa-agent mcp-serve: unexpected arguments:", fs.Args())
		return exitUsage
	}
	if _, err := perm.ParseMode(base.permissionMode); err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent mcp-serve: --permission-mode:", err)
		return exitUsage
	}
	base.outputFormat = "json"
	// Standard output is the protocol's: the sessions write to stderr.
	hostIO := sio
	hostIO.Stdout = sio.Stderr
	srv := mcpserve.New(&host{io: hostIO, base: base}, Version)
	t := &mcp.IOTransport{Reader: io.NopCloser(sio.Stdin), Writer: nopWriteCloser{sio.Stdout}}
	if err := srv.Run(ctx, t); err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent mcp-serve:", err)
		return exitFailed
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
