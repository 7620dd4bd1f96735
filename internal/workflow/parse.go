package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Compile reads the workflow at path with its includes and checks every
// line, condition and reference; vars replace the front matter's defaults
// (a name the front matter does not declare is an error).
func Compile(path string, vars map[string]string) (*Plan, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	ps := &parser{steps: map[int]Pos{}, open: map[string]bool{}}
	fm, nodes, err := ps.file(abs, true)
	if err != nil {
		return nil, err
	}
	if len(ps.steps) == 0 {
		return nil, errorf(Pos{abs, 1}, "no steps: a workflow is steps, each under a \"## Step N: Title\" line")
	}
	defaults, err := fm.variables(abs, 1)
	if err != nil {
		return nil, err
	}
	for k, v := range vars {
		if _, ok := defaults[k]; !ok {
			return nil, fmt.Errorf("--var %s: the workflow declares no such variable (declare it under [variables])", k)
		}
		defaults[k] = v
	}
	p := &Plan{Name: fm.Name, Description: fm.Description, File: abs, Tool: fm.Tool, Tier: fm.Tier, Model: fm.Model, Worktree: fm.Worktree, Isolate: fm.Isolate,
		Vars: defaults, Nodes: nodes, Steps: len(ps.steps)}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	}
	if p.Tool != "" {
		if err := checkTool(p.Tool); err != nil {
			return nil, errorf(Pos{abs, 1}, "front matter tool: %v", err)
		}
	}
	if err := check(p); err != nil {
		return nil, err
	}
	return p, nil
}

type parser struct {
	chain []string        // the files being read, outermost first: an include of one is a cycle
	open  map[string]bool // the same, to look up
	steps map[int]Pos     // every step number, to refuse duplicates
}

// file reads one file: the top one may have front matter, an included one
// may not.
func (ps *parser) file(path string, top bool) (*frontMatter, []Node, error) {
	if ps.open[path] {
		return nil, nil, fmt.Errorf("include cycle: %s -> %s", strings.Join(ps.chain, " -> "), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read workflow: %w", err)
	}
	if err := checkText(path, data); err != nil {
		return nil, nil, err
	}
	ps.chain, ps.open[path] = append(ps.chain, path), true
	defer func() { ps.chain, ps.open[path] = ps.chain[:len(ps.chain)-1], false }()
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	fmText, fmLine, rest, first, err := splitFrontMatter(path, lines)
	if err != nil {
		return nil, nil, err
	}
	fm := &frontMatter{}
	if fmLine > 0 {
		if !top {
			return nil, nil, errorf(Pos{path, 1}, "an included file has no front matter (variables belong to the including workflow)")
		}
		if fm, err = decodeFrontMatter(path, fmText, fmLine); err != nil {
			return nil, nil, err
		}
	}
	fp := &fileParser{ps: ps, path: path, lines: rest, first: first}
	nodes, end, err := fp.block()
	if err != nil {
		return nil, nil, err
	}
	if end != "" {
		return nil, nil, errorf(fp.pos(), "%s without a matching opening line", end)
	}
	return fm, nodes, nil
}

type fileParser struct {
	ps    *parser
	path  string
	lines []string
	first int // the file's line number of lines[0]
	i     int
	seen  bool // a ## line was read: prose is no longer allowed outside steps
}

func (f *fileParser) pos() Pos { return Pos{f.path, f.first + f.i} }

// block reads nodes until the end of the file or an ELSE, ENDIF or
// ENDFOR line, which it consumes and returns for the caller to check.
func (f *fileParser) block() ([]Node, string, error) {
	var nodes []Node
	for f.i < len(f.lines) {
		line := strings.TrimRight(f.lines[f.i], " \t")
		pos := f.pos()
		switch {
		case strings.TrimSpace(line) == "":
			f.i++
		case strings.HasPrefix(line, "# "):
			f.i++ // a title
		case !strings.HasPrefix(line, "## "):
			if f.seen {
				return nil, "", errorf(pos, "text outside a step: %q (a step starts with ## Step N: Title)", clip(line))
			}
			// Prose before the first heading describes the workflow; a
			// ``` block in it may hold any line, ## ones too.
			if err := f.prose(); err != nil {
				return nil, "", err
			}
		case line == "## ELSE" || line == "## ENDIF" || line == "## ENDFOR":
			f.i++
			return nodes, strings.TrimPrefix(line, "## "), nil
		default:
			f.seen = true
			n, err := f.directive(line, pos)
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, n...)
		}
	}
	return nodes, "", nil
}

