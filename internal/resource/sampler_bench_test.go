package resource

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkSamplerTick is one sample of a process tree like an agent's: a
// multi-threaded parent (this test binary) with a few children. The
// sampler's CPU share is this cost divided by its interval (500 ms).
func BenchmarkSamplerTick(b *testing.B) {
	var kids []*exec.Cmd
	for i := 0; i < 8; i++ {
		c := exec.Command("sleep", "60")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		kids = append(kids, c)
	}
	defer func() {
		for _, c := range kids {
			c.Process.Kill()
			c.Wait()
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if TreeRSS(os.Getpid()) <= 0 {
			b.Fatal("no memory seen")
		}
	}
	per := time.Duration(b.Elapsed().Nanoseconds() / int64(b.N))
	b.ReportMetric(float64(per)/float64(500*time.Millisecond)*100, "%cpu@500ms")
}

func TestTreeRSSSeesChildren(t *testing.T) {
	self := TreeRSS(os.Getpid())
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	time.Sleep(50 * time.Millisecond)
	if with := TreeRSS(os.Getpid()); with <= self {
		t.Fatalf("a child's memory is not counted: %d then %d", self, with)
	}
	s := StartSampler(os.Getpid(), 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	if peak := s.Stop(); peak < self {
		t.Fatalf("sampler peak %d below the tree's %d", peak, self)
	}
}
