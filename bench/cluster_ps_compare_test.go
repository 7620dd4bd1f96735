package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/cluster"
	"github.com/csa-dev/csa/internal/cluster/clustertest"
	"github.com/csa-dev/csa/internal/session"
)

// BenchmarkClusterPsSameAsBase is a check rather than a measure: with
// $CSA_BENCH_BASE (an earlier csa, its csa-cluster beside it) it lists 40
// varied remote sessions (pending, running, ended, interactive, another
// project's, children, a grandchild naming its parent by its id on its
// worker, a broken record) and two local ones with both builds, and fails
// unless csa ps, --json, --tree, --tree --json, --all, --all --json and
// --all --tree --json print the same bytes, running sessions' durations
// aside (they grow between the two calls).
func BenchmarkClusterPsSameAsBase(b *testing.B) {
	base := os.Getenv("CSA_BENCH_BASE")
	if base == "" {
		b.Skip("CSA_BENCH_BASE names no earlier csa to compare with")
	}
	nc := clustertest.Start(b, 3)
	proj := clusterProject(b)
	other := clusterProject(b)
	c := connect(b, nc.URL())
	now := time.Now().UTC().Add(-time.Hour)
	var ids []string
	for i := range 40 {
		at := now.Add(time.Duration(i) * time.Second)
		exit := i % 3
		st := session.State{ID: session.NewID(at), Tool: []string{"codex", "claude-code"}[i%2], ProjectRoot: proj, Cwd: proj, CreatedAt: at}
		if i%7 == 3 {
			st.ProjectRoot = other
		}
		if i%5 == 1 {
			st.Model = "m<" + fmt.Sprint(i) + ">"
		}
		switch i % 4 {
		case 0:
			st.Status = session.Pending
		case 1:
			st.Status, st.StartedAt = session.Running, at.Add(time.Second)
		case 2:
			st.Status, st.StartedAt, st.EndedAt, st.ExitCode = session.Completed, at, at.Add(1234567*time.Microsecond), &exit
		case 3:
			st.Status, st.StartedAt, st.EndedAt, st.ExitCode, st.Reason = session.Failed, at, at.Add(42*time.Second), &exit, "exit \"3\"\tü"
		}
		if i%6 == 5 {
			st.Interactive = &session.Interactive{RunID: "x"}
		}
		r := cluster.Record{State: st, Remote: cluster.Remote{QueuedAt: at}}
		if i%4 != 0 {
			r.Remote.Worker, r.Remote.LocalID = fmt.Sprintf("w%d", i%3), session.NewID(at.Add(time.Millisecond))
		}
		if i > 4 && i%3 == 0 {
			r.Depth, r.ParentID = 1, ids[i-3]
		}
		if i > 8 && i%5 == 0 {
			// A grandchild naming its parent by its id on its worker.
			var p cluster.Record
			e, _ := c.Sessions.Get(context.Background(), ids[i-1])
			json.Unmarshal(e.Value(), &p)
			if p.Remote.LocalID != "" {
				r.Depth, r.ParentID = 2, p.Remote.LocalID
			}
		}
		ids = append(ids, r.ID)
		v, _ := json.Marshal(r)
		if _, err := c.Sessions.Create(context.Background(), r.ID, v); err != nil {
			b.Fatal(err)
		}
	}
	// A broken record.
	c.Sessions.Create(context.Background(), session.NewID(now), []byte("{not json"))
	caller := newClusterMachine(b, "caller", nc.URL())
	// Two local sessions.
	for _, p := range []string{"echo one", "echo two"} {
		cmd := exec.Command(csaBin, "run", "--tool", "codex", p)
		cmd.Dir, cmd.Env = proj, caller.env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
	}
	dur := regexp.MustCompile(`("state":"running"[^{}]*?"duration_ms":)[0-9]+`)
	durTxt := regexp.MustCompile(`[0-9.]+(ms|s|m[0-9.]+s|µs)\b`)
	for _, args := range [][]string{{"ps"}, {"ps", "--json"}, {"ps", "--tree"}, {"ps", "--tree", "--json"}, {"ps", "--all"}, {"ps", "--all", "--json"}, {"ps", "--all", "--tree", "--json"}} {
		var outs [2]string
		for k, bin := range []string{base, csaBin} {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = proj, caller.env
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Fatalf("%s %v: %v %s", bin, args, err, out)
			}
			s := dur.ReplaceAllString(string(out), `${1}X`)
			if len(args) == 1 || args[len(args)-1] != "--json" {
				lines := strings.Split(s, "\n")
				for i, l := range lines {
					if strings.Contains(l, "running") {
						lines[i] = durTxt.ReplaceAllString(l, "D")
					}
				}
				s = strings.Join(lines, "\n")
			}
			outs[k] = s
		}
		if outs[0] != outs[1] {
			b.Fatalf("csa %v differs from the earlier build's:\n%s\nearlier:\n%s", args, outs[1], outs[0])
		}
		b.Logf("%v: identical, %d bytes", args, len(outs[1]))
	}
}
