package gc

import (
	"github.com/csa-dev/csa/internal/radar"
	"github.com/csa-dev/csa/internal/session"
)

// collectRadar removes the overlap radar's reports (and the overlaps
// claimed with them) of runs whose supervisor is gone: a supervisor
// withdraws its run's report when the program ends, so one still there
// was left by a supervisor killed before it could. A live run's report
// is never touched.
func (o *Options) collectRadar(s *session.Store) ([]Tree, error) {
	dir := radar.Dir(s)
	left, err := radar.Left(dir, s.SupervisorAlive)
	if err != nil {
		return nil, err
	}
	var out []Tree
	for _, id := range left {
		why := "its session is gone"
		if st, err := s.Load(id); err == nil {
			why = "its session ended (" + string(st.Status) + ")"
			if !st.Status.Ended() {
				why = "its supervisor is gone"
			}
		}
		out = append(out, Tree{Path: radar.File(dir, id), Reason: why})
		if !o.DryRun {
			radar.Remove(dir, id)
		}
	}
	return out, nil
}
