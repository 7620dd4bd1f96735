package tui

import (
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/csa-dev/csa/internal/ui/fleet"
)

// key handles a key press in the current mode.
func (m *Model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	s := k.String()
	switch m.mode {
	case filtering, sending:
		return m.editKey(k, s)
	case confirmKill:
		m.mode = browsing
		if id := m.target; id != "" && (s == "y" || s == "Y") {
			m.status = "killing " + id + "..."
			return m, m.run(func() error { return m.o.CSA.Kill(m.ctx, id) }, "killed "+id)
		}
		m.status = "kill cancelled"
		return m, nil
	case reading, helping:
		switch s {
		case "esc", "q", "l", "?":
			m.mode, m.logID = browsing, ""
			return m, nil
		case "ctrl+c":
			return m, tea.Quit
		}
		if m.mode == reading {
			var cmd tea.Cmd
			m.log, cmd = m.log.Update(k)
			return m, cmd
		}
		return m, nil
	}
	switch s {
	case "q", "ctrl+c":
		return m, tea.Quit
	case "up", "k":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "pgup":
		m.move(-m.pageRows())
	case "pgdown":
		m.move(m.pageRows())
	case "home", "g":
		m.move(-len(m.lines))
	case "end", "G":
		m.move(len(m.lines))
	case "left", "h", "-":
		m.setCollapsed(true)
	case "right", "+":
		m.setCollapsed(false)
	case "enter", "space", "tab":
		if r := m.current(); r != nil {
			m.setCollapsed(!m.collapsed[r.ID])
		}
	case "/":
		m.mode = filtering
		m.input.SetValue(m.filter)
		m.input.CursorEnd()
		return m, m.input.Focus()
	case "esc":
		m.filter, m.status = "", ""
		m.relist()
	case "?":
		m.mode = helping
	case "s":
		if r := m.current(); r != nil {
			if !r.Interactive || r.Class == fleet.Done || r.Class == fleet.Failed {
				m.status = "send: " + r.ID + " is not a live interactive session"
				return m, nil
			}
			m.mode, m.target = sending, r.ID
			m.input.SetValue("")
			return m, m.input.Focus()
		}
	case "K":
		if r := m.current(); r != nil {
			m.mode, m.target = confirmKill, r.ID
		}
	case "l":
		if r := m.current(); r != nil {
			m.mode, m.logID = reading, r.ID
			m.log.SetContent("reading the log of " + r.ID + "...")
			return m, m.fetchLog(r.ID)
		}
	case "a":
		if r := m.current(); r != nil {
			if !r.Interactive || r.Class == fleet.Done || r.Class == fleet.Failed {
				m.status = "attach: " + r.ID + " is not a live interactive session"
				return m, nil
			}
			return m, m.terminal(m.o.CSA.Attach(r.ID), "back from "+r.ID)
		}
	case "r":
		if r := m.current(); r != nil {
			return m, m.terminal(m.o.CSA.Review(r.Cwd), "review done")
		}
	}
	return m, nil
}

// editKey handles the filter and send prompts.
func (m *Model) editKey(k tea.KeyPressMsg, s string) (tea.Model, tea.Cmd) {
	switch s {
	case "esc", "ctrl+c":
		if m.mode == filtering {
			m.filter = ""
			m.relist()
		}
		m.mode = browsing
		m.input.Blur()
		return m, nil
	case "enter":
		val := m.input.Value()
		mode := m.mode
		m.mode = browsing
		m.input.Blur()
		if mode == filtering {
			m.filter = strings.TrimSpace(val)
			m.relist()
			return m, nil
		}
		id := m.target
		if id == "" || strings.TrimSpace(val) == "" {
			return m, nil
		}
		m.status = "sending to " + id + "..."
		return m, m.run(func() error { return m.o.CSA.Send(m.ctx, id, val) }, "sent to "+id)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	if m.mode == filtering {
		m.filter = strings.TrimSpace(m.input.Value())
		m.relist()
	}
	return m, cmd
}

func (m *Model) setCollapsed(c bool) {
	if r := m.current(); r != nil && m.lines[m.cursor].Kids > 0 {
		m.collapsed[r.ID] = c
		m.relist()
	}
}

func (m *Model) pageRows() int { return max(1, m.height-4) }

// run does an action off the event loop and reports its outcome.
func (m *Model) run(action func() error, ok string) tea.Cmd {
	return func() tea.Msg {
		if err := action(); err != nil {
			return statusMsg("error: " + err.Error())
		}
		return statusMsg(ok)
	}
}

func (m *Model) fetchLog(id string) tea.Cmd {
	return func() tea.Msg {
		text, err := m.o.CSA.Logs(m.ctx, id)
		return logMsg{id, text, err}
	}
}

func (m *Model) showLog(msg logMsg) {
	text := msg.text
	if msg.err != nil {
		text += "\n[csa logs: " + msg.err.Error() + "]"
	}
	if strings.TrimSpace(text) == "" {
		text = "(nothing logged yet)"
	}
	atEnd := m.log.AtBottom() || m.log.TotalLineCount() <= 1
	m.log.SetContent(text)
	if atEnd {
		m.log.GotoBottom()
	}
}

// terminal hands the terminal to a csa command (attach, review) and comes
// back to the view when it ends.
func (m *Model) terminal(t *fleet.Terminal, ok string) tea.Cmd {
	return tea.Exec(&execCmd{m: m, t: t}, func(err error) tea.Msg {
		if err != nil {
			return statusMsg("error: " + err.Error())
		}
		return statusMsg(ok)
	})
}

// execCmd is a fleet.Terminal as bubbletea runs an external command.
type execCmd struct {
	m           *Model
	t           *fleet.Terminal
	in          io.Reader
	out, errOut io.Writer
}

func (e *execCmd) Run() error            { return e.t.Run(e.m.ctx, e.in, e.out, e.errOut) }
func (e *execCmd) SetStdin(r io.Reader)  { e.in = r }
func (e *execCmd) SetStdout(w io.Writer) { e.out = w }
func (e *execCmd) SetStderr(w io.Writer) { e.errOut = w }
