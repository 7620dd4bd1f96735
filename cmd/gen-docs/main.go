// Command gen-docs writes csa's command reference from its cobra commands
// (`make docs`): a markdown page per command into docs/cli/, which is
// committed and held to the commands by TestCLIDocs, and, with --man, man
// pages (section 1). It also writes the table of docs/environment.md from
// internal/csaenv, held to it by TestEnvironmentDocs. It is a program of its own, as gh's is, so that csa
// links neither cobra's doc package nor the man page renderer it brings
// (cmd/csa/deps_test.go): csa starts on every run.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/csa-dev/csa/internal/cli/cmdutil"
	"github.com/csa-dev/csa/internal/cli/root"
)

func main() {
	var dir, man, env string
	cmd := &cobra.Command{
		Use:           "gen-docs [--dir DIR] [--env FILE] [--man DIR]",
		Short:         "Write csa's command reference (markdown, and man pages with --man) and its CSA_ variables table",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(*cobra.Command, []string) error {
			if err := markdown(dir); err != nil {
				return err
			}
			if err := environment(env); err != nil {
				return err
			}
			if man != "" {
				return manPages(man)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "docs/cli", "where the markdown pages go")
	cmd.Flags().StringVar(&env, "env", "docs/environment.md", "the page whose CSA_ variables table is written")
	cmd.Flags().StringVar(&man, "man", "", "also write man pages (section 1) into this directory")
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "gen-docs:", err)
		os.Exit(2)
	}
}

// csa is csa's command tree as its users see it (hidden commands are left
// out by cobra's generators), without the generators' date line, so that
// the pages change only when the commands do.
func csa() *cobra.Command {
	c := root.NewCmd(&cmdutil.Factory{Getenv: func(string) string { return "" }, Environ: func() []string { return nil }})
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(c)
	return c
}

// markdown writes a page per command into dir, after removing the pages
// of commands that are gone.
func markdown(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return doc.GenMarkdownTree(csa(), dir)
}

func manPages(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return doc.GenManTree(csa(), &doc.GenManHeader{Title: "CSA", Section: "1", Source: "csa", Manual: "csa manual"}, dir)
}
