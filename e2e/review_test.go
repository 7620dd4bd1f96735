package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// reviewScript answers csa's own review and debate prompts, told apart by
// their first lines and by the API (claude-code speaks Anthropic's, codex
// OpenAI's Responses).
const reviewScript = `
[[rule]]
name = "review-prose"
api = "responses"
regexp = '(?s)CSA REVIEW REQUEST.*e2e-(all-)?prose-marker'
  [[rule.step]]
  text = "I read the change. It seems reasonable to me and nothing stands out."

[[rule]]
name = "review-prose-claude"
api = "anthropic"
regexp = '(?s)CSA REVIEW REQUEST.*e2e-all-prose-marker'
  [[rule.step]]
  text = "Fine by me."

[[rule]]
name = "review-codex"
api = "responses"
contains = "CSA REVIEW REQUEST"
  [[rule.step]]
  text = "One nit.\n\n` + "```json" + `\n{\"verdict\": \"pass\", \"findings\": [{\"file\": \"greet.py\", \"line\": 2, \"severity\": \"low\", \"message\": \"no docstring\"}]}\n` + "```" + `"

[[rule]]
name = "review-claude"
api = "anthropic"
contains = "CSA REVIEW REQUEST"
  [[rule.step]]
  text = "The change is correct.\n\n` + "```json" + `\n{\"verdict\": \"pass\", \"findings\": []}\n` + "```" + `"

[[rule]]
name = "proposer-1"
contains = "CSA DEBATE ROUND 1 OF 2: PROPOSER"
  [[rule.step]]
  text = "PROPOSAL-ONE: share the cache as a plain dict."

[[rule]]
name = "critic-1"
regexp = '(?s)CSA DEBATE ROUND 1 OF 2: CRITIC.*PROPOSAL-ONE'
  [[rule.step]]
  text = "CRITIQUE-ONE: a plain dict is not safe across threads.\n\n` + "```json" + `\n{\"verdict\": \"revise\", \"reasoning\": \"it needs a lock\"}\n` + "```" + `"

[[rule]]
name = "proposer-2"
regexp = '(?s)CSA DEBATE ROUND 2 OF 2: PROPOSER.*CRITIQUE-ONE'
body = "PROPOSAL-ONE"
  [[rule.step]]
  text = "PROPOSAL-TWO: a dict guarded by a lock."

[[rule]]
name = "critic-2"
regexp = '(?s)CSA DEBATE ROUND 2 OF 2: CRITIC.*PROPOSAL-TWO'
body = "CRITIQUE-ONE"
  [[rule.step]]
  text = "Agreed.\n\n` + "```json" + `\n{\"verdict\": \"agree\", \"reasoning\": \"the lock makes it safe\"}\n` + "```" + `"
`

