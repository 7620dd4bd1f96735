package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/agents"
)

// DefaultMax bounds a FOR that gives no MAX.
const DefaultMax = 10

var (
	stepRe    = regexp.MustCompile(`^## Step ([0-9]+):\s*(\S.*)$`)
	ifRe      = regexp.MustCompile(`^## IF\s+(\S.*)$`)
	forRe     = regexp.MustCompile(`^## FOR\s+([A-Za-z_][A-Za-z0-9_]*)\s+IN\s+(.+?)(?:\s+MAX\s+([0-9]+))?\s*$`)
	includeRe = regexp.MustCompile(`^## INCLUDE\s+(\S.*)$`)
	keyRe     = regexp.MustCompile(`^([A-Z][A-Za-z]*):\s*(.*)$`)
)

// stepKeys are the lines a step heading may be followed by.
var stepKeys = []string{"Tool", "Tier", "Model", "OnFail", "Condition", "Timeout"}

// Compile reads the workflow at path with its includes and checks every
// line, condition and reference; vars replace the front matter's defaults
// (a name the front matter does not declare is an error).
func Compile(path string, vars map[string]string) (*Plan, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	ps := &parser{steps: map[int]Pos{}}
	fm, nodes, err := ps.file(abs, true)
	if err != nil {
		return nil, err
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
	p := &Plan{Name: fm.Name, Description: fm.Description, File: abs, Tool: fm.Tool, Tier: fm.Tier, Model: fm.Model,
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
	chain []string    // the files being read, outermost first: an include of one is a cycle
	steps map[int]Pos // every step number, to refuse duplicates
}

// file reads one file: the top one may have front matter, an included one
// may not.
func (ps *parser) file(path string, top bool) (*frontMatter, []Node, error) {
	for _, c := range ps.chain {
		if c == path {
			return nil, nil, fmt.Errorf("include cycle: %s -> %s", strings.Join(ps.chain, " -> "), path)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read workflow: %w", err)
	}
	ps.chain = append(ps.chain, path)
	defer func() { ps.chain = ps.chain[:len(ps.chain)-1] }()
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
			f.i++ // prose before the first heading describes the workflow
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

func (f *fileParser) directive(line string, pos Pos) ([]Node, error) {
	if m := stepRe.FindStringSubmatch(line); m != nil {
		f.i++
		s, err := f.step(m[1], m[2], pos)
		if err != nil {
			return nil, err
		}
		return []Node{{Type: NodeStep, Pos: pos, Step: s}}, nil
	}
	if m := ifRe.FindStringSubmatch(line); m != nil {
		f.i++
		if _, err := ParseExpr(m[1]); err != nil {
			return nil, errorf(pos, "IF: %v", err)
		}
		n := Node{Type: NodeIf, Pos: pos, Cond: m[1]}
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
	if m := forRe.FindStringSubmatch(line); m != nil {
		f.i++
		n := Node{Type: NodeFor, Pos: pos, Var: m[1], List: strings.TrimSpace(m[2]), Max: DefaultMax}
		if m[3] != "" {
			n.Max, _ = strconv.Atoi(m[3])
		}
		if n.Max < 1 || n.Max > 1000 {
			return nil, errorf(pos, "FOR: MAX %d: want 1 to 1000", n.Max)
		}
		if refs, err := refsOf(n.List); err != nil {
			return nil, errorf(pos, "FOR: %v", err)
		} else if len(refs) == 0 {
			if k := len(SplitList(n.List)); k > n.Max {
				return nil, errorf(pos, "FOR: the list has %d items, more than MAX %d", k, n.Max)
			}
		}
		var end string
		var err error
		if n.Body, end, err = f.block(); err != nil {
			return nil, err
		}
		if end != "ENDFOR" {
			return nil, errorf(pos, "FOR without ENDFOR (got %s)", orEOF(end))
		}
		return []Node{n}, nil
	}
	if m := includeRe.FindStringSubmatch(line); m != nil {
		f.i++
		target := strings.TrimSpace(m[1])
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(f.path), target)
		}
		_, nodes, err := f.ps.file(filepath.Clean(target), false)
		if err != nil {
			if _, located := err.(*Error); located {
				return nil, err
			}
			return nil, errorf(pos, "INCLUDE: %v", err)
		}
		return nodes, nil
	}
	if strings.HasPrefix(line, "## Step") {
		return nil, errorf(pos, "malformed step heading %q: want ## Step N: Title", clip(line))
	}
	return nil, errorf(pos, "unknown directive %q (known: ## Step N: Title, IF, ELSE, ENDIF, FOR x IN list [MAX n], ENDFOR, INCLUDE path)", clip(line))
}

// step reads a step's key lines and body, up to the next ## line outside
// a fenced block.
func (f *fileParser) step(num, title string, pos Pos) (*Step, error) {
	n, _ := strconv.Atoi(num)
	if n < 1 {
		return nil, errorf(pos, "step number %d: want 1 or more", n)
	}
	if prev, dup := f.ps.steps[n]; dup {
		return nil, errorf(pos, "step %d is already defined at %s", n, prev)
	}
	f.ps.steps[n] = pos
	s := &Step{Num: n, Title: strings.TrimSpace(title), Pos: pos, OnFail: OnFail{Action: OnFailAbort}}
	keys := map[string]string{}
	for ; f.i < len(f.lines) && strings.TrimSpace(f.lines[f.i]) == ""; f.i++ {
	}
	for ; f.i < len(f.lines); f.i++ {
		m := keyRe.FindStringSubmatch(strings.TrimSpace(f.lines[f.i]))
		if m == nil {
			break
		}
		if !contains(stepKeys, m[1]) {
			return nil, errorf(f.pos(), "unknown step key %q (known: %s)", m[1], strings.Join(stepKeys, ", "))
		}
		if _, dup := keys[m[1]]; dup {
			return nil, errorf(f.pos(), "%s given twice", m[1])
		}
		keys[m[1]] = strings.TrimSpace(m[2])
		if err := s.setKey(m[1], keys[m[1]]); err != nil {
			return nil, errorf(f.pos(), "%s: %v", m[1], err)
		}
	}
	var body []string
	bodyPos := f.pos()
	fenced := false
	for ; f.i < len(f.lines); f.i++ {
		l := f.lines[f.i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(l, "## ") {
			break
		}
		body = append(body, l)
	}
	if fenced {
		return nil, errorf(bodyPos, "step %d: a ``` block is never closed", n)
	}
	if err := s.setBody(strings.Trim(strings.Join(body, "\n"), "\n \t"), bodyPos); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Step) setKey(k, v string) error {
	if v == "" {
		return fmt.Errorf("no value")
	}
	switch k {
	case "Tool":
		if v == string(KindReview) || v == string(KindDebate) {
			s.Kind = Kind(v)
			return nil
		}
		s.Tool = v
		return checkTool(v)
	case "Tier":
		s.Tier = v
	case "Model":
		s.Model = v
	case "Timeout":
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("%q: want a positive duration such as 90s or 10m", v)
		}
		s.Timeout = v
	case "Condition":
		if _, err := ParseExpr(v); err != nil {
			return err
		}
		s.Condition = v
	case "OnFail":
		return s.setOnFail(v)
	}
	return nil
}

func (s *Step) setOnFail(v string) error {
	w := strings.Fields(v)
	switch {
	case len(w) == 1 && (w[0] == OnFailAbort || w[0] == OnFailSkip):
		s.OnFail = OnFail{Action: w[0]}
	case len(w) == 2 && w[0] == OnFailRetry:
		n, err := strconv.Atoi(w[1])
		if err != nil || n < 1 || n > 10 {
			return fmt.Errorf("retry %q: want 1 to 10 extra attempts", w[1])
		}
		s.OnFail = OnFail{Action: OnFailRetry, N: n}
	case len(w) == 2 && w[0] == OnFailDelegate:
		if err := checkTool(w[1]); err != nil {
			return err
		}
		s.OnFail = OnFail{Action: OnFailDelegate, Tool: w[1]}
	default:
		return fmt.Errorf("%q: want abort, skip, retry N or delegate TOOL", v)
	}
	return nil
}

// setBody decides the step's kind from its keys and body.
func (s *Step) setBody(body string, pos Pos) error {
	shell := strings.HasPrefix(body, "```sh\n") || strings.Contains(body, "\n```sh\n")
	switch {
	case s.Kind == KindReview || s.Kind == KindDebate:
		if s.Tier != "" || s.Model != "" {
			return errorf(s.Pos, "step %d: a %s picks its own models: no Tier or Model", s.Num, s.Kind)
		}
		if shell || strings.Contains(body, "\n") {
			return errorf(pos, "step %d: a %s step's body is one line (%s)", s.Num, s.Kind, map[Kind]string{KindReview: "csa review's arguments", KindDebate: "the question"}[s.Kind])
		}
		if s.Kind == KindDebate && body == "" {
			return errorf(s.Pos, "step %d: a debate step needs its question as its body", s.Num)
		}
	case shell:
		if !strings.HasPrefix(body, "```sh\n") || !strings.HasSuffix(body, "\n```") || strings.Count(body, "```") != 2 {
			return errorf(pos, "step %d: a shell step's body is one ```sh block and nothing else", s.Num)
		}
		if s.Tool != "" || s.Tier != "" || s.Model != "" || s.OnFail.Action == OnFailDelegate {
			return errorf(s.Pos, "step %d: a shell step has no Tool, Tier, Model or OnFail delegate", s.Num)
		}
		s.Kind = KindShell
		body = strings.TrimSuffix(strings.TrimPrefix(body, "```sh\n"), "```")
	default:
		s.Kind = KindAgent
		if s.Tier != "" && s.Model != "" && s.Tool == "" {
			// csa run --tier picks the model; one given too would be ignored.
			return errorf(s.Pos, "step %d: a Tier picks its own model: give Tool and Model, or Tier alone", s.Num)
		}
		if body == "" {
			return errorf(s.Pos, "step %d: no prompt (the text under the heading), nor a ```sh block", s.Num)
		}
	}
	if s.OnFail.Action == OnFailDelegate && s.Kind != KindAgent {
		return errorf(s.Pos, "step %d: OnFail delegate is for agent steps", s.Num)
	}
	s.Body = body
	return nil
}

func checkTool(v string) error {
	if v == "auto" {
		return nil
	}
	_, err := agents.Parse(v)
	return err
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
