package modelserver

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/loopback"
)

const usage = "usage: csa-model-server --script FILE [--addr 127.0.0.1:0] [--log FILE] [--url-file FILE] [--json]"

// Main is csa-model-server: it serves the script on a loopback address
// until SIGINT or SIGTERM, and returns the exit status (2 for bad usage,
// an address that is not loopback among it, 1 when it cannot serve).
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("csa-model-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (loopback only)")
	script := fs.String("script", "", "TOML script of answers (required)")
	logPath := fs.String("log", "", "append every request as a JSON line to this file")
	urlFile := fs.String("url-file", "", "write the base URL to this file once listening")
	asJSON := fs.Bool("json", false, `print {"url": ...} instead of the bare URL`)
	fs.Usage = func() {
		fmt.Fprintln(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *script == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if err := loopback.CheckAddr(*addr); err != nil {
		fmt.Fprintln(stderr, "csa-model-server:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := Run(ctx, *addr, *script, *logPath, func(url string) {
		if *urlFile != "" {
			fsutil.WriteFileAtomic(*urlFile, []byte(url+"\n"))
		}
		if *asJSON {
			json.NewEncoder(stdout).Encode(map[string]string{"url": url})
		} else {
			fmt.Fprintln(stdout, url)
		}
	})
	if err != nil {
		fmt.Fprintln(stderr, "csa-model-server:", err)
		return 1
	}
	return 0
}
