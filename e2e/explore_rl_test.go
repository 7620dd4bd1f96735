package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/agents"
	"github.com/csa-dev/csa/internal/devenv"
	"github.com/csa-dev/csa/internal/modelserver"
	"github.com/csa-dev/csa/internal/toolcache"
)

func TestExploreRateLimit(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	sc, _ := modelserver.Parse([]byte(`
[[rule]]
name = "rl"
contains = "explore rl"
  [[rule.step]]
  error = "rate_limit"
  message = "Scripted rate limit."
`))
	srv := modelserver.New(sc, modelserver.Options{})
	url, _ := srv.Start()
	defer srv.Close()
	for _, s := range agents.Registry {
		if os.Getenv("ONLY") != "" && os.Getenv("ONLY") != string(s.Tool) {
			continue
		}
		t.Run(string(s.Tool), func(t *testing.T) {
			dir := t.TempDir()
			proj := filepath.Join(dir, "proj")
			os.MkdirAll(proj, 0o755)
			env, err := devenv.Prepare(filepath.Join(dir, "home"), url, devenv.Options{Retries: devenv.ProgramRetries, Trusted: []string{proj}})
			if err != nil {
				t.Fatal(err)
			}
			bin, _ := toolcache.Bin(s.Program.Name)
			inv, _ := s.Adapter.Build(agents.Request{Prompt: "explore rl", Model: devenv.Model(s.Tool), Yolo: true, Root: true})
			ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
			defer cancel()
			args := inv.Args
			if x := os.Getenv("EXTRA"); x != "" {
				args = append(strings.Fields(x), args...)
			}
			c := exec.CommandContext(ctx, bin, args...)
			c.Dir = proj
			c.Env = append(devenv.Merge(os.Environ(), env), "PWD="+proj)
			c.Env = append(c.Env, inv.Env...)
			out, _ := c.StdoutPipe()
			errp, _ := c.StderrPipe()
			start := time.Now()
			c.Start()
			done := make(chan bool, 2)
			for name, r := range map[string]any{"out": out, "err": errp} {
				go func() {
					sc := bufio.NewScanner(r.(interface{ Read([]byte) (int, error) }))
					sc.Buffer(make([]byte, 1<<20), 1<<20)
					for sc.Scan() {
						line := sc.Text()
						if len(line) > 400 {
							line = line[:400]
						}
						t.Logf("%6.2fs %s %s", time.Since(start).Seconds(), name, line)
					}
					done <- true
				}()
			}
			<-done
			<-done
			err = c.Wait()
			t.Logf("%6.2fs exit %v; requests: %d", time.Since(start).Seconds(), err, len(srv.Requests()))
		})
	}
}
