//go:build race

package hub

// raceBuild: the race detector reserves terabytes of address space, so
// nothing built with it runs under RLIMIT_AS.
const raceBuild = true
