package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/csa-dev/csa/internal/csaagent/appserver"
	"github.com/csa-dev/csa/internal/csaagent/config"
	"github.com/csa-dev/csa/internal/csaagent/prompt"
	"github.com/csa-dev/csa/internal/csaagent/skills"
)

// appServer is `csa-agent app-server`: Codex's app-server protocol on
// stdin and stdout (package appserver), and its generate-json-schema.
func appServer(ctx context.Context, args []string, sio IO) int {
	if len(args) > 0 && args[0] == "generate-json-schema" {
		return generateSchema(args[1:], sio)
	}
	var base options
	o := appserver.Options{Version: Version, Home: filepath.Dir(config.Path(sio.Getenv)), Skills: skillsOf(sio)}
	fs := pflag.NewFlagSet("csa-agent app-server", pflag.ContinueOnError)
	fs.SetOutput(sio.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(sio.Stderr, "usage: csa-agent app-server [flags]\n       csa-agent app-server generate-json-schema [--out DIR]\n\n"+
			"JSON-RPC 2.0 on stdin and stdout, one message a line, in the shape of Codex's app-server.\n\n%s", fs.FlagUsages())
	}
	fs.StringVar(&base.model, "model", "", "the threads' model when thread/start names none")
	fs.StringVar(&base.permissionMode, "permission-mode", "", "the threads' permission mode when thread/start names none")
	fs.IntVar(&o.MaxRequests, "max-requests", 32, "requests handled at once; more are refused with -32001")
	fs.IntVar(&o.MaxTurns, "max-active-turns", 4, "turns running at once; more are refused with -32001")
	fs.IntVar(&o.QueueSize, "queue-size", 256, "messages waiting for a slow client before turns wait for it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(sio.Stderr, "csa-agent app-server:", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(sio.Stderr, "csa-agent app-server: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if base.permissionMode != "" && !contains([]string{"default", "acceptEdits", "plan", "bypassPermissions"}, base.permissionMode) {
		fmt.Fprintf(sio.Stderr, "csa-agent app-server: --permission-mode %q: want default, acceptEdits, plan or bypassPermissions\n", base.permissionMode)
		return exitUsage
	}
	// Stdout is the protocol's: the sessions write nothing there.
	hostIO := sio
	hostIO.Stdin, hostIO.Stdout = strings.NewReader(""), sio.Stderr
	base.outputFormat = "json"
	o.Host = &host{io: hostIO, base: base}
	if err := appserver.Serve(ctx, o, sio.Stdin, sio.Stdout); err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent app-server:", err)
		return exitFailed
	}
	return exitOK
}

// generateSchema prints the protocol's JSON Schema, or writes it to
// DIR/csa-agent-app-server.schema.json.
func generateSchema(args []string, sio IO) int {
	fs := pflag.NewFlagSet("csa-agent app-server generate-json-schema", pflag.ContinueOnError)
	fs.SetOutput(sio.Stderr)
	out := fs.String("out", "", "write the schema into this directory instead of stdout")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintln(sio.Stderr, "csa-agent app-server generate-json-schema:", err)
		return exitUsage
	}
	b, err := appserver.Schema()
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent app-server generate-json-schema:", err)
		return exitFailed
	}
	if *out == "" {
		sio.Stdout.Write(b)
		return exitOK
	}
	dir := *out
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(sio.Cwd, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		err = os.WriteFile(filepath.Join(dir, appserver.SchemaFile), b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(sio.Stderr, "csa-agent app-server generate-json-schema:", err)
		return exitFailed
	}
	return exitOK
}

// skillsOf lists, for skills/list, the skills and commands a thread in a
// directory can use ("" is csa-agent's own), with the files that broke.
func skillsOf(sio IO) func(cwd string) ([]appserver.Skill, []appserver.SkillError) {
	return func(cwd string) ([]appserver.Skill, []appserver.SkillError) {
		if cwd == "" {
			cwd = sio.Cwd
		}
		set, err := skills.Load(skills.Sources{Home: sio.Getenv("HOME"), ProjectRoot: prompt.ProjectRoot(cwd), Cwd: cwd})
		var out []appserver.Skill
		for _, sk := range set.All() {
			out = append(out, appserver.Skill{Name: sk.Name, Description: sk.Description, Path: sk.Path,
				Scope: sk.Source, Enabled: sk.UserInvocable || sk.ModelInvocable})
		}
		var errs []appserver.SkillError
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				path, msg, ok := strings.Cut(line, ": ")
				if !ok {
					path, msg = "", line
				}
				errs = append(errs, appserver.SkillError{Path: path, Message: msg})
			}
		}
		return out, errs
	}
}
