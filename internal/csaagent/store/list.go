package store

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/csa-dev/csa/internal/csaagent/llm"
)

// Summary describes a stored session without loading it whole.
type Summary struct {
	ID      string
	Model   string
	Cwd     string
	Preview string // the first user message, shortened
	Created time.Time
	Updated time.Time // the file's last write
}

// previewLen bounds Summary.Preview, in runes.
const previewLen = 120

// List summarises the sessions under dir, the latest updated first. A
// missing dir has none; an unreadable file is left out.
func List(dir string) ([]Summary, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() {
			continue
		}
		if s, err := Summarise(dir, id); err == nil {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// Summarise reads session id's first lines: its meta record and its first
// user message.
func Summarise(dir, id string) (Summary, error) {
	if err := validID(id); err != nil {
		return Summary{}, err
	}
	f, err := os.Open(Path(dir, id))
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	s := Summary{ID: id}
	if fi, err := f.Stat(); err == nil {
		s.Updated = fi.ModTime()
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	for sc.Scan() && s.Preview == "" {
		var r Record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Kind == KindMeta:
			s.Model, s.Cwd, s.Created = r.Model, r.Cwd, r.Time
		case r.Kind == KindMessage && r.Message != nil && r.Message.Role == llm.User:
			s.Preview = shorten(r.Message.Text())
		}
	}
	return s, sc.Err()
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > previewLen {
		return string(r[:previewLen-1]) + "…"
	}
	return s
}
