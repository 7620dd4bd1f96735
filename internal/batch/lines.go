package batch

import (
	"bytes"
	"sort"
)

// lineIndex gives the line of a byte offset of one file from the offsets
// of its newlines. Counting the newlines from the start for each task made
// reading a file of many tasks quadratic (a 9 MB batch took 40 s).
type lineIndex []int

func newLineIndex(data []byte) lineIndex {
	x := make(lineIndex, 0, bytes.Count(data, []byte("\n")))
	for off := 0; ; {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return x
		}
		x = append(x, off+i)
		off += i + 1
	}
}

// at is the 1-based line of byte offset off.
func (x lineIndex) at(off int) int {
	return sort.SearchInts(x, off) + 1
}
