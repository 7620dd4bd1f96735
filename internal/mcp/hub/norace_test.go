//go:build !race

package hub

const raceBuild = false
