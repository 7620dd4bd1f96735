package proc

import (
	"bytes"
	"os"
	"strconv"
)

// pfKthread marks a kernel thread in /proc/PID/stat's flags.
const pfKthread = 0x00200000

// HasTag reports whether pid's environment holds one of tags (such as
// "CSA_SESSION_ID=<id>"). A process in the middle of an execve has no
// environment for a moment (its new memory has none yet): settled is false
// then, and the caller asks again rather than take it for untagged.
func HasTag(pid int, tags []string) (tagged, settled bool) {
	env, settled := environ(pid)
	for _, kv := range bytes.Split(env, []byte{0}) {
		for _, t := range tags {
			if string(kv) == t {
				return true, true
			}
		}
	}
	return false, settled
}

// environ reads pid's environment. An empty one is checked against the
// process's memory layout: env_end is 0 only before an execve has set up
// the new image's stack (or in a kernel thread, which has no memory).
func environ(pid int) (env []byte, settled bool) {
	p := "/proc/" + strconv.Itoa(pid)
	env, err := os.ReadFile(p + "/environ")
	if err != nil || len(env) > 0 {
		return env, true
	}
	b, err := readSmall(p+"/stat", make([]byte, 0, 512))
	if err != nil {
		return nil, true // gone
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	// f[0] is field 3 (state): flags is field 9, env_end field 51.
	if len(f) < 49 {
		return nil, true // a kernel too old to say
	}
	if flags, _ := strconv.ParseUint(string(f[6]), 10, 64); flags&pfKthread != 0 {
		return nil, true
	}
	if string(f[48]) == "0" {
		return nil, false
	}
	// The layout was set when stat was read: what environ says now is the
	// image's own (empty, or an execve that has just finished).
	env, _ = os.ReadFile(p + "/environ")
	return env, true
}