// reviewReport is the part of `csa review --json` checked here.
type reviewReport struct {
	SessionID string `json:"session_id"`
	Verdict   string `json:"verdict"`
	Caller    string `json:"caller"`
	Tally     struct {
		Pass, Fail, Uncertain, Unavailable int
	} `json:"tally"`
	Reviewers []struct {
		Tool      string `json:"tool"`
		SessionID string `json:"session_id"`
		Verdict   string `json:"verdict"`
		Status    string `json:"status"`
		Reason    string `json:"reason"`
		Findings  []struct {
			File     string `json:"file"`
			Line     int    `json:"line"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"findings"`
	} `json:"reviewers"`
	ExitCode int `json:"exit_code"`
}

// reviewWorld is a world whose project is a git repository with one
// commit, called from a gemini-cli agent (CSA_TOOL): the reviewers and
// debaters are then the real claude-code and codex, whatever agent runs
// the tests.
func reviewWorld(t *testing.T) *world {
	w := newWorld(t, reviewScript)
	w.env = append(w.env, "CSA_TOOL=gemini-cli")
	w.git("init", "-q")
	w.write("greet.py", "def greet(name):\n    return 'hi ' + name\n")
	w.git("add", "greet.py")
	w.git("commit", "-qm", "greet")
	return w
}

func (w *world) git(args ...string) {
	w.t.Helper()
	c := exec.Command("git", args...)
	c.Dir = w.proj
	c.Env = append(w.env, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := c.CombinedOutput(); err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (w *world) write(name, text string) {
	w.t.Helper()
	if err := os.WriteFile(filepath.Join(w.proj, name), []byte(text), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) review(wantExit int, args ...string) reviewReport {
	w.t.Helper()
	out, code, stderr := w.csa(append([]string{"review", "--json"}, args...)...)
	if code != wantExit {
		w.t.Fatalf("csa review: exit %d, want %d\nstdout: %s\nstderr: %s\nmodel server saw: %s", code, wantExit, out, stderr, w.requests())
	}
	var r reviewReport
	decode(w.t, out, &r)
	return r
}

// children maps the tools of the sessions whose parent is id to their
// depths.
func (w *world) children(id string) map[string]int {
	w.t.Helper()
	out, _, _ := w.csa("ps", "--json")
	var rows []struct {
		ID       string `json:"id"`
		Tool     string `json:"tool"`
		ParentID string `json:"parent_id"`
		Depth    int    `json:"depth"`
	}
	decode(w.t, out, &rows)
	kids := map[string]int{}
	for _, r := range rows {
		if r.ParentID == id {
			kids[r.Tool] = r.Depth
		}
	}
	return kids
}

// sessionDir is where a session's files are.
func (w *world) sessionDir(id string) string {
	w.t.Helper()
	out, _, _ := w.csa("inspect", "--json", id)
	var v struct {
		Dir string `json:"dir"`
	}
	decode(w.t, out, &v)
	return v.Dir
}

// TestRealReview: real claude-code and codex review a small diff, each a
// child session of the review, and their verdicts are combined; a codex
// that answers in prose only is unavailable, never fail.
func TestRealReview(t *testing.T) {
	w := reviewWorld(t)

	t.Run("two_families", func(t *testing.T) {
		w.write("greet.py", "def greet(name):\n    return f'Hello, {name}!'\n")
		r := w.review(0)
		if r.Verdict != "pass" || r.Caller != "gemini-cli" || r.Tally.Pass != 2 || len(r.Reviewers) != 2 {
			t.Fatalf("report %+v\n%s", r, w.requests())
		}
		tools := map[string]bool{}
		for _, rv := range r.Reviewers {
			tools[rv.Tool] = true
			if rv.Verdict != "pass" || rv.Status != "completed" || rv.SessionID == "" {
				t.Errorf("reviewer %+v", rv)
			}
			if rv.Tool == "codex" && (len(rv.Findings) != 1 || rv.Findings[0].File != "greet.py" || rv.Findings[0].Line != 2) {
				t.Errorf("codex's findings %+v", rv.Findings)
			}
		}
		if !tools["claude-code"] || !tools["codex"] {
			t.Fatalf("reviewers %v, want claude-code and codex", tools)
		}
		if kids := w.children(r.SessionID); kids["claude-code"] != 1 || kids["codex"] != 1 || len(kids) != 2 {
			t.Fatalf("children of the review %s: %v", r.SessionID, kids)
		}
		if !w.matched("review-claude") || !w.matched("review-codex") {
			t.Fatalf("the reviewers did not get csa's review prompt:%s", w.requests())
		}
		b, err := os.ReadFile(filepath.Join(w.sessionDir(r.SessionID), "review.json"))
		var saved reviewReport
		if err != nil || json.Unmarshal(b, &saved) != nil || saved.Verdict != "pass" || len(saved.Reviewers) != 2 {
			t.Fatalf("review.json: %v %s", err, b)
		}
		// Read-only: neither program ran with its yolo flag.
		for _, rv := range r.Reviewers {
			out, _, _ := w.csa("inspect", "--json", rv.SessionID)
			if strings.Contains(out, "dangerously") {
				t.Errorf("%s ran with yolo: %s", rv.Tool, out)
			}
		}
	})

	t.Run("prose_only_is_unavailable", func(t *testing.T) {
		w.write("greet.py", "def greet(name):\n    return 'e2e-prose-marker ' + name\n")
		r := w.review(0)
		if r.Verdict != "pass" || r.Tally.Pass != 1 || r.Tally.Fail != 0 || r.Tally.Unavailable != 1 {
			t.Fatalf("report %+v\n%s", r, w.requests())
		}
		for _, rv := range r.Reviewers {
			if rv.Tool == "codex" && (rv.Verdict != "unavailable" || rv.Reason != "no verdict block in the answer" || rv.Status != "completed") {
				t.Fatalf("codex %+v", rv)
			}
		}
		if !w.matched("review-prose") {
			t.Fatalf("the prose rule did not answer:%s", w.requests())
		}
		// When both answer in prose, there is no consensus (exit 2), not a
		// failure.
		w.write("greet.py", "def greet(name):\n    return 'e2e-all-prose-marker ' + name\n")
		r = w.review(2)
		if r.Verdict != "no_consensus" || r.Tally.Unavailable != 2 || r.Tally.Fail != 0 || r.ExitCode != 2 {
			t.Fatalf("report %+v\n%s", r, w.requests())
		}
	})
}

type debater struct {
	Tool      string `json:"tool"`
	SessionID string `json:"session_id"`
}

// TestRealDebate: real claude-code proposes and real codex criticises over
// two rounds, each resuming its own session with the other's last answer;
// the critic asks for a revision, then agrees.
func TestRealDebate(t *testing.T) {
	w := reviewWorld(t)
	out, code, stderr := w.csa("debate", "--json", "How should a Python cache be shared between threads?")
	if code != 0 {
		t.Fatalf("csa debate: exit %d\n%s\n%s%s", code, out, stderr, w.requests())
	}
	var r struct {
		SessionID string  `json:"session_id"`
		RoundsRun int     `json:"rounds_run"`
		Verdict   string  `json:"verdict"`
		Reasoning string  `json:"reasoning"`
		Proposal  string  `json:"proposal"`
		Proposer  debater `json:"proposer"`
		Critic    debater `json:"critic"`
		Turns     []struct {
			Round   int    `json:"round"`
			Role    string `json:"role"`
			Tool    string `json:"tool"`
			Verdict string `json:"verdict"`
		} `json:"turns"`
	}
	decode(t, out, &r)
	if r.Verdict != "agree" || r.RoundsRun != 2 || r.Reasoning != "the lock makes it safe" || !strings.Contains(r.Proposal, "PROPOSAL-TWO") {
		t.Fatalf("debate %+v\n%s", r, w.requests())
	}
	if r.Proposer.Tool != "claude-code" || r.Critic.Tool != "codex" {
		t.Fatalf("proposer %+v, critic %+v", r.Proposer, r.Critic)
	}
	want := []struct{ role, tool, verdict string }{
		{"proposer", "claude-code", ""}, {"critic", "codex", "revise"},
		{"proposer", "claude-code", ""}, {"critic", "codex", "agree"},
	}
	if len(r.Turns) != len(want) {
		t.Fatalf("turns %+v", r.Turns)
	}
	for i, wt := range want {
		if tt := r.Turns[i]; tt.Role != wt.role || tt.Tool != wt.tool || tt.Verdict != wt.verdict || tt.Round != i/2+1 {
			t.Errorf("turn %d: %+v, want %+v", i, tt, wt)
		}
	}
	// Each side is one session with one turn per round, resumed with the
	// other side's answer: the rules of round 2 match only a prompt that
	// carries it, in a request that carries the side's own first turn.
	for _, rule := range []string{"proposer-1", "critic-1", "proposer-2", "critic-2"} {
		if !w.matched(rule) {
			t.Fatalf("rule %s never answered:%s", rule, w.requests())
		}
	}
	for _, id := range []string{r.Proposer.SessionID, r.Critic.SessionID} {
		out, _, _ := w.csa("inspect", "--json", id)
		var st struct {
			Turns    int    `json:"turns"`
			ParentID string `json:"parent_id"`
		}
		decode(t, out, &st)
		if st.Turns != 2 || st.ParentID != r.SessionID {
			t.Errorf("session %s: %+v, want 2 turns under %s", id, st, r.SessionID)
		}
	}
	if _, err := os.Stat(filepath.Join(w.sessionDir(r.SessionID), "debate.json")); err != nil {
		t.Fatal(err)
	}
}
