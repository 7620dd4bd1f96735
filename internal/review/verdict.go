// Package review runs heterogeneous reviews and debates: sub-agents of
// other model families, each a `csa run` child of a csa session of its own,
// whose structured verdicts are read from their answers and combined.
package review

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Reviewer verdicts. Unavailable is never an answer: it is what a reviewer
// that failed, or answered without a parseable verdict, counts as.
const (
	Pass        = "pass"
	Fail        = "fail"
	Uncertain   = "uncertain"
	Unavailable = "unavailable"
)

// Debate verdicts, given by the critic.
const (
	Agree  = "agree"
	Revise = "revise"
	Reject = "reject"
)

// Finding is one problem a reviewer reports.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Block is the JSON verdict block of an answer.
type Block struct {
	Verdict   string    `json:"verdict"`
	Findings  []Finding `json:"findings,omitempty"`
	Reasoning string    `json:"reasoning,omitempty"`
}

// ParseReview reads a reviewer's verdict from its answer: the last JSON
// object (fenced or bare) with a "verdict" key, whose verdict is pass, fail
// or uncertain. ok is false when there is none.
func ParseReview(answer string) (Block, bool) {
	return parseLast(answer, Pass, Fail, Uncertain)
}

// ParseDebate reads a critic's verdict (agree, revise or reject).
func ParseDebate(answer string) (Block, bool) {
	return parseLast(answer, Agree, Revise, Reject)
}

// parseLast scans the answer backwards for JSON objects with a "verdict"
// key. The scan starts at each '{' from the end, so the last verdict block
// is found first, whether it stands in a ```json fence or in the prose.
// The first such object decides: a last block with a verdict outside
// allowed makes the answer unparseable, it is not skipped for an earlier
// one.
func parseLast(answer string, allowed ...string) (Block, bool) {
	for i := strings.LastIndexByte(answer, '{'); i >= 0; i = strings.LastIndexByte(answer[:i], '{') {
		var raw map[string]json.RawMessage
		dec := json.NewDecoder(strings.NewReader(answer[i:]))
		if dec.Decode(&raw) != nil {
			continue
		}
		v, ok := raw["verdict"]
		if !ok {
			continue
		}
		var b Block
		if json.Unmarshal(v, &b.Verdict) != nil {
			return Block{}, false
		}
		b.Verdict = strings.ToLower(strings.TrimSpace(b.Verdict))
		valid := false
		for _, a := range allowed {
			valid = valid || b.Verdict == a
		}
		if !valid {
			return Block{}, false
		}
		if r, ok := raw["reasoning"]; ok {
			json.Unmarshal(r, &b.Reasoning)
		}
		if f, ok := raw["findings"]; ok {
			b.Findings = parseFindings(f)
		}
		return b, true
	}
	return Block{}, false
}

// parseFindings is lenient: a finding whose fields have odd types keeps
// what can be read (a line given as "12" is 12), and a malformed list is
// no findings rather than no verdict.
func parseFindings(raw json.RawMessage) []Finding {
	var items []map[string]any
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	out := make([]Finding, 0, len(items))
	for _, it := range items {
		f := Finding{File: str(it["file"]), Severity: strings.ToLower(str(it["severity"])), Message: str(it["message"])}
		switch l := it["line"].(type) {
		case float64:
			f.Line = int(l)
		case string:
			f.Line, _ = strconv.Atoi(strings.TrimSpace(l))
		}
		out = append(out, f)
	}
	return out
}

func str(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}
