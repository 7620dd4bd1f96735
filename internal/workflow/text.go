package workflow

import "github.com/csa-dev/csa/internal/textfile"

// checkText refuses what cannot be a markdown file, at the first line that
// shows it: bytes that are not UTF-8, and NUL bytes. Random or binary data
// would otherwise read as prose before the first heading.
func checkText(path string, data []byte) error {
	if bad := textfile.Check(data); bad != nil {
		return errorf(Pos{path, bad.Line}, "%s (a workflow is a UTF-8 markdown file)", bad)
	}
	return nil
}
