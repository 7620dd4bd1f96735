package config

import "github.com/pelletier/go-toml/v2/unstable"

// The index maps the keys of a TOML document to their positions. It is only
// built when a file has a problem, to place the error message.

type position struct{ line, col int }

// before reports whether p comes at or before q.
func (p position) before(q position) bool {
	return p.line < q.line || p.line == q.line && p.col <= q.col
}

type entry struct {
	key    string   // dotted key, as rendered by joinKey
	keyPos position // start of the key (the name inside a table header)
	valPos position // start of the value; keyPos for tables
}

// index holds a document's keys and tables in document order. A key may
// appear more than once (arrays of tables).
type index []entry

// buildIndex indexes the keys of data up to the first syntax error.
func buildIndex(data []byte) index {
	var (
		p      unstable.Parser
		ix     index
		prefix []string
	)
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			var pos position
			prefix, pos = keyParts(&p, e.Key(), nil)
			ix = append(ix, entry{key: joinKey(prefix), keyPos: pos, valPos: pos})
		case unstable.KeyValue:
			ix.addKeyValue(&p, prefix, e)
		}
	}
	return ix
}

// addKeyValue indexes kv, the tables its dotted key implies, and the
// contents of an inline-table value.
func (ix *index) addKeyValue(p *unstable.Parser, prefix []string, kv *unstable.Node) {
	parts, start := keyParts(p, kv.Key(), prefix)
	for i := len(prefix) + 1; i < len(parts); i++ {
		*ix = append(*ix, entry{key: joinKey(parts[:i]), keyPos: start, valPos: start})
	}
	v := kv.Value()
	val := start
	if v.Raw.Length > 0 {
		val = shapeStart(p, v.Raw)
	}
	*ix = append(*ix, entry{key: joinKey(parts), keyPos: start, valPos: val})
	if v.Kind == unstable.InlineTable {
		for it := v.Children(); it.Next(); {
			if c := it.Node(); c.Kind == unstable.KeyValue {
				ix.addKeyValue(p, parts, c)
			}
		}
	}
}

// keyParts appends the parts of a key to a copy of prefix and returns them
// with the start of the key.
func keyParts(p *unstable.Parser, it unstable.Iterator, prefix []string) ([]string, position) {
	parts := append([]string(nil), prefix...)
	var start position
	for first := true; it.Next(); first = false {
		n := it.Node()
		parts = append(parts, string(n.Data))
		if first {
			start = shapeStart(p, n.Raw)
		}
	}
	return parts, start
}

func shapeStart(p *unstable.Parser, r unstable.Range) position {
	s := p.Shape(r).Start
	return position{s.Line, s.Column}
}

// find returns the first entry for key.
func (ix index) find(key string) (entry, bool) {
	for _, e := range ix {
		if e.key == key {
			return e, true
		}
	}
	return entry{}, false
}

// keyAt returns the key whose value starts at pos or, failing that, the
// last key that starts at or before pos; "" if none.
func (ix index) keyAt(pos position) string {
	key := ""
	for _, e := range ix {
		if e.valPos == pos {
			return e.key
		}
		if e.keyPos.before(pos) {
			key = e.key
		}
	}
	return key
}
