//go:build !unix

package outdir

// No O_NOFOLLOW or O_NONBLOCK here: OpenRegular's Lstat and same-file
// checks remain.
const (
	oNoFollow = 0
	oNonblock = 0
)
