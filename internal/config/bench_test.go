package config

import "testing"

// BenchmarkLoad loads a small global and a small project file, as every
// `csa run` does.
func BenchmarkLoad(b *testing.B) {
	g, p := files(b,
		"max_recursion_depth = 4\n[defaults]\ntool = \"codex\"\ntimeout = \"30m\"\n"+
			"[tools.codex]\nmodel = \"gpt-5\"\n[tools.claude-code]\npath = \"/usr/local/bin/claude\"\n",
		"[defaults]\nidle_timeout = \"5m\"\n[tools.codex]\nmodel = \"o3\"\nenv = { CODEX_HOME = \"/tmp/x\" }\n[gc]\nmax_age_days = 7\n")
	for b.Loop() {
		if _, err := LoadFiles(g, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadNoFiles is the common case of a machine without any
// configuration file: no decoding at all.
func BenchmarkLoadNoFiles(b *testing.B) {
	g, p := files(b, "", "")
	for b.Loop() {
		if _, err := LoadFiles(g, p); err != nil {
			b.Fatal(err)
		}
	}
}
