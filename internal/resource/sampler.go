package resource

import (
	"bytes"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/csa-dev/csa/internal/proc"
)

// Sampler tracks the peak resident memory of a whole process tree (the
// program and every descendant), for layers whose kernel keeps no peak.
type Sampler struct {
	root     int
	interval time.Duration
	peak     atomic.Int64
	stop     chan struct{}
	done     chan struct{}
}

var pageSize = int64(os.Getpagesize())

// StartSampler samples the tree under pid every interval until Stop.
func StartSampler(pid int, interval time.Duration) *Sampler {
	s := &Sampler{root: pid, interval: interval, stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *Sampler) loop() {
	defer close(s.done)
	// No sample at once: a run shorter than one interval is measured by
	// the kernel's high-water mark of its leader (rusage) instead, and most
	// trivial runs are over before the first tick.
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.sample()
		}
	}
}

func (s *Sampler) sample() {
	if rss := TreeRSS(s.root); rss > s.peak.Load() {
		s.peak.Store(rss)
	}
}

// Stop ends sampling and returns the peak in bytes.
func (s *Sampler) Stop() int64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

// TreeRSS sums the resident memory of pid and its descendants.
func TreeRSS(pid int) int64 {
	var total int64
	proc.WalkTree(pid, func(p int) { total += rss(p) })
	return total
}

func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n * pageSize
}
