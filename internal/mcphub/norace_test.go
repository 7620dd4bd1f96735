//go:build !race

package mcphub

const raceBuild = false
