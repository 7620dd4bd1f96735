// Command csa-model-server serves the Anthropic Messages, OpenAI Responses,
// OpenAI Chat Completions and Gemini APIs on a loopback address, answering
// from a TOML script (see internal/modelserver). It is a separate program
// so that csa itself does not carry an HTTP server: every csa start would
// pay for it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/csa-dev/csa/internal/fsutil"
	"github.com/csa-dev/csa/internal/modelserver"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on (loopback only)")
	script := flag.String("script", "", "TOML script of answers (required)")
	logPath := flag.String("log", "", "append every request as a JSON line to this file")
	urlFile := flag.String("url-file", "", "write the base URL to this file once listening")
	asJSON := flag.Bool("json", false, `print {"url": ...} instead of the bare URL`)
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: csa-model-server --script FILE [--addr 127.0.0.1:0] [--log FILE] [--url-file FILE] [--json]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *script == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	err := modelserver.Run(ctx, *addr, *script, *logPath, func(url string) {
		if *urlFile != "" {
			fsutil.WriteFileAtomic(*urlFile, []byte(url+"\n"))
		}
		if *asJSON {
			json.NewEncoder(os.Stdout).Encode(map[string]string{"url": url})
		} else {
			fmt.Println(url)
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "csa-model-server:", err)
		os.Exit(1)
	}
}
