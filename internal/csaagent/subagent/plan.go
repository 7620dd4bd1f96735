package subagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/csa-dev/csa/internal/csaagent/event"
	"github.com/csa-dev/csa/internal/csaagent/store"
	"github.com/csa-dev/csa/internal/csaagent/tool"
)

// PlansDir is where ExitPlanMode writes plans, under the working
// directory.
const PlansDir = ".csa/plans"

// EnterPlanMode switches the permission policy to plan mode (read-only),
// remembering the mode to return to, and emits event.PlanMode.
func (h *Hooks) EnterPlanMode() error {
	if h.depth > 0 {
		return errors.New("plan mode is for the main agent, not a subagent")
	}
	if h.cfg.Modes == nil {
		return errors.New("plan mode is not available in this run")
	}
	h.planMu.Lock()
	defer h.planMu.Unlock()
	cur := h.cfg.Modes.Mode()
	if cur == ModePlan {
		return nil
	}
	if err := h.cfg.Modes.SetMode(ModePlan); err != nil {
		return err
	}
	h.prePlan = cur
	h.emit(event.Event{Kind: event.PlanMode, Mode: ModePlan})
	return nil
}

// ExitPlanMode presents plan: it is recorded in the conversation store (a
// store.KindPlan record) and written to <cwd>/.csa/plans/<date>-<slug>.md.
// Then:
//   - with Config.Approve (an interactive run) a person decides: approved,
//     the mode before plan mode comes back and the model proceeds;
//     rejected, plan mode stays and the model gets the feedback;
//   - headless, when the mode before plan mode was bypassPermissions
//     (csa's default for headless runs) the run proceeds in it;
//   - headless otherwise the run stops after this turn with the plan as
//     its result (loop.Agent.StopWith), the mode restored for a resume.
//
// event.PlanMode is emitted with the plan as Text and the new mode.
func (h *Hooks) ExitPlanMode(plan string) (tool.Result, error) {
	if h.depth > 0 || h.cfg.Modes == nil {
		return tool.Errorf("plan mode is not available here"), nil
	}
	if strings.TrimSpace(plan) == "" {
		return tool.Errorf("the plan is empty"), nil
	}
	h.planMu.Lock()
	defer h.planMu.Unlock()
	if h.cfg.Modes.Mode() != ModePlan {
		return tool.Errorf("not in plan mode: there is no plan to present (call EnterPlanMode first, or just proceed)"), nil
	}
	prev := h.prePlan
	if prev == "" || prev == ModePlan {
		prev = "default"
	}
	if h.cfg.Plans != nil {
		if err := h.cfg.Plans.Append(store.Record{Kind: store.KindPlan, Text: plan}); err != nil {
			return tool.Result{}, fmt.Errorf("record the plan: %w", err)
		}
	}
	path, err := h.savePlan(plan)
	if err != nil {
		return tool.Result{}, fmt.Errorf("save the plan: %w", err)
	}
	saved := "The plan is saved in " + path + "."

	if h.cfg.Approve != nil {
		ok, feedback := h.cfg.Approve(plan)
		if !ok {
			h.emit(event.Event{Kind: event.PlanMode, Mode: ModePlan, Text: plan, IsError: true})
			msg := "The user did not approve the plan; stay in plan mode and revise it."
			if feedback != "" {
				msg += " Their feedback: " + feedback
			}
			return tool.Result{Output: saved + " " + msg}, nil
		}
		if err := h.leavePlan(prev, plan); err != nil {
			return tool.Result{}, err
		}
		return tool.Result{Output: saved + " The user approved the plan: proceed with it now (permission mode " + prev + ")."}, nil
	}
	if err := h.leavePlan(prev, plan); err != nil {
		return tool.Result{}, err
	}
	if prev == ModeBypass {
		return tool.Result{Output: saved + " The run is in bypassPermissions mode, so the plan is approved: proceed with it now."}, nil
	}
	if h.agent != nil {
		h.agent.StopWith(plan)
	}
	return tool.Result{Output: saved + " The run stops here so that the user can review the plan."}, nil
}

func (h *Hooks) leavePlan(mode, plan string) error {
	if err := h.cfg.Modes.SetMode(mode); err != nil {
		return err
	}
	h.prePlan = ""
	h.emit(event.Event{Kind: event.PlanMode, Mode: mode, Text: plan})
	return nil
}

func (h *Hooks) emit(e event.Event) {
	if h.agent == nil {
		return
	}
	if s := h.agent.Config().Sink; s != nil {
		e.Time = h.cfg.Now()
		e.Agent = h.agent.Config().AgentID
		s.Emit(e)
	}
}

// savePlan writes the plan to a new file <cwd>/.csa/plans/<date>-<slug>.md
// (a numbered one when the name is taken) and returns its path.
func (h *Hooks) savePlan(plan string) (string, error) {
	cwd := "."
	if h.agent != nil && h.agent.Config().Env != nil && h.agent.Config().Env.Cwd != "" {
		cwd = h.agent.Config().Env.Cwd
	}
	dir := filepath.Join(cwd, PlansDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	base := h.cfg.Now().Format("2006-01-02") + "-" + Slug(plan)
	for n := 1; ; n++ {
		name := base + ".md"
		if n > 1 {
			name = fmt.Sprintf("%s-%d.md", base, n)
		}
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) && n < 1000 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(strings.TrimRight(plan, "\n") + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return p, err
	}
}

// Slug names a plan file after the plan's first line: lower-case words
// joined by dashes, at most 48 characters (whole words but for a first
// word longer than that); "plan" when nothing is left.
func Slug(plan string) string {
	first := ""
	for _, l := range strings.Split(plan, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#*->")); l != "" {
			first = l
			break
		}
	}
	words := strings.FieldsFunc(strings.ToLower(first), func(r rune) bool {
		return !(r >= 'a' && r <= 'z') && !(r >= '0' && r <= '9')
	})
	var b strings.Builder
	for _, w := range words {
		if b.Len() > 0 && b.Len()+1+len(w) > 48 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte('-')
		}
		b.WriteString(w)
	}
	s := b.String()
	if len(s) > 48 {
		s = s[:48]
	}
	if s == "" {
		return "plan"
	}
	return s
}
