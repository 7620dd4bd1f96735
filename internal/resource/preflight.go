package resource

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// MemInfo is the memory a new run can count on, in MB, from /proc/meminfo.
type MemInfo struct {
	AvailableMB int64 // MemAvailable: reclaimable without swapping
	SwapFreeMB  int64 // SwapFree; 0 when there is no swap
}

// ReadMemInfo reads MemAvailable and SwapFree from a /proc/meminfo-format
// file (path is usually "/proc/meminfo"). Values are in kB there and are
// rounded down to MB. MemAvailable is required (Linux 3.14 and later have
// it); a missing SwapFree counts as no swap.
func ReadMemInfo(path string) (MemInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return MemInfo{}, fmt.Errorf("read memory info: %w", err)
	}
	var mi MemInfo
	var haveAvail bool
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		var dst *int64
		switch {
		case bytes.HasPrefix(line, []byte("MemAvailable:")):
			dst, haveAvail = &mi.AvailableMB, true
		case bytes.HasPrefix(line, []byte("SwapFree:")):
			dst = &mi.SwapFreeMB
		default:
			continue
		}
		kb, err := preflightKB(line)
		if err != nil {
			return MemInfo{}, fmt.Errorf("read memory info %s: %w", path, err)
		}
		*dst = kb / 1024
	}
	if !haveAvail {
		return MemInfo{}, fmt.Errorf("read memory info %s: no MemAvailable line", path)
	}
	return mi, nil
}

// preflightKB parses "Name:   1234 kB".
func preflightKB(line []byte) (int64, error) {
	name, rest, _ := bytes.Cut(line, []byte(":"))
	f := bytes.Fields(rest)
	if len(f) != 2 || string(f[1]) != "kB" {
		return 0, fmt.Errorf("%s: want \"<number> kB\", got %q", name, bytes.TrimSpace(rest))
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s: bad number %q", name, f[0])
	}
	return n, nil
}

// PreflightError says a run was refused because the machine lacks the
// memory its tool is expected to need; it carries every number that went
// into the decision.
type PreflightError struct {
	Tool        string
	RequiredMB  int64 // MinFreeMB + Estimate.MB
	AvailableMB int64 // MemAvailableMB + SwapFreeMB
	MinFreeMB   int64
	Estimate    Estimate

	MemAvailableMB int64
	SwapFreeMB     int64
}

func (e *PreflightError) Error() string {
	return fmt.Sprintf("not enough memory to start %s: needs %d MB (min_free_memory_mb %d + estimate %s), "+
		"%d MB available (MemAvailable %d + SwapFree %d); use --no-preflight to start anyway",
		e.Tool, e.RequiredMB, e.MinFreeMB, e.Estimate, e.AvailableMB, e.MemAvailableMB, e.SwapFreeMB)
}

// Preflight decides whether tool may start: it needs minFreeMB + est.MB,
// and MemAvailable + SwapFree must be at least that. It returns nil or a
// *PreflightError.
func Preflight(tool string, minFreeMB int64, est Estimate, mi MemInfo) error {
	required := minFreeMB + est.MB
	available := mi.AvailableMB + mi.SwapFreeMB
	if available >= required {
		return nil
	}
	return &PreflightError{
		Tool: tool, RequiredMB: required, AvailableMB: available, MinFreeMB: minFreeMB, Estimate: est,
		MemAvailableMB: mi.AvailableMB, SwapFreeMB: mi.SwapFreeMB,
	}
}
