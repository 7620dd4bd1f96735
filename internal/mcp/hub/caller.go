package hub

import "encoding/json"

// serverName is serverInfo.name of an initialize result.
func serverName(init json.RawMessage) string {
	var r struct {
		ServerInfo struct {
			Name string `json:"name"`
		} `json:"serverInfo"`
	}
	_ = json.Unmarshal(init, &r)
	return r.ServerInfo.Name
}

// withCaller is c's params with its client's Caller under
// _meta[CallerMeta], for a tools/call to csa's own MCP server; other
// servers never see it (a remote one has no business with the caller's
// session or directories).
func withCaller(c *call) json.RawMessage {
	caller := c.cl.hello.Caller
	if c.method != "tools/call" || caller == nil {
		return c.params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(c.params, &p) != nil {
		return c.params
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(p["_meta"], &meta)
	meta[CallerMeta], _ = json.Marshal(caller)
	p["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(p)
	if err != nil {
		return c.params
	}
	return out
}
