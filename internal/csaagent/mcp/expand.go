package mcp

import (
	"regexp"
	"sort"
	"strings"
)

var variable = regexp.MustCompile(`\$\{([^}]+)\}`)

// expand replaces ${VAR} and ${VAR:-default} in s as Claude Code does in
// its MCP files: an unset variable with a default takes the default; one
// without is left as written and added to missing.
func expand(s string, getenv func(string) string, missing *[]string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return variable.ReplaceAllStringFunc(s, func(m string) string {
		name, def, hasDef := strings.Cut(m[2:len(m)-1], ":-")
		if v, ok := lookupEnv(getenv, name); ok {
			return v
		}
		if hasDef {
			return def
		}
		*missing = append(*missing, name)
		return m
	})
}

// lookupEnv treats an empty value as unset: getenv cannot tell them apart,
// and Claude Code uses the default for both.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	if getenv == nil {
		return "", false
	}
	v := getenv(name)
	return v, v != ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