// prose reads a line of the description, or the whole of a ``` block
// that begins there.
func (f *fileParser) prose() error {
	open := f.pos()
	if !strings.HasPrefix(strings.TrimSpace(f.lines[f.i]), "```") {
		f.i++
		return nil
	}
	for f.i++; f.i < len(f.lines); f.i++ {
		if strings.HasPrefix(strings.TrimSpace(f.lines[f.i]), "```") {
			f.i++
			return nil
		}
	}
	return errorf(open, "a ``` block is never closed")
}

func (f *fileParser) directive(line string, pos Pos) ([]Node, error) {
	word, rest := splitDirective(line)
	switch {
	case word == "Step":
		m := stepRe.FindStringSubmatch(line)
		if m == nil {
			break
		}
		f.i++
		s, err := f.step(m[1], m[2], pos)
		if err != nil {
			return nil, err
		}
		return []Node{{Type: NodeStep, Pos: pos, Step: s}}, nil
	case word == "IF":
		if rest == "" {
			return nil, errorf(pos, "IF without a condition: want ## IF condition")
		}
		f.i++
		return f.ifBlock(rest, pos)
	case word == "FOR":
		name, list, bound, err := forHead(rest)
		if err != nil {
			return nil, errorf(pos, "FOR: %v", err)
		}
		f.i++
		return f.forBlock(Node{Type: NodeFor, Pos: pos, Var: name, List: list, Max: bound})
	case word == "INCLUDE":
		if rest == "" {
			return nil, errorf(pos, "INCLUDE without a path: want ## INCLUDE path")
		}
		f.i++
		return f.include(rest, pos)
	case word == "ELSE" || word == "ENDIF" || word == "ENDFOR":
		return nil, errorf(pos, "%s takes nothing after it: %q", word, clip(line))
	}
	return nil, errorf(pos, "%s", misspelt(word, line))
}

func (f *fileParser) ifBlock(cond string, pos Pos) ([]Node, error) {
	if _, err := ParseExpr(cond); err != nil {
		return nil, errorf(pos, "IF: %v", err)
	}
	n := Node{Type: NodeIf, Pos: pos, Cond: cond}
	var end string
	var err error
	if n.Then, end, err = f.block(); err != nil {
		return nil, err
	}
	if end == "ELSE" {
		if n.Else, end, err = f.block(); err != nil {
			return nil, err
		}
	}
	if end != "ENDIF" {
		return nil, errorf(pos, "IF without ENDIF (got %s)", orEOF(end))
	}
	return []Node{n}, nil
}

func (f *fileParser) forBlock(n Node) ([]Node, error) {
	if refs, err := refsOf(n.List); err != nil {
		return nil, errorf(n.Pos, "FOR: %v", err)
	} else if len(refs) == 0 {
		switch k := len(SplitList(n.List)); {
		case k == 0:
			return nil, errorf(n.Pos, "FOR: the list %q has no items", n.List)
		case k > n.Max:
			return nil, errorf(n.Pos, "FOR: the list has %d items, more than MAX %d", k, n.Max)
		}
	}
	var end string
	var err error
	if n.Body, end, err = f.block(); err != nil {
		return nil, err
	}
	if end != "ENDFOR" {
		return nil, errorf(n.Pos, "FOR without ENDFOR (got %s)", orEOF(end))
	}
	return []Node{n}, nil
}

// include reads the file target names (relative to this one); one with
// no steps is refused, as a workflow with none is.
func (f *fileParser) include(target string, pos Pos) ([]Node, error) {
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(f.path), target)
	}
	before := len(f.ps.steps)
	_, nodes, err := f.ps.file(filepath.Clean(target), false)
	if err != nil {
		if _, located := err.(*Error); located {
			return nil, err
		}
		return nil, errorf(pos, "INCLUDE: %v", err)
	}
	if len(f.ps.steps) == before {
		return nil, errorf(pos, "INCLUDE %s: the file has no steps", target)
	}
	return nodes, nil
}

func orEOF(s string) string {
	if s == "" {
		return "the end of the file"
	}
	return s
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
