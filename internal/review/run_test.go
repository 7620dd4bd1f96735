package review

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeEnv makes the re-executed test binary stand in for `csa run --json`:
// the session of --tool T is "S-T" (of --session ID, ID), each call counts
// a turn, and the answer is the file answers/ID.TURN or answers/ID in the
// directory the variable names. An answer "!failed" is a failed run,
// "!refused" a refusal before start (exit 3, a JSON error on stderr).
// Every call is logged to calls.jsonl.
const fakeEnv = "CSA_REVIEW_TEST_FAKE_CSA"

func TestMain(m *testing.M) {
	if dir := os.Getenv(fakeEnv); dir != "" {
		os.Exit(fakeCSA(dir))
	}
	os.Exit(m.Run())
}

type call struct {
	Args   []string `json:"args"`
	Prompt string   `json:"prompt"`
	Env    []string `json:"env"`
}

func fakeCSA(dir string) int {
	args := os.Args[1:]
	prompt, _ := io.ReadAll(os.Stdin)
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CSA_") && !strings.HasPrefix(kv, fakeEnv) {
			env = append(env, kv)
		}
	}
	line, _ := json.Marshal(call{args, string(prompt), env})
	f, _ := os.OpenFile(filepath.Join(dir, "calls.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	f.Write(append(line, '\n'))
	f.Close()
	id, tool := "", ""
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--tool":
			tool, id = args[i+1], "S-"+args[i+1]
		case "--session":
			id = args[i+1]
			tool = strings.TrimPrefix(id, "S-")
		}
	}
	countFile := filepath.Join(dir, id+".count")
	b, _ := os.ReadFile(countFile)
	turn, _ := strconv.Atoi(string(b))
	turn++
	os.WriteFile(countFile, []byte(strconv.Itoa(turn)), 0o600)
	answer, err := os.ReadFile(filepath.Join(dir, "answers", fmt.Sprintf("%s.%d", id, turn)))
	if err != nil {
		answer, _ = os.ReadFile(filepath.Join(dir, "answers", id))
	}
	res := map[string]any{"session_id": id, "tool": tool, "model": "m-" + tool, "status": "completed", "result": string(answer)}
	switch string(answer) {
	case "!refused":
		fmt.Fprintln(os.Stderr, `{"error":{"code":"depth_limit","message":"recursion depth limit reached"}}`)
		return 3
	case "!failed":
		res["status"], res["result"] = "failed", ""
		res["failure"] = map[string]string{"class": "rate_limited", "message": "429 Too Many Requests"}
	}
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
	return 0
}

// fakeRunner is a Runner whose csa is the fake, answering from answers.
func fakeRunner(t *testing.T, answers map[string]string) (*Runner, string) {
	t.Helper()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "answers"), 0o700)
	for name, a := range answers {
		if err := os.WriteFile(filepath.Join(dir, "answers", name), []byte(a), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), fakeEnv+"="+dir, "CSA_SESSION_ID=PARENT")
	return &Runner{Exe: exe, Env: env, Dir: dir, Grace: time.Second, Timeout: time.Minute}, dir
}

