package taskgraph

import "github.com/csa-dev/csa/internal/session"

// OutcomeOf is how an ended session ended, as csa wait reports it: OK only
// when it completed.
func OutcomeOf(st *session.State) Outcome {
	o := Outcome{OK: st.Status == session.Completed, State: string(st.Status), Reason: st.Reason}
	if st.Failure != nil {
		o.Class = st.Failure.Class
	}
	return o
}
