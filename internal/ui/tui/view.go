package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/csa-dev/csa/internal/ui/fleet"
)

// Colours by class; the symbol and label carry the same without colour.
var classStyle = map[fleet.Class]lipgloss.Style{
	fleet.NeedsInput: lipgloss.NewStyle().Foreground(lipgloss.Color("11")).Bold(true),
	fleet.Stuck:      lipgloss.NewStyle().Foreground(lipgloss.Color("13")).Bold(true),
	fleet.Failed:     lipgloss.NewStyle().Foreground(lipgloss.Color("9")),
	fleet.Working:    lipgloss.NewStyle().Foreground(lipgloss.Color("12")),
	fleet.Idle:       lipgloss.NewStyle().Foreground(lipgloss.Color("7")),
	fleet.Unknown:    lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
	fleet.Done:       lipgloss.NewStyle().Foreground(lipgloss.Color("10")),
}

var (
	headStyle     = lipgloss.NewStyle().Bold(true)
	selectedStyle = lipgloss.NewStyle().Reverse(true)
	dimStyle      = lipgloss.NewStyle().Faint(true)
)

// View draws the screen.
func (m *Model) View() tea.View {
	var body string
	switch m.mode {
	case reading:
		body = headStyle.Render("log of "+m.logID) + dimStyle.Render("   (esc: back, arrows/pgup/pgdn: scroll)") + "\n" + m.log.View()
	case helping:
		body = help
	default:
		body = m.table()
	}
	v := tea.NewView(body)
	v.AltScreen = true
	v.WindowTitle = "csa top"
	return v
}

const help = `csa top: keys

  up/down, k/j     move            pgup/pgdn, g/G   page, first/last
  enter, space     expand/collapse the selected session's children (left/right too)
  /                filter (words matched in id, tool, model, state, last line); esc clears
  a                attach to an interactive session (csa attach); detach (C-b d) comes back here
  s                send a line to an interactive session (csa send --text LINE --enter)
  l                the session's log (csa logs), refreshed while open
  K                kill the session (csa kill), after a y to confirm
  r                review the session's diff (csa review --diff in its directory)
  ?                this help            q                quit

states:  ! needs input   # stuck   x failed   > working   - idle   ? unknown   = done

press esc or ? to go back`

// table draws the header, the session tree and the footer.
func (m *Model) table() string {
	var b strings.Builder
	now := time.Now()
	if m.o.Now != nil {
		now = m.o.Now()
	}
	b.WriteString(m.header())
	b.WriteByte('\n')
	idw := m.idWidth()
	model := "MODEL"
	if m.o.All {
		model = "PROJECT"
	}
	chw := m.changeWidth()
	change := ""
	if chw > 0 {
		change = fmt.Sprintf("%-*s  ", chw, "BRANCH/CHANGE")
	}
	cols := fmt.Sprintf("  %-13s %-*s %-11s %-16s %5s %11s %13s %5s  %s%s", "STATE", idw, "SESSION", "TOOL", model, "AGE", "MEM/PEAK", "TOKENS IN/OUT", "RETRY", change, "LAST LINE")
	b.WriteString(headStyle.Render(m.fit(cols)))
	b.WriteByte('\n')
	rows := max(1, m.height-4)
	first := 0
	if m.cursor >= rows {
		first = m.cursor - rows + 1
	}
	for i := first; i < len(m.lines) && i < first+rows; i++ {
		b.WriteString(m.line(m.lines[i], now, i == m.cursor, idw, chw))
		b.WriteByte('\n')
	}
	for i := max(len(m.lines)-first, 1); i < rows; i++ {
		b.WriteByte('\n')
	}
	if len(m.lines) == 0 && m.snap != nil {
		msg := "no sessions in this project"
		if m.filter != "" {
			msg = "no sessions match the filter"
		}
		b.WriteString(dimStyle.Render(msg) + "\n")
	}
	b.WriteString(m.footer())
	return b.String()
}

// idWidth is the width of the session column: the widest indented id
// shown (at least the header's).
func (m *Model) idWidth() int {
	w := 30
	for _, l := range m.lines {
		n := lipgloss.Width(idCell(l))
		w = max(w, n)
	}
	return min(w, 60)
}

// idCell is a line's session column: indentation, the expand mark, the id
// and how many children a collapsed one hides.
func idCell(l fleet.Line) string {
	mark := "  "
	if l.Kids > 0 {
		mark = "▾ "
		if l.Hidden {
			mark = "▸ "
		}
	}
	id := strings.Repeat("  ", min(l.Level, 6)) + mark + l.Row.ID
	if l.Hidden {
		id += fmt.Sprintf(" +%d", l.Kids)
	}
	return id
}

