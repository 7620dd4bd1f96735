package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// output is the JSON a hook may print on stdout when it exits 0.
type output struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	SuppressOutput     bool            `json:"suppressOutput"`
	SystemMessage      string          `json:"systemMessage"`
	Decision           string          `json:"decision"` // "block" (PreToolUse also: "approve")
	Reason             string          `json:"reason"`
	HookSpecificOutput *specificOutput `json:"hookSpecificOutput"`
}

type specificOutput struct {
	PermissionDecision       string         `json:"permissionDecision"`
	PermissionDecisionReason string         `json:"permissionDecisionReason"`
	UpdatedInput             map[string]any `json:"updatedInput"`
	AdditionalContext        string         `json:"additionalContext"`
	// Decision is PermissionRequest's answer.
	Decision *struct {
		Behavior string `json:"behavior"` // allow or deny
		Message  string `json:"message"`
	} `json:"decision"`
}

// answer is the composed answer of an event's hooks.
type answer struct {
	// block: a hook exited 2 or said decision "block" (or, for
	// PreToolUse and PermissionRequest, deny); reasons says why.
	block   bool
	reasons []string
	// decision is the strongest permission decision (deny > ask > allow)
	// and decisionReasons those of the hooks that made it.
	decision        string
	decisionReasons []string
	// input is the tool input as updated by the hooks, in order (nil:
	// unchanged).
	input map[string]any
	// context is what the hooks add for the model.
	context []string
	// stop: a hook said continue false.
	stop        bool
	stopReasons []string
}

var rank = map[string]int{"": 0, "allow": 1, "ask": 2, "deny": 3}

// compose reads each hook's answer in configuration order. Failures are
// reported and otherwise ignored: a broken hook must not stop the agent.
func (e *Engine) compose(event string, runs []run) answer {
	var a answer
	for _, r := range runs {
		switch {
		case r.timedOut:
			fmt.Fprintf(e.o.Stderr, "csa-agent: %s hook %s timed out after %s and was killed\n", event, r, r.timeout)
			continue
		case r.err != nil:
			fmt.Fprintf(e.o.Stderr, "csa-agent: %s hook %s: %v\n", event, r, r.err)
			continue
		case r.code == 2:
			a.block = true
			a.reasons = append(a.reasons, firstOf(trim(r.stderr), "blocked by a "+event+" hook"))
			continue
		case r.code != 0:
			fmt.Fprintf(e.o.Stderr, "csa-agent: %s hook %s failed (exit %d): %s\n", event, r, r.code, trim(r.stderr))
			continue
		}
		out := bytes.TrimSpace(r.stdout)
		if !bytes.HasPrefix(out, []byte("{")) {
			// Plain output is context for the model only where Claude
			// Code makes it so.
			if len(out) > 0 && (event == UserPromptSubmit || event == SessionStart) {
				a.context = append(a.context, string(out))
			}
			continue
		}
		var o output
		if err := json.Unmarshal(out, &o); err != nil {
			fmt.Fprintf(e.o.Stderr, "csa-agent: %s hook %s printed invalid JSON: %v\n", event, r, err)
			continue
		}
		a.add(event, o)
		if o.SystemMessage != "" {
			fmt.Fprintf(e.o.Stderr, "csa-agent: %s hook: %s\n", event, o.SystemMessage)
		}
	}
	return a
}

// add folds one hook's JSON answer into a.
func (a *answer) add(event string, o output) {
	if o.Continue != nil && !*o.Continue {
		a.stop = true
		a.stopReasons = append(a.stopReasons, firstOf(o.StopReason, "stopped by a "+event+" hook"))
	}
	decision, reason := "", o.Reason
	switch o.Decision {
	case "block":
		a.block = true
		a.reasons = append(a.reasons, firstOf(o.Reason, "blocked by a "+event+" hook"))
	case "approve": // PreToolUse's older spelling of allow
		decision = "allow"
	}
	if h := o.HookSpecificOutput; h != nil {
		if h.PermissionDecision != "" {
			decision, reason = h.PermissionDecision, h.PermissionDecisionReason
		}
		if h.Decision != nil {
			decision, reason = h.Decision.Behavior, h.Decision.Message
		}
		if h.AdditionalContext != "" {
			a.context = append(a.context, h.AdditionalContext)
		}
		for k, v := range h.UpdatedInput {
			if a.input == nil {
				a.input = map[string]any{}
			}
			a.input[k] = v
		}
	}
	if _, ok := rank[decision]; !ok || decision == "" {
		return
	}
	switch {
	case rank[decision] > rank[a.decision]:
		a.decision, a.decisionReasons = decision, nil
		fallthrough
	case decision == a.decision:
		if reason != "" {
			a.decisionReasons = append(a.decisionReasons, reason)
		}
	}
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func join(s []string) string { return strings.Join(s, "\n") }
