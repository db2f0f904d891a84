// Package outdir writes results to disk so that a reader never sees a
// half-written result, two writers never trample each other, and nothing
// arena did not create is removed or overwritten:
//
//   - WriteFile writes a file under a temporary name next to it and renames
//     it into place, so the file is either the old one or the new one. It
//     replaces only a regular file: a symbolic link, a FIFO or a directory
//     at the path is refused.
//   - ReplaceDir builds a whole directory under a temporary sibling name and
//     swaps it in (renameat2 RENAME_EXCHANGE on Linux, two renames
//     elsewhere), so a results directory is all-new or all-old even when the
//     disk fills up or the process is killed mid-write. It lists what it
//     wrote in the directory's manifest (.arena-files) and replaces a
//     directory only when the directory has that manifest and everything
//     in it is arena's, so a file a user put beside the results, or a
//     directory of the user's that happens to sit at the path, is never
//     deleted; a symbolic link at the path, or inside it, is refused.
//   - Every temporary is a directory named ".arena-tmp-<base>-<16 hex>"
//     (".arena-old-…" for replaced content) holding arena's provisional
//     manifest from the moment it exists (a file being written lives
//     inside it; a kill at that very moment leaves the manifest empty,
//     and nothing else). The final manifest is written beside it and
//     renamed over it, so a manifest is never cut short beside results. Clean and CleanFor remove only entries of exactly that
//     shape that are such directories (the manifest and regular files
//     only), one file at a time: a user's dot-file, a directory whose name
//     merely contains a marker, a link or a FIFO of the same shape stays.
//   - Lock takes an flock on an output directory, so a second sweep on the
//     same OUT fails with "OUT is in use by pid N" instead of deleting the
//     first one's temporary files. The lock file is opened only as a
//     regular file, never through a link (O_NOFOLLOW).
//   - Clean removes the temporaries an interrupted writer left behind; call
//     it only while holding the lock.
//   - Every temporary is registered until committed, and every commit (the
//     rename or swap that makes a write visible) holds one lock: Interrupt
//     refuses all later commits (a signal: nothing is put in place after
//     it), and RemoveTemporaries removes what a stopped command left.
//   - ReplaceDirs replaces several directories all or nothing: all are
//     written before any is swapped in, and a failed swap undoes the
//     others (simulate --out with several policies).
//   - The manifest records each file's size and SHA-256 under a version
//     header, and is parsed strictly (a converted line ending is an error
//     naming the manifest and the line, ManifestError). Verify checks the
//     files against it, so a run truncated after it was written is not
//     taken as complete; it opens only regular files (OpenRegular: Lstat,
//     O_NOFOLLOW, O_NONBLOCK, the same file) and reads none past its
//     recorded size + 1, so a link to a device or a FIFO in a results
//     directory is an error, not a hang.
//   - MkdirAll names a symbolic link on the way to an output directory that
//     leads nowhere (dangling, looping) and what it points to.
//
// Files and directories are created with modes 0666 and 0777 filtered by
// the process umask (0644 and 0755 under the usual umask 022), so shards
// written by different users of a shared directory stay readable.
package outdir
