package agents

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/session"
)

type classRule struct {
	class string
	re    *regexp.Regexp
}

// classRules are tried in order on the program's own error text; quota is
// checked before rate limits because quota errors often carry a 429 too.
// They are compiled on first use: most runs never fail, and every csa
// command would otherwise pay for the compilation at start.
var classRules = sync.OnceValue(func() []classRule {
	return []classRule{
		// Gemini CLI names its own verdict on a 429.
		{session.FailRateLimited, regexp.MustCompile(`RetryableQuotaError`)},
		{session.FailQuota, regexp.MustCompile(`TerminalQuotaError`)},
		{session.FailQuota, regexp.MustCompile(`(?i)insufficient_quota|quota (exceeded|exhausted)|exceeded your (current )?quota|billing|credit balance|usage limit`)},
		{session.FailRateLimited, regexp.MustCompile(`(?i)\b429\b|rate[ _-]?limit|too many requests|resource_exhausted|overloaded|\b529\b`)},
		{session.FailAuth, regexp.MustCompile(`(?i)\b401\b|\b403\b|authentication|unauthori[sz]ed|invalid (x-)?api[ _-]?key|permission_denied|not logged in|please run /login`)},
	}
})

// ClassifyStatus classifies by the provider's HTTP status when the program
// reported one, and by its error text otherwise.
func ClassifyStatus(status int, evidence string, exit int) *session.Failure {
	msg := lastMeaningful(evidence)
	if msg == "" {
		msg = fmt.Sprintf("the program exited with status %d", exit)
	}
	switch status {
	case 429:
		if rules := classRules(); rules[1].re.MatchString(evidence) || rules[2].re.MatchString(evidence) {
			return &session.Failure{Class: session.FailQuota, Message: msg}
		}
		return &session.Failure{Class: session.FailRateLimited, Message: msg}
	case 529, 503:
		return &session.Failure{Class: session.FailRateLimited, Message: msg}
	case 402:
		return &session.Failure{Class: session.FailQuota, Message: msg}
	case 401, 403:
		return &session.Failure{Class: session.FailAuth, Message: msg}
	}
	return Classify(evidence, exit)
}

// Classify names why a run failed from the error text the program gave.
func Classify(evidence string, exit int) *session.Failure {
	msg := lastMeaningful(evidence)
	for _, r := range classRules() {
		if r.re.MatchString(evidence) {
			return &session.Failure{Class: r.class, Message: msg}
		}
	}
	if msg == "" {
		msg = fmt.Sprintf("the program exited with status %d", exit)
	}
	return &session.Failure{Class: session.FailCrashed, Message: msg}
}

// lastMeaningful is the last non-empty line, bounded, for the message.
func lastMeaningful(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return clip(l)
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 500 {
		return strings.ToValidUTF8(s[:500], "") + "..."
	}
	return s
}
