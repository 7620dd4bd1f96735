package send

import "io"

// maxText bounds what csa send reads from standard input.
const maxText = 16 << 20

func readAll(r io.Reader) ([]byte, error) { return io.ReadAll(io.LimitReader(r, maxText)) }
