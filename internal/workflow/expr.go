package workflow

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Expr is a parsed condition. Its grammar:
//
//	or      = and { "||" and }
//	and     = unary { "&&" unary }
//	unary   = "!" unary | cmp
//	cmp     = operand [ ("==" | "!=" | "contains" | "<" | "<=" | ">" | ">=") operand ]
//	operand = "(" or ")" | STRING | NUMBER | REF | "${" REF "}"
//
// Every value is a string; == and != compare numbers as numbers when both
// sides are numbers; < <= > >= need numbers. A value alone is true unless
// it is "", "false" or "0".
type Expr struct {
	src  string
	root exprNode
}

type exprNode interface {
	eval(Lookup) (string, error)
}

type (
	litNode struct{ v string }
	refNode struct{ r Ref }
	notNode struct{ x exprNode }
	binNode struct {
		op   string
		l, r exprNode
	}
)

// ParseExpr parses a condition.
func ParseExpr(src string) (*Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("unexpected %q in condition", p.toks[p.i].text)
	}
	return &Expr{src: src, root: n}, nil
}

// Refs lists the references the condition reads.
func (e *Expr) Refs() []Ref {
	var refs []Ref
	var walk func(exprNode)
	walk = func(n exprNode) {
		switch n := n.(type) {
		case refNode:
			refs = append(refs, n.r)
		case notNode:
			walk(n.x)
		case binNode:
			walk(n.l)
			walk(n.r)
		}
	}
	walk(e.root)
	return refs
}

// Eval reports whether the condition holds.
func (e *Expr) Eval(look Lookup) (bool, error) {
	v, err := e.root.eval(look)
	if err != nil {
		return false, err
	}
	return truthy(v), nil
}

func truthy(v string) bool { v = strings.TrimSpace(v); return v != "" && v != "false" && v != "0" }

func boolStr(b bool) string { return strconv.FormatBool(b) }

func (n litNode) eval(Lookup) (string, error)      { return n.v, nil }
func (n refNode) eval(look Lookup) (string, error) { return look(n.r) }
func (n notNode) eval(look Lookup) (string, error) {
	v, err := n.x.eval(look)
	return boolStr(!truthy(v)), err
}

func (n binNode) eval(look Lookup) (string, error) {
	l, err := n.l.eval(look)
	if err != nil {
		return "", err
	}
	// && and || short-circuit: the right side may name a step not run.
	switch n.op {
	case "&&":
		if !truthy(l) {
			return "false", nil
		}
	case "||":
		if truthy(l) {
			return "true", nil
		}
	}
	r, err := n.r.eval(look)
	if err != nil {
		return "", err
	}
	l, r = strings.TrimSpace(l), strings.TrimSpace(r)
	lf, lerr := strconv.ParseFloat(l, 64)
	rf, rerr := strconv.ParseFloat(r, 64)
	numeric := lerr == nil && rerr == nil
	switch n.op {
	case "&&", "||":
		return boolStr(truthy(r)), nil
	case "==":
		return boolStr(l == r || numeric && lf == rf), nil
	case "!=":
		return boolStr(!(l == r || numeric && lf == rf)), nil
	case "contains":
		return boolStr(strings.Contains(l, r)), nil
	}
	if !numeric {
		return "", fmt.Errorf("%s needs numbers, got %q and %q", n.op, l, r)
	}
	switch n.op {
	case "<":
		return boolStr(lf < rf), nil
	case "<=":
		return boolStr(lf <= rf), nil
	case ">":
		return boolStr(lf > rf), nil
	}
	return boolStr(lf >= rf), nil
}

type token struct {
	kind string // op, str, num, ref
	text string
	ref  Ref
}

func lex(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ${ in condition")
			}
			r, err := ParseRef(s[i+2 : i+end])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: "ref", text: s[i : i+end+1], ref: r})
			i += end + 1
		case c == '"' || c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string in condition")
			}
			toks = append(toks, token{kind: "str", text: b.String()})
			i = j + 1
		case strings.ContainsRune("=!<>&|", rune(c)):
			op := ""
			for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "!"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unknown operator %q in condition (want ==, !=, <, <=, >, >=, &&, ||, !)", s[i:i+1])
			}
			toks = append(toks, token{kind: "op", text: op})
			i += len(op)
		case c == '(' || c == ')':
			toks = append(toks, token{kind: "op", text: string(c)})
			i++
		default:
			j := i
			for j < len(s) && (isWordByte(s[j])) {
				j++
			}
			if j == i {
				return nil, fmt.Errorf("unexpected %q in condition", s[i:i+1])
			}
			w := s[i:j]
			i = j
			switch {
			case w == "contains":
				toks = append(toks, token{kind: "op", text: w})
			case w == "true" || w == "false":
				toks = append(toks, token{kind: "str", text: w})
			case isNumber(w):
				toks = append(toks, token{kind: "num", text: w})
			default:
				r, err := ParseRef(w)
				if err != nil {
					return nil, err
				}
				toks = append(toks, token{kind: "ref", text: w, ref: r})
			}
		}
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty condition")
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c == '[' || c == ']' || c == '-' || c < 128 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)))
}

func isNumber(w string) bool { _, err := strconv.ParseFloat(w, 64); return err == nil }

type exprParser struct {
	toks []token
	i    int
}

func (p *exprParser) peek(ops ...string) string {
	if p.i < len(p.toks) && p.toks[p.i].kind == "op" {
		for _, o := range ops {
			if p.toks[p.i].text == o {
				return o
			}
		}
	}
	return ""
}

func (p *exprParser) or() (exprNode, error)  { return p.chain(p.and, "||") }
func (p *exprParser) and() (exprNode, error) { return p.chain(p.unary, "&&") }

func (p *exprParser) chain(next func() (exprNode, error), op string) (exprNode, error) {
	l, err := next()
	if err != nil {
		return nil, err
	}
	for p.peek(op) != "" {
		p.i++
		r, err := next()
		if err != nil {
			return nil, err
		}
		l = binNode{op: op, l: l, r: r}
	}
	return l, nil
}

func (p *exprParser) unary() (exprNode, error) {
	if p.peek("!") != "" {
		p.i++
		x, err := p.unary()
		return notNode{x}, err
	}
	l, err := p.operand()
	if err != nil {
		return nil, err
	}
	if op := p.peek("==", "!=", "contains", "<", "<=", ">", ">="); op != "" {
		p.i++
		r, err := p.operand()
		if err != nil {
			return nil, err
		}
		return binNode{op: op, l: l, r: r}, nil
	}
	return l, nil
}

func (p *exprParser) operand() (exprNode, error) {
	if p.i >= len(p.toks) {
		return nil, fmt.Errorf("condition ends where a value was expected")
	}
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case "str", "num":
		return litNode{t.text}, nil
	case "ref":
		return refNode{t.ref}, nil
	}
	if t.text == "(" {
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek(")") == "" {
			return nil, fmt.Errorf("missing ) in condition")
		}
		p.i++
		return n, nil
	}
	return nil, fmt.Errorf("unexpected %q where a value was expected", t.text)
}
