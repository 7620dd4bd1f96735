package session

// Children maps each session id to its direct children, in creation order.
func Children(states []*State) map[string][]string {
	kids := make(map[string][]string)
	for _, st := range states {
		if st.ParentID != "" {
			kids[st.ParentID] = append(kids[st.ParentID], st.ID)
		}
	}
	return kids
}

// Descendants returns every descendant of id, deepest first, so that a
// cascade can stop children before their parents.
func Descendants(kids map[string][]string, id string) []string {
	var levels [][]string
	seen := map[string]bool{id: true}
	cur := []string{id}
	for len(cur) > 0 {
		var next []string
		for _, p := range cur {
			for _, c := range kids[p] {
				if !seen[c] {
					seen[c] = true
					next = append(next, c)
				}
			}
		}
		if len(next) > 0 {
			levels = append(levels, next)
		}
		cur = next
	}
	var out []string
	for i := len(levels) - 1; i >= 0; i-- {
		out = append(out, levels[i]...)
	}
	return out
}

// KillOrder lists each of ids with its descendants in the store before
// it, deepest first, each once: the order `csa kill` stops them in.
func (s *Store) KillOrder(ids []string) ([]string, error) {
	ents, err := s.List()
	if err != nil {
		return nil, err
	}
	var states []*State
	for _, e := range ents {
		if e.State != nil {
			states = append(states, e.State)
		}
	}
	kids := Children(states)
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		for _, d := range append(Descendants(kids, id), id) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	return out, nil
}
