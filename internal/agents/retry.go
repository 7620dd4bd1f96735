package agents

import (
	"regexp"
	"strconv"
	"sync"

	"github.com/csa-dev/csa/internal/session"
)

// limitedText reports whether an error text names a rate limit or an
// exhausted quota, as the failure classifier reads it.
func limitedText(msg string) bool {
	return session.RateLimited(Classify(msg, 1).Class)
}

// limitedStatus reports whether an HTTP status means the provider limits
// the account (429) or is overloaded (529, 503).
func limitedStatus(status int) bool { return status == 429 || status == 529 || status == 503 }

// retryEvent builds a Retry event, rate-limited by status or by text.
func retryEvent(attempt, max, status int, delayMS int64, msg string) Event {
	r := Retry{Attempt: attempt, Max: max, Status: status, DelayMS: delayMS, Message: clip(msg)}
	r.RateLimited = limitedStatus(status) || limitedText(msg)
	return Event{EvRetry, r}
}

// statusIn finds an HTTP status in a program's retry message ("last
// status: 429 Too Many Requests").
var statusIn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(429|5\d\d|4\d\d)\b`) })

func statusOf(msg string) int {
	if m := statusIn().FindString(msg); m != "" {
		n, _ := strconv.Atoi(m)
		return n
	}
	return 0
}
