// Package cmdutil holds what every command shares: the factory of
// dependencies, terminal streams, JSON output and the error table.
package cmdutil

import (
	"encoding/json"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/csa-dev/csa/internal/errline"
)

// IOStreams is all terminal access: data to Out, status and errors to
// ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	InTTY, OutTTY, ErrTTY bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		InTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// PrintJSON writes v as indented JSON followed by a newline.
func (s *IOStreams) PrintJSON(v any) error {
	enc := json.NewEncoder(s.Out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// PrintError writes err in the form the output mode asks for.
func (s *IOStreams) PrintError(err error, asJSON bool) { s.PrintErrorAs("csa", err, asJSON) }

// PrintErrorAs writes err as PrintError does, said by who (a program, or
// a command path such as "csa-mcp hub") when it is not JSON.
func (s *IOStreams) PrintErrorAs(who string, err error, asJSON bool) {
	code, _ := Classify(err)
	if asJSON {
		s.ErrOut.Write(append(errline.Marshal(code, err.Error()), '\n'))
		return
	}
	io.WriteString(s.ErrOut, who+": "+err.Error()+"\n")
}
