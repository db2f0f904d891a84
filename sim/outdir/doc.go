// Package outdir writes results to disk so that a reader never sees a
// half-written result and two writers never trample each other:
//
//   - WriteFile writes a file under a temporary name next to it and renames
//     it into place, so the file is either the old one or the new one.
//   - ReplaceDir builds a whole directory under a temporary sibling name and
//     swaps it in (renameat2 RENAME_EXCHANGE on Linux, two renames
//     elsewhere), so a results directory is all-new or all-old even when the
//     disk fills up or the process is killed mid-write. It lists what it
//     wrote in the directory's manifest (.arena-files) and replaces a
//     directory only when everything in it is arena's, so a file a user put
//     beside the results is never deleted.
//   - Lock takes an flock on an output directory, so a second sweep on the
//     same OUT fails with "OUT is in use by pid N" instead of deleting the
//     first one's temporary files.
//   - Clean removes the temporaries an interrupted writer left behind; call
//     it only while holding the lock.
//   - Every temporary is registered until committed, and every commit (the
//     rename or swap that makes a write visible) holds one lock: Interrupt
//     refuses all later commits (a signal: nothing is put in place after
//     it), and RemoveTemporaries removes what a stopped command left.
//   - ReplaceDirs replaces several directories all or nothing: all are
//     written before any is swapped in, and a failed swap undoes the
//     others (simulate --out with several policies).
//   - The manifest records each file's size and SHA-256; Verify checks
//     them, so a run truncated after it was written is not taken as
//     complete.
//
// Files and directories are created with modes 0666 and 0777 filtered by
// the process umask (0644 and 0755 under the usual umask 022), so shards
// written by different users of a shared directory stay readable.
package outdir
