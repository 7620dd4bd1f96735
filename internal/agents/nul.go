package agents

import (
	"fmt"
	"strings"
)

// NULError is a value that would go in a program's argv or environment and
// holds a NUL byte, which exec cannot pass (it ends a C string): the run
// is refused before it starts, naming the value.
type NULError struct {
	What   string
	Offset int
}

func (e *NULError) Error() string {
	return fmt.Sprintf("%s holds a NUL byte (\\x00) at byte %d: a program's arguments and environment cannot carry one", e.What, e.Offset)
}

// CheckNUL returns a *NULError for the first argument of args or variable
// of env that holds a NUL byte, naming it as what the request made it.
// A prompt with a NUL goes on stdin (promptOnStdin), so it reaches here
// only where argv is the one way in (an interactive session).
func CheckNUL(args, env []string, r Request) error {
	for i, a := range args {
		if at := strings.IndexByte(a, 0); at >= 0 {
			what := fmt.Sprintf("argument %d of the program", i+1)
			switch a {
			case r.Prompt:
				what = "the prompt"
			case r.Model:
				what = "the model (--model)"
			case r.Effort:
				what = "the effort (--effort)"
			}
			return &NULError{What: what, Offset: at}
		}
	}
	for _, kv := range env {
		if at := strings.IndexByte(kv, 0); at >= 0 {
			k, _, _ := strings.Cut(kv, "=")
			return &NULError{What: "the environment variable " + strings.ReplaceAll(k, "\x00", `\x00`), Offset: at - len(k) - 1}
		}
	}
	return nil
}
