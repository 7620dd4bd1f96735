package session_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/csa-dev/csa/internal/session"
)

func TestNormalizePrefix(t *testing.T) {
	const full = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string // substring of the InvalidIDError reason; "" for success
	}{
		{"full ulid", full, full, ""},
		{"full ulid lower case", strings.ToLower(full), full, ""},
		{"mixed case prefix", "01arZ3", "01ARZ3", ""},
		{"single char", "0", "0", ""},
		{"largest timestamp first char", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", ""},
		{"short prefix may start above 7", "8Z", "8Z", ""},
		{"empty", "", "", "empty id"},
		{"too long", full + "0", "", "longer than 26 characters"},
		{"letter I", "01I", "", "not a ULID character"},
		{"letter L", "01L", "", "not a ULID character"},
		{"letter O", "01O", "", "not a ULID character"},
		{"letter U", "01U", "", "not a ULID character"},
		{"lower case u", "01u", "", "not a ULID character"},
		{"path traversal", "../x", "", "not a ULID character"},
		{"slash", "01AR/Z3", "", "not a ULID character"},
		{"space", "01AR Z3", "", "not a ULID character"},
		{"non ascii", "01ÄR", "", "not a ULID character"},
		{"timestamp overflow 8", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "", "timestamp overflows"},
		{"timestamp overflow Z lower", "z" + full[1:], "", "timestamp overflows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := session.NormalizePrefix(tt.in)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("NormalizePrefix(%q) error: %v", tt.in, err)
				}
				if got != tt.want {
					t.Fatalf("NormalizePrefix(%q) = %q, want %q", tt.in, got, tt.want)
				}
				return
			}
			var inv *session.InvalidIDError
			if !errors.As(err, &inv) {
				t.Fatalf("NormalizePrefix(%q) = %q, %v; want *InvalidIDError", tt.in, got, err)
			}
			if inv.ID != tt.in {
				t.Errorf("InvalidIDError.ID = %q, want %q", inv.ID, tt.in)
			}
			if !strings.Contains(inv.Why, tt.wantErr) {
				t.Errorf("InvalidIDError.Why = %q, want it to contain %q", inv.Why, tt.wantErr)
			}
			if got != "" {
				t.Errorf("NormalizePrefix(%q) returned %q with an error", tt.in, got)
			}
		})
	}
}

func TestNewIDIsNormalizedAndOrdered(t *testing.T) {
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	prev := ""
	for i := 0; i < 50; i++ {
		id := session.NewID(base.Add(time.Duration(i) * time.Millisecond))
		if len(id) != session.IDLen {
			t.Fatalf("NewID length = %d, want %d", len(id), session.IDLen)
		}
		up, err := session.NormalizePrefix(id)
		if err != nil || up != id {
			t.Fatalf("NewID %q does not normalize to itself: %q, %v", id, up, err)
		}
		if id <= prev {
			t.Fatalf("NewID not in creation order: %q after %q", id, prev)
		}
		prev = id
	}
}

func TestAmbiguousErrorListsCandidates(t *testing.T) {
	few := &session.AmbiguousError{Prefix: "01a", Candidates: []string{"01A1", "01A2"}}
	if msg := few.Error(); !strings.Contains(msg, "01A1, 01A2") || strings.Contains(msg, "more") {
		t.Errorf("Error() = %q, want both candidates and no elision", msg)
	}
	var many []string
	for i := 0; i < 13; i++ {
		many = append(many, "01A"+string(rune('A'+i)))
	}
	msg := (&session.AmbiguousError{Prefix: "01a", Candidates: many}).Error()
	if !strings.Contains(msg, many[9]) || strings.Contains(msg, many[10]) || !strings.Contains(msg, "and 3 more") {
		t.Errorf("Error() = %q, want the first 10 candidates and \"and 3 more\"", msg)
	}
}
