package store

import (
	"os"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

func toolUse(id string) llm.Message {
	return llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockToolUse, ID: id, Name: "Bash"}}}
}

func TestCrashLeavesAResumableConversation(t *testing.T) {
	dir := t.TempDir()
	c, err := Create(dir, "s1", Record{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	c.Message(llm.UserText("first"))
	c.Message(llm.Message{Role: llm.Assistant, Content: []llm.Block{{Type: llm.BlockText, Text: "answer"}}})
	c.Message(llm.UserText("second"))
	c.Message(toolUse("t1")) // the process dies while t1 runs...
	c.Close()
	f, _ := os.OpenFile(Path(dir, "s1"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"kind":"message","message":{"role":"user","con`) // ...in the middle of a write
	f.Close()

	msgs, err := Load(Path(dir, "s1"))
	if err != nil {
		t.Fatal(err)
	}
	// The torn line and the call without a result are dropped: every API
	// accepts what is left.
	if len(msgs) != 3 || msgs[2].Text() != "second" {
		t.Fatalf("conversation %+v", msgs)
	}
	if _, err := Create(dir, "s1", Record{}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("creating an existing session: %v", err)
	}
	if _, _, err := Open(dir, "nope"); err == nil || !strings.Contains(err.Error(), "no stored session") {
		t.Fatalf("opening a missing session: %v", err)
	}
	for _, bad := range []string{"", "../x", ".hidden", "a/b"} {
		if _, err := Create(dir, bad, Record{}); err == nil {
			t.Errorf("Create(%q) accepted", bad)
		}
	}
}

func TestCompactionReplacesWhatCameBefore(t *testing.T) {
	dir := t.TempDir()
	c, err := Create(dir, "s2", Record{})
	if err != nil {
		t.Fatal(err)
	}
	c.Message(llm.UserText("old 1"))
	c.Message(llm.UserText("old 2"))
	c.Append(Record{Kind: KindCompact, Messages: []llm.Message{llm.UserText("summary")}})
	c.Message(llm.UserText("after"))
	c.Append(Record{Kind: KindPlan, Text: "a plan"}) // not part of the conversation
	c.Close()
	msgs, err := Load(Path(dir, "s2"))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Text() != "summary" || msgs[1].Text() != "after" {
		t.Fatalf("conversation %+v", msgs)
	}
}
