package workflow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// DefaultMax bounds a FOR that gives no MAX.
const DefaultMax = 10

// MaxBound is the largest MAX a FOR may give.
const MaxBound = 1000

var (
	stepRe    = regexp.MustCompile(`^## Step ([0-9]+):\s*(\S.*)$`)
	forHeadRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\s+IN(?:\s+(.*))?$`)
	maxWordRe = regexp.MustCompile(`(?:^|\s)MAX(?:\s|$)`)
	digitsRe  = regexp.MustCompile(`^[0-9]+$`)
)

// directives are the words a "## " line may begin with; "Step" is the
// step heading.
var directives = []string{"Step", "IF", "ELSE", "ENDIF", "FOR", "ENDFOR", "INCLUDE"}

const knownDirectives = "## Step N: Title, IF cond, ELSE, ENDIF, FOR x IN list [MAX n], ENDFOR, INCLUDE path"

// splitDirective is a "## " line's first word and the rest, trimmed.
func splitDirective(line string) (word, rest string) {
	s := strings.TrimPrefix(line, "## ")
	if i := strings.IndexFunc(s, unicode.IsSpace); i >= 0 {
		return s[:i], strings.TrimSpace(s[i:])
	}
	return s, ""
}

// misspelt says why a "## " line whose word is not a directive is refused.
func misspelt(word, line string) string {
	if strings.HasPrefix(word, "Step") {
		return fmt.Sprintf("malformed step heading %q: want ## Step N: Title", clip(line))
	}
	for _, d := range directives {
		if strings.EqualFold(word, d) {
			return fmt.Sprintf("unknown directive %q: write it ## %s", clip(line), d)
		}
	}
	return fmt.Sprintf("unknown directive %q (known: %s)", clip(line), knownDirectives)
}

// forHead reads what follows "## FOR": the variable, the list and its
// bound. The word MAX is the bound's, wherever it stands: a list ending
// "MAX -1", "MAX" or "MAX 5 more" is refused, never read as list items
// under the default bound.
func forHead(rest string) (name, list string, bound int, err error) {
	m := forHeadRe.FindStringSubmatch(rest)
	if m == nil {
		return "", "", 0, fmt.Errorf("want ## FOR x IN list [MAX n]")
	}
	name, list, bound = m[1], strings.TrimSpace(m[2]), DefaultMax
	switch at := maxWordRe.FindAllStringIndex(list, -1); len(at) {
	case 0:
	case 1:
		n := strings.TrimSpace(list[at[0][1]:])
		list = strings.TrimSpace(list[:at[0][0]])
		if !digitsRe.MatchString(n) {
			return "", "", 0, fmt.Errorf("MAX %q: want a whole number from 1 to %d", n, MaxBound)
		}
		if bound, err = strconv.Atoi(n); err != nil || bound < 1 || bound > MaxBound {
			return "", "", 0, fmt.Errorf("MAX %s: want 1 to %d", n, MaxBound)
		}
	default:
		return "", "", 0, fmt.Errorf("MAX given %d times: want ## FOR x IN list [MAX n]", len(at))
	}
	if list == "" {
		return "", "", 0, fmt.Errorf("no list after IN: want ## FOR x IN list [MAX n]")
	}
	return name, list, bound, nil
}
