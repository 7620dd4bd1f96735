// Package tui is csa top: a full-screen terminal view of a project's
// session tree (internal/ui/fleet), refreshed from the store, with keys that
// run csa's own commands on the selected session.
package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/textinput"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/csa-dev/csa/internal/ui/fleet"
)

// Refresh is how often the view reads the store again.
const Refresh = fleet.Refresh

// Options configure the view.
type Options struct {
	Reader *fleet.Reader
	CSA    fleet.CSA
	// All: the view lists every project's sessions (a project column).
	All bool
	Now func() time.Time
}

// mode is what the keys do.
type mode int

const (
	browsing mode = iota
	filtering
	sending
	confirmKill
	reading // a session's log
	helping
)

// Model is csa top's state.
type Model struct {
	ctx  context.Context
	o    Options
	snap *fleet.Snapshot
	err  error

	lines     []fleet.Line
	cursor    int
	selected  string // the selected session's id, kept across refreshes
	collapsed map[string]bool
	filter    string

	mode   mode
	target string // the session a send or a kill being confirmed is for
	input  textinput.Model
	log    viewport.Model
	logID  string
	status string // the last action's outcome

	width, height int
}

// New makes the model.
func New(ctx context.Context, o Options) *Model {
	in := textinput.New()
	in.Prompt = ""
	return &Model{ctx: ctx, o: o, collapsed: map[string]bool{}, input: in, log: viewport.New(), width: 100, height: 30}
}

// Messages.
type (
	snapshotMsg struct {
		snap *fleet.Snapshot
		err  error
	}
	tickMsg   struct{}
	statusMsg string
	logMsg    struct {
		id, text string
		err      error
	}
	logTickMsg struct{ id string }
)

// Init reads the first snapshot.
func (m *Model) Init() tea.Cmd { return m.read() }

// read takes a snapshot off the event loop; the next is asked for once
// this one arrived, so two never overlap.
func (m *Model) read() tea.Cmd {
	return func() tea.Msg {
		s, err := m.o.Reader.Snapshot(m.ctx)
		return snapshotMsg{s, err}
	}
}

func tick() tea.Cmd { return tea.Tick(Refresh, func(time.Time) tea.Msg { return tickMsg{} }) }

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.log.SetWidth(msg.Width)
		m.log.SetHeight(max(1, msg.Height-2))
		return m, nil
	case snapshotMsg:
		if msg.err != nil {
			m.err = msg.err
		} else {
			m.snap, m.err = msg.snap, nil
			m.relist()
		}
		return m, tick()
	case tickMsg:
		return m, m.read()
	case statusMsg:
		m.status = string(msg)
		return m, m.read()
	case logMsg:
		if msg.id == m.logID && m.mode == reading {
			m.showLog(msg)
			return m, tea.Tick(2*Refresh, func(time.Time) tea.Msg { return logTickMsg{msg.id} })
		}
		return m, nil
	case logTickMsg:
		if msg.id == m.logID && m.mode == reading {
			return m, m.fetchLog(msg.id)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	if m.mode == filtering || m.mode == sending {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, cmd
	}
	return m, nil
}

// relist rebuilds the visible lines, keeping the selected session.
func (m *Model) relist() {
	if m.snap == nil {
		return
	}
	m.lines = fleet.Tree(m.snap.Rows, m.collapsed, m.filter)
	m.cursor = 0
	for i, l := range m.lines {
		if l.Row.ID == m.selected {
			m.cursor = i
			break
		}
	}
	m.cursor = min(m.cursor, max(0, len(m.lines)-1))
	if len(m.lines) > 0 {
		m.selected = m.lines[m.cursor].Row.ID
	}
}

// current is the selected row (nil when there is none).
func (m *Model) current() *fleet.Row {
	if m.cursor < len(m.lines) {
		return m.lines[m.cursor].Row
	}
	return nil
}

func (m *Model) move(d int) {
	if len(m.lines) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+d, 0), len(m.lines)-1)
	m.selected = m.lines[m.cursor].Row.ID
}
