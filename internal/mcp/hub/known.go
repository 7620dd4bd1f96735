package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/csa-dev/csa/internal/fsutil"
)

// SetCacheDir keeps what lazy servers said at their last start (their
// initialize result and tool list) in dir, so that a new hub can list
// their tools without starting them. Call it before serving.
func (h *Hub) SetCacheDir(dir string) { h.cacheDir = dir }

// knownFile is what is kept of a lazy server.
type knownFile struct {
	Init  json.RawMessage   `json:"initialize"`
	Tools []json.RawMessage `json:"tools"`
}

// knownPath names a server's file by a hash of its definition (and
// project): a server whose command, arguments, environment or URL change
// is another server, whose tools are not known. Headers count but are not
// stored.
func (b *backend) knownPath() string {
	if b.hub.cacheDir == "" {
		return ""
	}
	c := b.cfg
	def, _ := json.Marshal([]any{c.Command, c.Args, c.Env, c.Cwd, c.URL, c.Headers, b.project})
	sum := sha256.Sum256(def)
	return filepath.Join(b.hub.cacheDir, b.name+"-"+hex.EncodeToString(sum[:8])+".json")
}

// loadKnown reads the file of a lazy server, if there is one.
func (b *backend) loadKnown() {
	path := b.knownPath()
	if path == "" {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return
	}
	var k knownFile
	if json.Unmarshal(data, &k) != nil || k.Init == nil || k.Tools == nil {
		return
	}
	b.mu.Lock()
	b.init, b.known[kindTools], b.knownOK[kindTools] = k.Init, k.Tools, true
	b.mu.Unlock()
}

// saveKnown writes a lazy server's file after its tools were listed.
func (b *backend) saveKnown() {
	path := b.knownPath()
	if path == "" || !b.cfg.Lazy {
		return
	}
	b.mu.Lock()
	k := knownFile{Init: b.init, Tools: b.known[kindTools]}
	ok := b.knownOK[kindTools] && b.init != nil
	b.mu.Unlock()
	if !ok {
		return
	}
	if k.Tools == nil {
		k.Tools = []json.RawMessage{} // none is known too
	}
	data, err := json.Marshal(k)
	if err != nil {
		return
	}
	if err := fsutil.MkdirPrivate(b.hub.cacheDir); err != nil {
		return
	}
	_ = fsutil.WriteFileReplace(path, data)
}
