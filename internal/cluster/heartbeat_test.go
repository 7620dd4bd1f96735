package cluster

import (
	"slices"
	"testing"
	"time"
)

// A worker is lost when its heartbeat stops changing for LostAfter on the
// observer's clock, or is gone; a changing one never is.
func TestLiveness(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLiveness(func() time.Time { return now })
	beats := map[string]Beat{
		"a": {Heartbeat: Heartbeat{ID: "a", Running: []string{"s1"}}, Revision: 1},
		"b": {Heartbeat: Heartbeat{ID: "b", Running: []string{"s2", "s3"}}, Revision: 2},
		"c": {Heartbeat: Heartbeat{ID: "c", Running: []string{"s4"}}, Revision: 3},
	}
	if lost := l.Observe(beats); len(lost) != 0 {
		t.Fatalf("first sight: lost %v", lost)
	}
	// a keeps beating, b stops, c disappears.
	for i := 1; i <= 5; i++ {
		now = now.Add(time.Second)
		beats["a"] = Beat{Heartbeat: beats["a"].Heartbeat, Revision: uint64(10 + i)}
		if i == 2 {
			delete(beats, "c")
		}
		lost := l.Observe(beats)
		switch i {
		case 2:
			if !slices.Equal(lost["c"], []string{"s4"}) || len(lost) != 1 {
				t.Fatalf("after c's heartbeat is gone: lost %v", lost)
			}
		case 5:
			if !slices.Equal(lost["b"], []string{"s2", "s3"}) || len(lost) != 1 {
				t.Fatalf("b unchanged for %v: lost %v", LostAfter, lost)
			}
		default:
			if len(lost) != 0 {
				t.Fatalf("second %d: lost %v", i, lost)
			}
		}
	}
	// Once reported, b is not reported again.
	now = now.Add(time.Second)
	if lost := l.Observe(beats); len(lost) != 0 {
		t.Fatalf("reported twice: %v", lost)
	}
}

// Lost for one record: absent is lost at once; present needs LostAfter
// of no change.
func TestLivenessLost(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLiveness(func() time.Time { return now })
	beats := map[string]Beat{"a": {Revision: 1}}
	if !l.Lost("gone", beats) {
		t.Error("a worker without a heartbeat is not lost")
	}
	if l.Lost("a", beats) {
		t.Error("lost at first sight")
	}
	now = now.Add(LostAfter - time.Millisecond)
	if l.Lost("a", beats) {
		t.Error("lost before LostAfter")
	}
	now = now.Add(time.Millisecond)
	if !l.Lost("a", beats) {
		t.Error("not lost after LostAfter without a change")
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
	now := time.Unix(1000, 0)
	l := NewLiveness(func() time.Time { return now })
	beats := map[string]Beat{"a": {Heartbeat: Heartbeat{ID: "a", Running: []string{"s1"}}, Revision: 1}}
	l.Observe(beats)
	// The bucket stalls for 8 s: no revision changes, the observer sees it.
	for range 8 {
		now = now.Add(time.Second)
		l.Unhealthy(now)
		if lost := l.Observe(beats); len(lost) != 0 {
			t.Fatalf("lost during the stall: %v", lost)
		}
	}
	if l.Lost("a", beats) {
		t.Fatal("Lost right after the stall")
	}
	// Healthy again: a worker still silent is lost LostAfter later, not
	// sooner.
	now = now.Add(LostAfter - time.Millisecond)
	if lost := l.Observe(beats); len(lost) != 0 {
		t.Fatalf("lost before LostAfter of health: %v", lost)
	}
	now = now.Add(time.Millisecond)
	if lost := l.Observe(beats); !slices.Equal(lost["a"], []string{"s1"}) {
		t.Fatalf("not lost after LostAfter of health: %v", lost)
	}
}