func calls(t *testing.T, dir string) []call {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []call
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c call
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func quiet(string) {}

func TestReview(t *testing.T) {
	r, dir := fakeRunner(t, map[string]string{
		"S-codex":       "Fine.\n```json\n{\"verdict\": \"pass\", \"findings\": []}\n```",
		"S-gemini-cli":  `{"verdict": "fail", "findings": [{"file": "a.go", "line": 2, "severity": "high", "message": "bug"}]}`,
		"S-claude-code": "It looks fine to me.",
		"S-opencode":    "!failed",
	})
	picks := []Candidate{codex, gemini, claude, ocOpenAI}
	var mu sync.Mutex
	var said []string
	say := func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }
	got, verdict, tally := Review(context.Background(), r, picks, "REVIEW THIS", Weighted, map[string]float64{"codex": 3, "gemini-cli/m-gemini-cli": 2}, say)
	if verdict != Pass || tally.Pass != 1 || tally.Fail != 1 || tally.Unavailable != 2 || *tally.PassWeight != 3 || *tally.FailWeight != 2 {
		t.Fatalf("%s %+v", verdict, tally)
	}
	want := []struct{ tool, verdict, reason string }{
		{"codex", Pass, ""},
		{"gemini-cli", Fail, ""},
		{"claude-code", Unavailable, "no verdict block in the answer"},
		{"opencode", Unavailable, "the run ended failed: 429 Too Many Requests (rate_limited)"},
	}
	for i, w := range want {
		g := got[i]
		if g.Tool != w.tool || g.Verdict != w.verdict || g.Reason != w.reason || g.SessionID != "S-"+w.tool || g.Model != "m-"+w.tool {
			t.Errorf("reviewer %d: %+v, want %+v", i, g, w)
		}
	}
	if len(got[1].Findings) != 1 || got[1].Findings[0].Message != "bug" || *got[1].Weight != 2 || *got[2].Weight != 1 {
		t.Errorf("gemini: %+v", got[1])
	}
	if len(said) != 4 {
		t.Errorf("progress: %q", said)
	}
	cs := calls(t, dir)
	if len(cs) != 4 {
		t.Fatalf("%d calls", len(cs))
	}
	for _, c := range cs {
		a := strings.Join(c.Args, " ")
		if !strings.HasPrefix(a, "run --json --yolo=false --tool ") || !strings.HasSuffix(a, " --timeout 1m0s -") || c.Prompt != "REVIEW THIS" {
			t.Errorf("call %q with prompt %q", a, c.Prompt)
		}
	}
}

func TestReviewRefusedReviewer(t *testing.T) {
	r, _ := fakeRunner(t, map[string]string{"S-codex": "!refused"})
	got, verdict, _ := Review(context.Background(), r, []Candidate{codex}, "x", Majority, nil, quiet)
	if verdict != NoConsensus || got[0].Verdict != Unavailable || got[0].SessionID != "" ||
		!strings.Contains(got[0].Reason, "csa run exited 3: recursion depth limit reached (depth_limit)") {
		t.Fatalf("%s %+v", verdict, got[0])
	}
}

func TestDebate(t *testing.T) {
	r, dir := fakeRunner(t, map[string]string{
		"S-claude-code.1": "PROPOSAL-1",
		"S-codex.1":       "CRITIQUE-1 {\"verdict\": \"revise\", \"reasoning\": \"not yet\"}",
		"S-claude-code.2": "PROPOSAL-2",
		"S-codex.2":       "CRITIQUE-2 {\"verdict\": \"reject\", \"reasoning\": \"still wrong\"}",
		"S-claude-code.3": "PROPOSAL-3",
		"S-codex.3":       "fine ```json\n{\"verdict\": \"agree\", \"reasoning\": \"right now\"}\n```",
	})
	rep := Debate(context.Background(), r, claude, codex, "QUESTION?", 5, quiet)
	if rep.Verdict != Agree || rep.Reasoning != "right now" || rep.RoundsRun != 3 || rep.Proposal != "PROPOSAL-3" || rep.Error != "" {
		t.Fatalf("%+v", rep)
	}
	if rep.Proposer.SessionID != "S-claude-code" || rep.Critic.SessionID != "S-codex" || rep.Critic.Model != "m-codex" {
		t.Fatalf("debaters %+v %+v", rep.Proposer, rep.Critic)
	}
	cs := calls(t, dir)
	if len(cs) != 6 || len(rep.Turns) != 6 {
		t.Fatalf("%d calls, %d turns", len(cs), len(rep.Turns))
	}
	// Alternation, the first turn of each a new session, then resumes, and
	// each prompt carries the other's last answer.
	want := []struct {
		args    string
		role    string
		carries string
	}{
		{"--tool claude-code", "ROUND 1 OF 5: PROPOSER", "QUESTION?"},
		{"--tool codex", "ROUND 1 OF 5: CRITIC", "PROPOSAL-1"},
		{"--session S-claude-code", "ROUND 2 OF 5: PROPOSER", "CRITIQUE-1"},
		{"--session S-codex", "ROUND 2 OF 5: CRITIC", "PROPOSAL-2"},
		{"--session S-claude-code", "ROUND 3 OF 5: PROPOSER", "CRITIQUE-2"},
		{"--session S-codex", "ROUND 3 OF 5: CRITIC", "PROPOSAL-3"},
	}
	for i, w := range want {
		a := strings.Join(cs[i].Args, " ")
		if !strings.Contains(a, " "+w.args+" ") || !strings.HasPrefix(cs[i].Prompt, "CSA DEBATE "+w.role) || !strings.Contains(cs[i].Prompt, w.carries) {
			t.Errorf("call %d: %q\n%s", i, a, cs[i].Prompt)
		}
		if rt := rep.Turns[i]; rt.Round != i/2+1 || (rt.Role == Proposer) != (i%2 == 0) {
			t.Errorf("turn %d: %+v", i, rt)
		}
	}
	if rep.Turns[1].Verdict != Revise || rep.Turns[3].Verdict != Reject || rep.Turns[5].Verdict != Agree {
		t.Errorf("critic verdicts %+v", rep.Turns)
	}
}

