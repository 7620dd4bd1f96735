package modelserver

import (
	"regexp"
	"strings"
	"time"
)

// request is an API request reduced to what the script needs.
type request struct {
	API      string
	Model    string
	Stream   bool
	UserText string   // latest human-authored user text
	Turn     int      // assistant turns already present after that text
	Tools    []string // tool names offered, in order
	Cwd      string   // the agent's working directory, if the request tells
	Utility  string   // a side call answered without the script ("router", "title", "json")
	schema   map[string]any
	size     int    // body bytes, for the usage estimate
	body     []byte // the raw request, for Rule.Body
}

// answer is a resolved step, ready for a wire format to encode.
type answer struct {
	Text       string
	Thinking   string
	Calls      []*call
	InTokens   int
	OutTokens  int
	ChunkDelay time.Duration
	Malformed  bool // send broken JSON
	Truncated  bool // stop the stream before its end
	Stalled    bool // go silent after the first event, until the client leaves
}

// call is a tool call under the program's own tool name.
type call struct {
	Name      string
	Args      map[string]any
	Namespace string // Responses API only
}

// turnCounter counts assistant turns: a run of consecutive assistant-side
// items is one turn, whatever the API splits it into.
type turnCounter struct {
	turns   int
	inReply bool
}

func (c *turnCounter) human() { c.turns, c.inReply = 0, false }
func (c *turnCounter) assistant() {
	if !c.inReply {
		c.turns++
		c.inReply = true
	}
}
func (c *turnCounter) other() { c.inReply = false }

// reminderRE matches context the programs wrap into user messages.
var reminderRE = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>|<session_context>.*?</session_context>`)

// humanText strips text the programs add to user messages themselves.
func humanText(s string) string {
	return strings.TrimSpace(reminderRE.ReplaceAllString(s, ""))
}

// cwdPatterns find the working directory in the prompts the programs send.
var cwdPatterns = []*regexp.Regexp{
	regexp.MustCompile(`<cwd>([^<\n]+)</cwd>`),                     // codex
	regexp.MustCompile(`(?i)working directory:\s*(/[^\n]*)`),       // claude, opencode
	regexp.MustCompile(`Workspace Directories:\*\*\s*- (/[^\n]*)`), // gemini
}

func findCwd(texts ...string) string {
	for _, re := range cwdPatterns {
		for _, t := range texts {
			if m := re.FindStringSubmatch(t); m != nil {
				return strings.TrimSpace(m[1])
			}
		}
	}
	return ""
}

func estimateTokens(n int) int { return n/4 + 1 }

// chunks splits text into a few deltas at spaces, so streams have several.
func chunks(text string, n int) []string {
	if len(text) < 2*n {
		return []string{text}
	}
	var out []string
	size := len(text) / n
	for len(text) > 0 && len(out) < n-1 {
		cut := strings.IndexByte(text[min(size, len(text)-1):], ' ')
		if cut < 0 {
			break
		}
		cut += min(size, len(text)-1) + 1
		out = append(out, text[:cut])
		text = text[cut:]
	}
	if text != "" {
		out = append(out, text)
	}
	return out
}
