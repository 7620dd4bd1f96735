// Package psrow is one session as `csa ps` lists it: the row type of
// `csa ps --json`, its encoder, and the line format in which csa-cluster
// hands csa the remote sessions' rows, so that csa copies them into its
// own listing rather than decoding the records again.
package psrow

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/csa-dev/csa/internal/radar"
	"github.com/csa-dev/csa/internal/session"
)

// Row is one session in the stable JSON listing.
type Row struct {
	ID          string         `json:"id"`
	Tool        string         `json:"tool"`
	Model       string         `json:"model,omitempty"`
	State       session.Status `json:"state"`
	Depth       int            `json:"depth"`
	ParentID    string         `json:"parent_id"`
	ProjectRoot string         `json:"project_root"`
	StartedAt   *time.Time     `json:"started_at"`
	EndedAt     *time.Time     `json:"ended_at"`
	DurationMS  int64          `json:"duration_ms"`
	ExitCode    *int           `json:"exit_code"`
	Reason      string         `json:"reason,omitempty"`
	Interactive bool           `json:"interactive,omitempty"`
	// Worker is the cluster worker a remote session runs on.
	Worker string `json:"worker,omitempty"`
	// Branch is a worktree run's branch; Files, Insertions and Deletions
	// the size of its change, once Recorded.
	Branch     string `json:"branch,omitempty"`
	Recorded   bool   `json:"recorded,omitempty"`
	Files      int    `json:"files,omitempty"`
	Insertions int    `json:"insertions,omitempty"`
	Deletions  int    `json:"deletions,omitempty"`
	// CostUSD is what the session cost, from its usage and its model's
	// price; TreeCostUSD sums it with its descendants', leaving out the
	// TreeUnpriced sessions whose model has no price (internal/cost).
	// Omitted when unknown: PriceUnknown says the session used tokens of
	// a model without a price.
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	PriceUnknown bool     `json:"price_unknown,omitempty"`
	TreeCostUSD  *float64 `json:"tree_cost_usd,omitempty"`
	TreeUnpriced int      `json:"tree_unpriced_sessions,omitempty"`
	// Overlaps are the other live worktree runs of the repository that
	// change some of the same files, while this one runs.
	Overlaps []radar.Overlap `json:"overlaps,omitempty"`
	Children []*Row          `json:"children,omitempty"`
	// Alias is a remote session's id in its worker's store, which the
	// sessions its agent started name as their parent. Not listed.
	Alias string `json:"-"`
}

// New is the row of a session's summary; now is the end of a running
// session's duration.
func New(st *session.Summary, now time.Time) *Row {
	dur := time.Duration(0)
	switch {
	case st.StartedAt.IsZero():
	case st.EndedAt.IsZero():
		dur = now.Sub(st.StartedAt)
	default:
		dur = st.EndedAt.Sub(st.StartedAt)
	}
	r := &Row{ID: st.ID, Tool: st.Tool, Model: st.Model, State: st.Status, Depth: st.Depth, ParentID: st.ParentID,
		ProjectRoot: st.ProjectRoot, DurationMS: dur.Milliseconds(), ExitCode: st.ExitCode, Reason: st.Reason,
		Interactive: st.Interactive}
	if ch := st.Change; ch != nil {
		r.Branch, r.Recorded, r.Files, r.Insertions, r.Deletions = ch.Branch, ch.Recorded, ch.Files, ch.Insertions, ch.Deletions
	}
	if !st.StartedAt.IsZero() {
		r.StartedAt = &st.StartedAt
	}
	if !st.EndedAt.IsZero() {
		r.EndedAt = &st.EndedAt
	}
	return r
}

// AppendJSON encodes a row without children exactly as encoding/json
// would (TestRowJSON holds it to that), several times faster: ps may list
// tens of thousands of rows.
func (r *Row) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"tool":`...)
	b = appendString(b, r.Tool)
	if r.Model != "" {
		b = append(b, `,"model":`...)
		b = appendString(b, r.Model)
	}
	b = append(b, `,"state":`...)
	b = appendString(b, string(r.State))
	b = append(b, `,"depth":`...)
	b = strconv.AppendInt(b, int64(r.Depth), 10)
	b = append(b, `,"parent_id":`...)
	b = appendString(b, r.ParentID)
	b = append(b, `,"project_root":`...)
	b = appendString(b, r.ProjectRoot)
	b = append(b, `,"started_at":`...)
	b = appendTime(b, r.StartedAt)
	b = append(b, `,"ended_at":`...)
	b = appendTime(b, r.EndedAt)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendInt(b, r.DurationMS, 10)
	b = append(b, `,"exit_code":`...)
	if r.ExitCode == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*r.ExitCode), 10)
	}
	if r.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, r.Reason)
	}
	if r.Interactive {
		b = append(b, `,"interactive":true`...)
	}
	if r.Worker != "" {
		b = append(b, `,"worker":`...)
		b = appendString(b, r.Worker)
	}
	if r.Branch != "" {
		b = append(b, `,"branch":`...)
		b = appendString(b, r.Branch)
	}
	if r.Recorded {
		b = append(b, `,"recorded":true`...)
	}
	for _, n := range []struct {
		key string
		v   int
	}{{`,"files":`, r.Files}, {`,"insertions":`, r.Insertions}, {`,"deletions":`, r.Deletions}} {
		if n.v != 0 {
			b = append(b, n.key...)
			b = strconv.AppendInt(b, int64(n.v), 10)
		}
	}
	if r.CostUSD != nil {
		b = append(b, `,"cost_usd":`...)
		b = appendFloat(b, *r.CostUSD)
	}
	if r.PriceUnknown {
		b = append(b, `,"price_unknown":true`...)
	}
	if r.TreeCostUSD != nil {
		b = append(b, `,"tree_cost_usd":`...)
		b = appendFloat(b, *r.TreeCostUSD)
	}
	if r.TreeUnpriced != 0 {
		b = append(b, `,"tree_unpriced_sessions":`...)
		b = strconv.AppendInt(b, int64(r.TreeUnpriced), 10)
	}
	if len(r.Overlaps) > 0 {
		// Rare, and paths may need any escape: encoding/json's own.
		o, _ := json.Marshal(r.Overlaps)
		b = append(b, `,"overlaps":`...)
		b = append(b, o...)
	}
	return append(b, '}')
}

// appendFloat writes f as encoding/json does: exponents only for the very
// small and the very large, without a leading zero.
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

func appendTime(b []byte, t *time.Time) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendString writes plain printable ASCII directly and leaves anything
// that needs escaping to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// AppendLine is r in the line format of `csa-cluster ps --rows`: the row
// as AppendJSON encodes it (one line: JSON escapes every control
// character), then, for a row with an alias, a tab and the alias, then a
// newline.
func (r *Row) AppendLine(b []byte) []byte {
	b = r.AppendJSON(b)
	if r.Alias != "" {
		b = append(b, '\t')
		b = append(b, r.Alias...)
	}
	return append(b, '\n')
}

// SplitLine takes the first line of the format AppendLine writes off
// data: the row's JSON as it is listed, its alias, and the rest of data.
// A line that is not a JSON object is an error.
func SplitLine(data []byte) (row []byte, alias string, rest []byte, err error) {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok {
		return nil, "", nil, errors.New("row without its end of line")
	}
	row, a, _ := bytes.Cut(line, []byte{'\t'})
	if len(row) < 2 || row[0] != '{' || row[len(row)-1] != '}' {
		return nil, "", nil, errors.New("not a row: " + string(line[:min(len(line), 80)]))
	}
	return row, string(a), rest, nil
}
