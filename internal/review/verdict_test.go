package review

import (
	"reflect"
	"testing"
)

func TestParseReview(t *testing.T) {
	tests := []struct {
		name     string
		answer   string
		ok       bool
		verdict  string
		findings []Finding
	}{
		{"fenced", "The change is fine.\n\n```json\n{\"verdict\": \"pass\", \"findings\": []}\n```\n", true, Pass, []Finding{}},
		{"bare", `Looks wrong. {"verdict":"fail","findings":[{"file":"a.go","line":3,"severity":"high","message":"nil map"}]}`, true, Fail,
			[]Finding{{File: "a.go", Line: 3, Severity: "high", Message: "nil map"}}},
		{"bare without findings", `{"verdict": "uncertain"}`, true, Uncertain, nil},
		{"case and space", `{"verdict": " PASS "}`, true, Pass, nil},
		{"prose only", "I reviewed it and it looks good to me. Verdict: pass.", false, "", nil},
		{"json without verdict", "```json\n{\"ok\": true}\n```", false, "", nil},
		{"unknown verdict", `{"verdict": "lgtm"}`, false, "", nil},
		{"verdict not a string", `{"verdict": 1}`, false, "", nil},
		{"broken json", "```json\n{\"verdict\": \"pass\",\n```", false, "", nil},
		{"last block wins", "First: {\"verdict\": \"fail\"}\nOn reflection:\n```json\n{\"verdict\": \"pass\"}\n```", true, Pass, nil},
		{"last block decides even when invalid", "{\"verdict\": \"pass\"} then {\"verdict\": \"maybe\"}", false, "", nil},
		{"braces in code before the block", "func f() { if x { y() } }\n{\"verdict\": \"fail\", \"findings\": [{\"file\": \"f.go\", \"line\": \"7\", \"message\": \"uses {x}\"}]}", true, Fail,
			[]Finding{{File: "f.go", Line: 7, Message: "uses {x}"}}},
		{"text after the block", "{\"verdict\": \"pass\"}\nThat is all.", true, Pass, nil},
		{"malformed findings keep the verdict", `{"verdict": "fail", "findings": "see above"}`, true, Fail, nil},
		{"empty", "", false, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, ok := ParseReview(tc.answer)
			if ok != tc.ok || b.Verdict != tc.verdict {
				t.Fatalf("got %+v, %v; want %q, %v", b, ok, tc.verdict, tc.ok)
			}
			if !reflect.DeepEqual(b.Findings, tc.findings) {
				t.Fatalf("findings %#v, want %#v", b.Findings, tc.findings)
			}
		})
	}
}

func TestParseDebate(t *testing.T) {
	b, ok := ParseDebate("Still wrong.\n```json\n{\"verdict\": \"revise\", \"reasoning\": \"the race remains\"}\n```")
	if !ok || b.Verdict != Revise || b.Reasoning != "the race remains" {
		t.Fatalf("got %+v, %v", b, ok)
	}
	if _, ok := ParseDebate(`{"verdict": "pass"}`); ok {
		t.Fatal("a review verdict is not a debate verdict")
	}
	if b, ok := ParseDebate(`{"verdict": "agree"}`); !ok || b.Verdict != Agree {
		t.Fatalf("got %+v, %v", b, ok)
	}
}