func TestDebateRunsOut(t *testing.T) {
	r, _ := fakeRunner(t, map[string]string{
		"S-codex":      "P",
		"S-gemini-cli": `{"verdict": "revise", "reasoning": "needs work"}`,
	})
	rep := Debate(context.Background(), r, codex, gemini, "Q", 2, quiet)
	if rep.Verdict != Revise || rep.RoundsRun != 2 || len(rep.Turns) != 4 || rep.Reasoning != "needs work" {
		t.Fatalf("%+v", rep)
	}
}

func TestDebateNoVerdict(t *testing.T) {
	r, _ := fakeRunner(t, map[string]string{"S-codex": "P", "S-gemini-cli": "I have thoughts but no block."})
	rep := Debate(context.Background(), r, codex, gemini, "Q", 1, quiet)
	if rep.Verdict != NoVerdict || rep.Reasoning != "I have thoughts but no block." || DebateExit(rep.Verdict) != 2 {
		t.Fatalf("%+v", rep)
	}
	r, _ = fakeRunner(t, map[string]string{"S-codex": "P", "S-gemini-cli.1": `{"verdict": "revise"}`, "S-gemini-cli.2": "!failed"})
	rep = Debate(context.Background(), r, codex, gemini, "Q", 3, quiet)
	if rep.Verdict != NoVerdict || rep.RoundsRun != 1 || !strings.HasPrefix(rep.Error, "the critic run ended failed") || len(rep.Turns) != 4 {
		t.Fatalf("%+v", rep)
	}
	r, _ = fakeRunner(t, map[string]string{"S-codex.1": "P", "S-codex.2": "!failed", "S-gemini-cli": `{"verdict": "revise"}`})
	rep = Debate(context.Background(), r, codex, gemini, "Q", 3, quiet)
	if rep.Verdict != NoVerdict || rep.Reasoning != "" || rep.RoundsRun != 1 || !strings.HasPrefix(rep.Error, "the proposer run ended failed") || len(rep.Turns) != 3 {
		t.Fatalf("%+v", rep)
	}
}

func TestReviewPromptCarriesTheChange(t *testing.T) {
	p := ReviewPrompt(&Change{What: "the uncommitted changes", Text: "+new line", Bytes: 9})
	for _, want := range []string{"CSA REVIEW REQUEST", "READ-ONLY", `"verdict": "pass"`, "<change bytes=9>\n+new line\n</change>\n"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
}
