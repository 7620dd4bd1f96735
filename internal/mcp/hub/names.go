package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
)

// MaxToolName is the longest tool name clients accept.
const MaxToolName = 64

// exposed is a tool (or prompt) as a client sees it.
type exposed struct {
	b    *backend
	tool string          // the backend's own name
	def  json.RawMessage // the definition with the exposed name
}

// catalog is a client's view of the tools (or prompts) of its backends:
// names kept as they are, except that names two backends share become
// server__name (for those names only, so adding a server renames nothing
// else).
type catalog struct {
	names []string // exposed names in listing order
	tools map[string]exposed
}

func buildCatalog(ctx context.Context, bs []*backend, k kind) (*catalog, []error) {
	lists := make([][]json.RawMessage, len(bs))
	errs := make([]error, len(bs))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Go(func() { lists[i], errs[i] = b.list(ctx, k) })
	}
	wg.Wait()
	type entry struct {
		b    int
		name string
		def  map[string]json.RawMessage
	}
	var entries []entry
	count := map[string]int{}
	for i, list := range lists {
		for _, raw := range list {
			var def map[string]json.RawMessage
			var name string
			if json.Unmarshal(raw, &def) != nil || json.Unmarshal(def["name"], &name) != nil || name == "" {
				continue
			}
			if k == kindTools && !bs[i].cfg.Exposes(name) {
				continue
			}
			entries = append(entries, entry{i, name, def})
			count[name]++
		}
	}
	c := &catalog{tools: map[string]exposed{}}
	for _, e := range entries {
		name := e.name
		if count[name] > 1 {
			name = prefixed(bs[e.b].name, e.name)
		}
		if _, dup := c.tools[name]; dup { // a prefixed name equal to another server's tool
			name = hashed(name + "\x00" + bs[e.b].label())
		}
		e.def["name"], _ = json.Marshal(name)
		def, _ := json.Marshal(e.def)
		c.tools[name] = exposed{b: bs[e.b], tool: e.name, def: def}
		c.names = append(c.names, name)
	}
	var out []error
	for i, err := range errs {
		if err != nil {
			out = append(out, fmt.Errorf("%s: %w", bs[i].label(), err))
		}
	}
	return c, out
}

// prefixed is server__tool within MaxToolName characters.
func prefixed(server, tool string) string {
	s := server + "__" + tool
	if len(s) <= MaxToolName {
		return s
	}
	return hashed(s)
}

// hashed shortens s to MaxToolName characters, keeping it distinct by a
// hash of the whole.
func hashed(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	if len(s) > MaxToolName-len(suffix) {
		s = s[:MaxToolName-len(suffix)]
	}
	return s + suffix
}

// sortedBackends orders a view by name so listings and renames are stable.
func sortedBackends(bs []*backend) []*backend {
	sort.Slice(bs, func(i, j int) bool { return bs[i].name < bs[j].name })
	return bs
}
