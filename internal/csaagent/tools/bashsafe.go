package tools

import (
	"strings"
)

// readOnlyCommand reports whether a Bash command clearly changes nothing,
// so it may run alongside other calls and in plan mode. It is a
// conservative allow-list: simple commands from a fixed set, joined by
// pipes, && , || or ;, with no redirection, substitution, backgrounding or
// variable assignment. Quoting is not parsed; a quoted metacharacter makes
// the command unsafe, which only errs on the safe side.
func readOnlyCommand(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" || strings.ContainsAny(cmd, "><`\n\r\\") || strings.Contains(cmd, "$(") || strings.Contains(cmd, "${") {
		return false
	}
	for _, seg := range splitCommands(cmd) {
		if !readOnlySimple(strings.Fields(seg)) {
			return false
		}
	}
	return true
}

// splitCommands splits at ;, &&, || and |; a lone & (background) leaves an
// empty segment, which is not read-only.
func splitCommands(cmd string) []string {
	var segs []string
	start := 0
	for i := 0; i < len(cmd); i++ {
		switch cmd[i] {
		case ';', '|', '&':
			segs = append(segs, cmd[start:i])
			if i+1 < len(cmd) && (cmd[i+1] == cmd[i]) && cmd[i] != ';' {
				i++
			} else if cmd[i] == '&' {
				segs = append(segs, "") // backgrounding
			}
			start = i + 1
		}
	}
	return append(segs, cmd[start:])
}

// readOnlyPrograms never write, whatever their arguments, except the
// options listed against them.
var readOnlyPrograms = map[string][]string{
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "grep": nil, "egrep": nil,
	"fgrep": nil, "pwd": nil, "echo": nil, "printf": nil, "stat": nil, "du": nil,
	"df": nil, "which": nil, "type": nil, "basename": nil, "dirname": nil, "realpath": nil,
	"readlink": nil, "true": nil, "false": nil, "test": nil, "nl": nil,
	"cut": nil, "tr": nil, "diff": nil, "cmp": nil, "whoami": nil, "id": nil, "uname": nil,
	"cd": nil, "tree": {"-o"}, "sort": {"-o", "--output"}, "rg": {"--pre"},
	"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
}

// readOnlyGit are git subcommands that only look.
var readOnlyGit = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "rev-parse": true,
	"ls-files": true, "grep": true, "describe": true, "shortlog": true, "cat-file": true, "ls-tree": true,
}

func readOnlySimple(words []string) bool {
	if len(words) == 0 {
		return false
	}
	prog, args := words[0], words[1:]
	if prog == "git" {
		// Global options (-C, -c) could point git anywhere or run hooks.
		if len(args) == 0 || !readOnlyGit[args[0]] {
			return false
		}
		return !anyArg(args[1:], "--output", "--ext-diff", "--textconv", "--filters", "-O", "--open-files-in-pager")
	}
	bad, ok := readOnlyPrograms[prog]
	if !ok {
		return false
	}
	return !anyArg(args, bad...)
}

// anyArg reports whether an argument is, or begins with (for --long=value
// and -oFILE forms), one of the options.
func anyArg(args []string, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a == o || strings.HasPrefix(a, o+"=") || strings.HasPrefix(o, "--") && strings.HasPrefix(a, o) ||
				len(o) == 2 && o[0] == '-' && strings.HasPrefix(a, o) {
				return true
			}
		}
	}
	return false
}
