package resource_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/csa-dev/csa/internal/resource"
)

const preflightSample = `MemTotal:       24579460 kB
MemFree:        20123456 kB
MemAvailable:    3072000 kB
Buffers:          123456 kB
Cached:          1234567 kB
SwapCached:            0 kB
SwapTotal:       2097152 kB
SwapFree:        1048575 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`

func TestReadMemInfo(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    resource.MemInfo
		wantErr string
	}{
		{"with swap", preflightSample, resource.MemInfo{AvailableMB: 3000, SwapFreeMB: 1023}, ""},
		{"without a SwapFree line", "MemTotal: 1000 kB\nMemAvailable: 524288 kB\n", resource.MemInfo{AvailableMB: 512}, ""},
		{"no trailing newline", "SwapFree: 2048 kB\nMemAvailable: 4096 kB", resource.MemInfo{AvailableMB: 4, SwapFreeMB: 2}, ""},
		{"below one MB rounds down", "MemAvailable: 1023 kB\nSwapFree: 0 kB\n", resource.MemInfo{}, ""},
		{"no MemAvailable", "MemTotal: 1000 kB\nMemFree: 500 kB\nSwapFree: 0 kB\n", resource.MemInfo{}, "no MemAvailable"},
		{"bad number", "MemAvailable: lots kB\n", resource.MemInfo{}, "MemAvailable"},
		{"bad unit", "MemAvailable: 1024 MB\n", resource.MemInfo{}, "kB"},
		{"empty", "", resource.MemInfo{}, "no MemAvailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "meminfo")
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := resource.ReadMemInfo(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("ReadMemInfo = %+v, %v; want an error about %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ReadMemInfo = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := resource.ReadMemInfo(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("ReadMemInfo of a missing file succeeded")
	}
}

func TestReadMemInfoReal(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	mi, err := resource.ReadMemInfo("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	if mi.AvailableMB <= 0 || mi.SwapFreeMB < 0 {
		t.Errorf("real meminfo = %+v; want positive MemAvailable", mi)
	}
	t.Logf("MemAvailable %d MB, SwapFree %d MB", mi.AvailableMB, mi.SwapFreeMB)
}

func TestPreflight(t *testing.T) {
	initial := resource.Estimate{MB: 4096, Source: "initial estimate"}
	tests := []struct {
		name    string
		minFree int64
		est     resource.Estimate
		mi      resource.MemInfo
		fail    bool
	}{
		{"plenty", 512, initial, resource.MemInfo{AvailableMB: 20000}, false},
		{"exactly enough", 512, initial, resource.MemInfo{AvailableMB: 4000, SwapFreeMB: 608}, false},
		{"swap counts", 4096, resource.Estimate{MB: 2560, Source: "p95 of 20 runs"}, resource.MemInfo{AvailableMB: 6144, SwapFreeMB: 2048}, false},
		{"one MB short", 512, initial, resource.MemInfo{AvailableMB: 4000, SwapFreeMB: 607}, true},
		{"short", 512, initial, resource.MemInfo{AvailableMB: 3000}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := resource.Preflight("codex", tt.minFree, tt.est, tt.mi)
			if !tt.fail {
				if err != nil {
					t.Errorf("Preflight = %v, want pass", err)
				}
				return
			}
			var pe *resource.PreflightError
			if !errors.As(err, &pe) {
				t.Fatalf("Preflight = %v, want a *PreflightError", err)
			}
			want := resource.PreflightError{
				Tool: "codex", RequiredMB: tt.minFree + tt.est.MB, AvailableMB: tt.mi.AvailableMB + tt.mi.SwapFreeMB,
				MinFreeMB: tt.minFree, Estimate: tt.est, MemAvailableMB: tt.mi.AvailableMB, SwapFreeMB: tt.mi.SwapFreeMB,
			}
			if *pe != want {
				t.Errorf("PreflightError = %+v, want %+v", *pe, want)
			}
		})
	}
}

func TestPreflightMessage(t *testing.T) {
	err := resource.Preflight("codex", 512, resource.Estimate{MB: 4096, Source: "initial estimate"},
		resource.MemInfo{AvailableMB: 3000, SwapFreeMB: 0})
	want := "not enough memory to start codex: needs 4608 MB (min_free_memory_mb 512 + estimate 4096 MB, initial estimate), " +
		"3000 MB available (MemAvailable 3000 + SwapFree 0); use --no-preflight to start anyway"
	if err == nil || err.Error() != want {
		t.Errorf("message:\n got %v\nwant %s", err, want)
	}
	err = resource.Preflight("claude-code", 1024, resource.Estimate{MB: 3500, Source: "p95 of 7 runs"},
		resource.MemInfo{AvailableMB: 2000, SwapFreeMB: 1500})
	for _, part := range []string{"claude-code", "needs 4524 MB", "min_free_memory_mb 1024", "estimate 3500 MB, p95 of 7 runs",
		"3500 MB available", "MemAvailable 2000", "SwapFree 1500", "--no-preflight"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("message %v does not say %q", err, part)
		}
	}
}
