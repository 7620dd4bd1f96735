package hub

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/csa-dev/csa/internal/jsonrpc"
)

// initialize starts the client's backends (once each, shared; a lazy one
// whose tools are known waits for its first call) and answers from their
// cached initialize results. Capabilities are the hub's own: tools, and
// resources and prompts when some backend has them, always with
// listChanged; the servers' instructions are joined under their names.
func (cl *client) initialize(m *msg) *msg {
	bs, err := cl.backends()
	if err != nil {
		return errorReply(m.ID, jsonrpc.CodeInvalidParams, "%v", err)
	}
	var wg sync.WaitGroup
	for _, b := range bs {
		if b.cfg.Lazy && b.knowsTools() {
			continue
		}
		wg.Go(func() {
			if _, err := b.ensure(cl.h.ctx); err != nil {
				fmt.Fprintf(cl.h.logw, "csa-mcp hub: %s: %v\n", b.label(), err)
			}
		})
	}
	wg.Wait()
	var req struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &req)
	version := hubProtocolVersion
	if slices.Contains(knownVersions, req.ProtocolVersion) {
		version = req.ProtocolVersion
	}
	var instructions []string
	caps := map[string]any{"tools": map[string]any{"listChanged": true}}
	for _, b := range bs {
		b.mu.Lock()
		init := b.init
		b.mu.Unlock()
		var res struct {
			Instructions string `json:"instructions"`
		}
		if json.Unmarshal(init, &res) == nil && res.Instructions != "" {
			instructions = append(instructions, b.name+": "+res.Instructions)
		}
		resources, subscribe, prompts := capsOf(init)
		if resources {
			r, _ := caps["resources"].(map[string]any)
			if r == nil {
				r = map[string]any{"listChanged": true}
				caps["resources"] = r
			}
			if subscribe {
				r["subscribe"] = true
			}
		}
		if prompts {
			caps["prompts"] = map[string]any{"listChanged": true}
		}
	}
	result := map[string]any{
		"protocolVersion": version,
		"capabilities":    caps,
		"serverInfo":      map[string]any{"name": "csa-mcp-hub", "version": "1"},
	}
	if len(instructions) > 0 {
		result["instructions"] = strings.Join(instructions, "\n\n")
	}
	return resultReply(m.ID, result)
}

// knowsTools reports whether the backend's tools are known without
// asking it (from an earlier start, or from disk).
func (b *backend) knowsTools() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.knownOK[kindTools] && b.init != nil
}
