package todo

import (
	"fmt"
	"strings"
)

// Formats of Render.
const (
	FormatTerminal = "terminal"
	FormatMermaid  = "mermaid"
	FormatDot      = "dot"
)

// Render draws the plan's DAG in format. All three formats show the same
// nodes (by level, then in written order) and the same edges (to each
// node in that order, from its dependencies in the order listed).
func Render(p *Plan, format string) (string, error) {
	order, level := flatten(p)
	var b strings.Builder
	switch format {
	case FormatTerminal:
		for _, t := range order {
			fmt.Fprintf(&b, "%s%s %s: %s", strings.Repeat("  ", level[t.ID]), box(t), t.ID, t.Title)
			if len(t.After) > 0 {
				fmt.Fprintf(&b, " <- %s", strings.Join(t.After, ", "))
			}
			b.WriteString("\n")
		}
	case FormatMermaid:
		// Node names are t1, t2...: a task id may be a mermaid keyword
		// ("end") or hold characters mermaid reads as edges.
		node := map[string]string{}
		for i, t := range p.Tasks {
			node[t.ID] = fmt.Sprintf("t%d", i+1)
		}
		b.WriteString("flowchart TD\n")
		for _, t := range order {
			fmt.Fprintf(&b, "  %s[\"%s %s: %s\"]\n", node[t.ID], box(t), t.ID, mermaidEscape(t.Title))
		}
		for _, t := range order {
			for _, d := range t.After {
				fmt.Fprintf(&b, "  %s --> %s\n", node[d], node[t.ID])
			}
		}
	case FormatDot:
		fmt.Fprintf(&b, "digraph %s {\n  rankdir=TB;\n  node [shape=box];\n", dotQuote(p.Title))
		for _, t := range order {
			attrs := ""
			if t.Done {
				attrs = ", style=filled, fillcolor=palegreen"
			}
			fmt.Fprintf(&b, "  %s [label=%s%s];\n", dotQuote(t.ID), dotQuote(box(t)+" "+t.ID+": "+t.Title), attrs)
		}
		for _, t := range order {
			for _, d := range t.After {
				fmt.Fprintf(&b, "  %s -> %s;\n", dotQuote(d), dotQuote(t.ID))
			}
		}
		b.WriteString("}\n")
	default:
		return "", fmt.Errorf("unknown format %q: want terminal, mermaid or dot", format)
	}
	return b.String(), nil
}

// flatten is the tasks by level, then in written order, and each one's
// level.
func flatten(p *Plan) ([]*Task, map[string]int) {
	var order []*Task
	level := map[string]int{}
	for n, l := range Levels(p) {
		for _, t := range l {
			order = append(order, t)
			level[t.ID] = n
		}
	}
	return order, level
}

func box(t *Task) string {
	if t.Done {
		return "[x]"
	}
	return "[ ]"
}

func mermaidEscape(s string) string { return strings.ReplaceAll(s, `"`, "#quot;") }

func dotQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