// header counts the sessions by class.
func (m *Model) header() string {
	if m.snap == nil {
		if m.err != nil {
			return "csa top: " + m.err.Error()
		}
		return "csa top: reading sessions..."
	}
	n := fleet.Count(m.snap.Rows)
	parts := []string{fmt.Sprintf("csa top  %d sessions", len(m.snap.Rows))}
	for _, c := range fleet.Classes {
		if n[c] > 0 {
			parts = append(parts, classStyle[c].Render(fmt.Sprintf("%s %d %s", c.Symbol(), n[c], c.Label())))
		}
	}
	h := strings.Join(parts, "   ")
	if m.err != nil {
		h += "   error: " + m.err.Error()
	}
	return h
}

func (m *Model) footer() string {
	id := m.target
	switch m.mode {
	case filtering:
		return "filter: " + m.input.View()
	case sending:
		return "send to " + id + ": " + m.input.View() + dimStyle.Render("  (enter: send, esc: cancel)")
	case confirmKill:
		return classStyle[fleet.Failed].Render("kill " + id + "? (y/n)")
	}
	f := dimStyle.Render("? help  / filter  a attach  s send  l logs  K kill  r review  q quit")
	if m.filter != "" {
		f = "filter: " + m.filter + "   " + f
	}
	if m.status != "" {
		f = m.status + "   " + f
	}
	return m.fit(f)
}

// line draws one session.
func (m *Model) line(l fleet.Line, now time.Time, selected bool, idw, chw int) string {
	r := l.Row
	id := idCell(l)
	model := r.Model
	if m.o.All {
		model = filepath.Base(r.Project)
	}
	state := fmt.Sprintf("%s %-11s", r.Symbol, r.Label)
	change := ""
	if chw > 0 {
		change = pad(cut(r.Change(), chw), chw) + "  "
	}
	rest := fmt.Sprintf(" %s %-11s %-16s %5s %11s %13s %5s  %s%s%s", pad(cut(id, idw), idw), cut(r.Tool, 11), cut(model, 16),
		age(now.Sub(r.CreatedAt)), mem(r), tokens(r), retries(r), change, overlaps(r), r.LastLine)
	text := m.fit("  " + state + rest)
	if selected {
		return selectedStyle.Render(text)
	}
	st := classStyle[r.Class]
	return "  " + st.Render(state) + strings.TrimPrefix(text, "  "+state)
}

// changeWidth is the width of the branch and change column: 0 (no
// column) when no session shown is a worktree run.
func (m *Model) changeWidth() int {
	w := 0
	for _, l := range m.lines {
		if c := l.Row.Change(); c != "" {
			w = max(w, len("BRANCH/CHANGE"), lipgloss.Width(c))
		}
	}
	return min(w, 40)
}

// overlaps flags a worktree run changing files other live runs change:
// "overlap 01JF3K4Q2M f.txt (+2)  ".
func overlaps(r *fleet.Row) string {
	var b strings.Builder
	for _, o := range r.Overlaps {
		fmt.Fprintf(&b, "overlap %s %s", o.With[:min(len(o.With), 10)], o.Paths[0])
		if n := len(o.Paths) - 1; n > 0 {
			fmt.Fprintf(&b, " (+%d)", n)
		}
		b.WriteString("  ")
	}
	return b.String()
}

// fit cuts s to the screen's width.
func (m *Model) fit(s string) string {
	if m.width > 0 && lipgloss.Width(s) > m.width {
		return cutWidth(s, m.width)
	}
	return s
}

func cutWidth(s string, w int) string {
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r)) > w {
		r = r[:len(r)-1]
	}
	return string(r)
}

// pad fills s with spaces to w columns (fmt pads by bytes, not columns).
func pad(s string, w int) string { return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s))) }

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func mem(r *fleet.Row) string {
	if r.MemoryMB == 0 && r.PeakMemoryMB == 0 {
		return "-"
	}
	cur := "-"
	if r.MemoryMB > 0 {
		cur = fmt.Sprintf("%dM", r.MemoryMB)
	}
	return fmt.Sprintf("%s/%dM", cur, r.PeakMemoryMB)
}

func tokens(r *fleet.Row) string {
	if r.InputTokens == 0 && r.OutputTokens == 0 {
		return "-"
	}
	return count(r.InputTokens) + "/" + count(r.OutputTokens)
}

func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// retries is the agent's own retries and the tier's failovers (r2 f1).
func retries(r *fleet.Row) string {
	var p []string
	if r.Retries > 0 {
		p = append(p, fmt.Sprintf("r%d", r.Retries))
	}
	if r.Failovers > 0 {
		p = append(p, fmt.Sprintf("f%d", r.Failovers))
	}
	if len(p) == 0 {
		return "-"
	}
	return strings.Join(p, " ")
}
