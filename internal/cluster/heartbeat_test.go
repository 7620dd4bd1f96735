package cluster

import (
	"slices"
	"testing"
	"time"
)

// observer drives a Liveness as a Reaper does, on a clock of its own: a
// probe every second, read back at once while the read keeps up.
type observer struct {
	t    *testing.T
	l    *Liveness
	now  time.Time
	revs uint64
}

func newObserver(t *testing.T) *observer {
	return &observer{t: t, l: NewLiveness(), now: time.Unix(1000, 0)}
}

// beat is worker id's heartbeat read now.
func (o *observer) beat(id string, running ...string) {
	o.revs++
	o.l.Saw(id, o.revs, &Heartbeat{ID: id, Running: running}, o.now)
}

// second passes a second; covered: the read has reached a probe written
// at its start.
func (o *observer) second(covered bool) {
	sent := o.now
	o.now = o.now.Add(time.Second)
	if covered {
		o.l.Covered(sent)
	}
}

func (o *observer) silent() map[string][]string {
	out := map[string][]string{}
	for _, s := range o.l.Silent() {
		out[s.ID] = s.Running
	}
	return out
}

// A worker is silent once a probe written LostAfter after its last
// heartbeat was read has been read back; one that keeps beating never is.
func TestLiveness(t *testing.T) {
	o := newObserver(t)
	o.beat("a", "s1")
	o.beat("b", "s2", "s3")
	for i := 1; i <= 6; i++ {
		o.second(true)
		o.beat("a", "s1")
		silent := o.silent()
		switch {
		case i < 6 && len(silent) != 0:
			t.Fatalf("second %d: silent %v", i, silent)
		case i == 6 && (len(silent) != 1 || !slices.Equal(silent["b"], []string{"s2", "s3"})):
			t.Fatalf("b unchanged for %v: silent %v", LostAfter, silent)
		}
	}
	// Reported lost, b is not listed again; Known still says so.
	o.l.Lost("b", 2)
	if silent := o.silent(); len(silent) != 0 {
		t.Fatalf("listed again after Lost: %v", silent)
	}
	if rev, silent, ok := o.l.Known("b"); rev != 2 || !silent || !ok {
		t.Fatalf("Known(b) = %d, %v, %v", rev, silent, ok)
	}
	// A newer heartbeat brings it back.
	o.beat("b")
	if _, silent, _ := o.l.Known("b"); silent {
		t.Fatal("silent right after a new heartbeat")
	}
	if _, _, ok := o.l.Known("c"); ok {
		t.Fatal("a worker never read is known")
	}
}

// Issue 23: a worker missing from what was read is not absent. While the
// read has not reached a probe (a listing cut short by its call's
// timeout, a watch that stopped delivering), a worker it did not show
// is never silent, however long that lasts; once the read catches up
// with the worker's newer heartbeat, the time before counts for nothing.
func TestLivenessPartialRead(t *testing.T) {
	o := newObserver(t)
	o.beat("a", "s1")
	o.second(true)
	// The read stops here: a's heartbeats go on being written, unread.
	for i := range 30 {
		o.second(false)
		if silent := o.silent(); len(silent) != 0 {
			t.Fatalf("%d s into a partial read: silent %v", i+1, silent)
		}
	}
	// It catches up: a's newest heartbeat, then a probe.
	o.beat("a", "s1")
	o.second(true)
	if silent := o.silent(); len(silent) != 0 {
		t.Fatalf("after the read caught up: silent %v", silent)
	}
}

// Lost for one record: Known says silent after LostAfter of covered time
// without a new revision, and not a moment before.
func TestLivenessKnown(t *testing.T) {
	o := newObserver(t)
	o.beat("a")
	sent := o.now.Add(LostAfter - time.Millisecond)
	o.l.Covered(sent)
	if _, silent, _ := o.l.Known("a"); silent {
		t.Error("silent before LostAfter")
	}
	o.l.Covered(sent.Add(time.Millisecond))
	if _, silent, _ := o.l.Known("a"); !silent {
		t.Error("not silent after LostAfter without a change")
	}
	// An older revision read late (a replica behind) changes nothing.
	o.l.Saw("a", 0, &Heartbeat{}, o.now.Add(LostAfter))
	if rev, silent, _ := o.l.Known("a"); rev != 1 || !silent {
		t.Errorf("after an older revision: rev %d, silent %v", rev, silent)
	}
}

func TestMatches(t *testing.T) {
	have := map[string]string{"gpu": "yes", "zone": "a"}
	for _, tt := range []struct {
		want map[string]string
		ok   bool
	}{
		{nil, true},
		{map[string]string{"gpu": "yes"}, true},
		{map[string]string{"gpu": "yes", "zone": "a"}, true},
		{map[string]string{"gpu": "no"}, false},
		{map[string]string{"arch": "arm64"}, false},
	} {
		if got := Matches(have, tt.want); got != tt.ok {
			t.Errorf("Matches(%v, %v) = %v", have, tt.want, got)
		}
	}
}

// A heartbeat that stood still while the bucket took no writes (a stream
// electing its leader) is not held against its worker: only the time
// since the bucket became healthy again counts.
func TestLivenessStall(t *testing.T) {
	o := newObserver(t)
	o.beat("a", "s1")
	// The bucket stalls for 8 s: probes fail, the observer sees it.
	for range 8 {
		o.second(false)
		o.l.Unhealthy(o.now)
		if silent := o.silent(); len(silent) != 0 {
			t.Fatalf("silent during the stall: %v", silent)
		}
	}
	// Healthy again: a worker still silent is silent LostAfter later, not
	// sooner.
	healthy := o.now
	o.l.Covered(healthy.Add(LostAfter - time.Millisecond))
	if silent := o.silent(); len(silent) != 0 {
		t.Fatalf("silent before LostAfter of health: %v", silent)
	}
	o.l.Covered(healthy.Add(LostAfter))
	if silent := o.silent(); !slices.Equal(silent["a"], []string{"s1"}) {
		t.Fatalf("not silent after LostAfter of health: %v", silent)
	}
}
