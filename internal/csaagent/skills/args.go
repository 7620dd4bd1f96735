package skills

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// escaped stands in for a "\$" the body escapes until the substitutions
// are done, as Claude Code's own marker does.
const escaped = "\uFFFF"

// argumentIndex is $ARGUMENTS[N].
var argumentIndex = regexp.MustCompile(`\$ARGUMENTS\[(\d+)\]`)

// substituteArgs is Claude Code's substitution of a command's arguments,
// in its order: named arguments ($name, front matter `arguments`), then
// $ARGUMENTS[N] and $N (the Nth word, from 0: $0 is the first), then
// $ARGUMENTS (all of args). "\$" before any of them keeps it as written,
// without the backslash. Arguments given to a body that uses none are
// appended as "ARGUMENTS: args". What is substituted is quoted
// (quoteArgs) so that arguments never run as shell lines.
func substituteArgs(body, args string, names []string) string {
	words := Words(args)
	clean := func(s string) string { return quoteArgs(strings.ReplaceAll(s, escaped, "")) }
	word := func(i int) string {
		if i < len(words) {
			return clean(words[i])
		}
		return ""
	}
	var byLength []argName
	for i, n := range names {
		if n != "" {
			byLength = append(byLength, argName{n, i})
		}
	}
	sort.SliceStable(byLength, func(a, b int) bool { return len(byLength[a].name) > len(byLength[b].name) })

	body, hadEscape := escapeDollars(body, byLength)
	used := false
	for _, n := range byLength {
		body = replaceVar(body, n.name, func() string { used = true; return word(n.i) })
	}
	body = argumentIndex.ReplaceAllStringFunc(body, func(m string) string {
		n, _ := strconv.Atoi(argumentIndex.FindStringSubmatch(m)[1])
		used = true
		return word(n)
	})
	body = replaceNumbered(body, func(n int) string { used = true; return word(n) })
	if strings.Contains(body, "$ARGUMENTS") {
		used = true
		body = strings.ReplaceAll(body, "$ARGUMENTS", clean(args))
	}
	if !used && args != "" {
		body += "\nARGUMENTS: " + clean(args)
	}
	if hadEscape {
		body = strings.ReplaceAll(body, escaped, "$")
	}
	return body
}

// argName is a named argument and its word's index.
type argName struct {
	name string
	i    int
}

// escapeDollars turns "\$" before a digit, ARGUMENTS or a named argument
// (not itself after a backslash) into the escaped marker.
func escapeDollars(body string, names []argName) (string, bool) {
	var b strings.Builder
	found := false
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) && body[i+1] == '$' && (i == 0 || body[i-1] != '\\') && escapable(body[i+2:], names) {
			b.WriteString(escaped)
			i++
			found = true
			continue
		}
		b.WriteByte(body[i])
	}
	return b.String(), found
}

func escapable(rest string, names []argName) bool {
	if rest != "" && rest[0] >= '0' && rest[0] <= '9' || strings.HasPrefix(rest, "ARGUMENTS") {
		return true
	}
	for _, n := range names {
		if strings.HasPrefix(rest, n.name) && !nameGoesOn(rest[len(n.name):]) {
			return true
		}
	}
	return false
}

// nameGoesOn: what follows "$name" continues it (a word character or an
// index), so it is not that name.
func nameGoesOn(rest string) bool {
	return rest != "" && (rest[0] == '[' || isWord(rest[0]))
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// replaceVar replaces "$name" not followed by a word character or "[".
func replaceVar(body, name string, value func() string) string {
	var b strings.Builder
	pat := "$" + name
	for {
		i := strings.Index(body, pat)
		if i < 0 {
			break
		}
		b.WriteString(body[:i])
		rest := body[i+len(pat):]
		if nameGoesOn(rest) {
			b.WriteString(pat)
		} else {
			b.WriteString(value())
		}
		body = rest
	}
	b.WriteString(body)
	return b.String()
}

// replaceNumbered replaces "$N" (any number of digits) not followed by a
// word character.
func replaceNumbered(body string, value func(int) string) string {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] != '$' {
			b.WriteByte(body[i])
			continue
		}
		j := i + 1
		for j < len(body) && body[j] >= '0' && body[j] <= '9' {
			j++
		}
		if j == i+1 || j < len(body) && isWord(body[j]) {
			b.WriteByte('$')
			continue
		}
		n, err := strconv.Atoi(body[i+1 : j])
		if err != nil {
			n = int(^uint(0) >> 1) // too many digits: no such word
		}
		b.WriteString(value(n))
		i = j - 1
	}
	return b.String()
}
