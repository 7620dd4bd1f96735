package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Template returns a project configuration file for `csa init`: every key
// commented out with its default value and a one-line explanation, so that
// the file changes nothing until a line is uncommented. It loads without
// error, and so does the file with every setting uncommented.
func Template() string {
	def := (&Loaded{Config: Default()}).Map()
	var b strings.Builder
	line := func(s string) { b.WriteString(s + "\n") }
	set := func(key, help string) {
		if help != "" {
			line("# " + help)
		}
		v, _ := lookup(def, strings.Split(key, "."))
		line("# " + key[strings.LastIndexByte(key, '.')+1:] + " = " + tomlValue(v))
	}

	line("# csa project configuration (.csa/config.toml).")
	line("#")
	line("# Settings here override the global file (~/.config/csa/config.toml):")
	line("# tables merge key by key, arrays are replaced whole. Every setting below")
	line("# is commented out and shows its default; uncomment a line to change it.")
	line("")
	set("max_recursion_depth", fmt.Sprintf("How deep csa runs may nest when agents start csa (%d-%d).", MinRecursionDepth, MaxRecursionDepth))
	line("")
	line("[defaults]")
	set("defaults.tool", `Tool for "csa run" without --tool: `+strings.Join(ToolNames(), ", ")+`; "" for none.`)
	set("defaults.timeout", `Limit on a run's total time, e.g. "30m"; "" for none.`)
	set("defaults.idle_timeout", `Limit on a run's time without output, e.g. "5m"; "" for none.`)
	set("defaults.kill_grace", "Time between SIGTERM and SIGKILL when a run is stopped.")
	for i, t := range Tools() {
		line("")
		line("[tools." + t.Name + "]")
		help := func(s string) string {
			if i > 0 {
				return ""
			}
			return s
		}
		k := "tools." + t.Name + "."
		set(k+"path", help("Program to run: a name looked up on PATH, or a path."))
		set(k+"enabled", help("Whether csa may run this tool."))
		set(k+"model", help(`Model to ask for; "" for the tool's own default.`))
		set(k+"effort", help(`Thinking or reasoning effort (e.g. "low", "high"); "" for the tool's own default.`))
		set(k+"yolo", help("Let the agent act without asking for approval (headless runs need it)."))
		set(k+"env", help(`Extra environment variables for the program, e.g. { FOO = "bar" }.`))
	}
	line("")
	line("[gc]")
	set("gc.max_age_days", `Age in days after which "csa gc" removes a session.`)
	line("")
	line("[output]")
	set("output.max_log_bytes", "Cap on the recorded output log of one session, in bytes (1 GiB).")
	return b.String()
}

// tomlValue formats a value of Map as a TOML value.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case map[string]any:
		if len(v) == 0 {
			return "{}"
		}
	}
	return fmt.Sprint(v)
}
