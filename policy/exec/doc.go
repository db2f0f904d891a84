// Package exec is a sim.Policy that delegates every decision to a child
// process speaking a JSON-lines protocol on its stdin and stdout, so that a
// policy can be written in any language. `--policy 'exec:python3 p.py'`
// selects it from the command line and from experiment specs.
//
// The engine knows nothing of it: the adapter turns each sim.View into one
// JSON line, reads one JSON line of actions back, checks their form and
// hands them to the engine, which validates them as it does any policy's.
// The process is started once per run (when the policy is built), so it may
// keep state between decisions, and is closed at the end of the run.
//
// # Versions
//
// arena's hello says "protocol":1 (what every client understands) and
// "protocols":[1,2]; the client's hello picks one. Version 1 sends the
// whole View at every decision (objects; an arrival's "iterations" is the
// trace's count). Version 2 sends the whole state once (a "full" decide)
// and then only what changed since the previous decide, numbered by "seq":
// runs of slots with a new occupant, queue removals and appends, the
// states of queued jobs that changed, arrivals, ended and dropped ("gone")
// jobs; job states and new jobs are JSON arrays in the layouts the hello
// lists (state_fields, job_fields), iteration counts on the engine's
// scale; estimates go in tables shared by jobs of one workload and
// request. The adapter keeps its own record of what it last sent
// (deltaState) and compares the View with it, so nothing unchanged is
// serialised (the slot table only where a job's GPUs changed: it is exactly
// the running jobs' GPUs); a running job's remaining iterations and a pending job's
// queue time, which change with the clock, are compared only for a client
// that asked for them ("live"). The full decide and every CheckEvery-th
// carry CRC-32 checksums of the record; a client whose mirror disagrees,
// or that saw a seq gap, replies "resync" and gets the full state again.
// A client may also promise "idle_when_quiet" (sim.QuietRounds), and arena
// then skips decisions without arrivals or ended jobs; and, in version 2,
// "idle_when_nothing_waits", and the adapter then does not send decisions
// without arrivals whose pending queue is empty (their ended jobs and
// freed slots go with the next decide). Replies are read by a
// hand-written parser when in their plain form, by encoding/json otherwise.
//
// # Messages
//
//  1. arena → policy: {"type":"hello","protocol":1,"protocols":[1,2],
//     "state_fields":[…],"job_fields":[…],"timing":"exact","view":"optimal",
//     "cluster":{"name":…,"types":[…],"slots":N,"nodes":[{"gpu":"a100",
//     "capacity":4,"first_slot":0},…]}}
//  2. policy → arena: {"type":"hello","protocol":2,"name":"my-fifo",
//     "live":[],"idle_when_quiet":true,"idle_when_nothing_waits":true} (an
//     unknown version ends the run).
//  3. Per decision, arena → policy: a decide (version 1 or 2 as above).
//     Estimates: for every candidate grid that is feasible — per GPU type,
//     every GPU count that is a power of two (and the job's own count) up
//     to the type's total, on every uniform shape of whole nodes — the
//     estimator's throughput and iteration time in the entry's view, so
//     the policy needs no profile database.
//  4. policy → arena: {"type":"actions","round":R,"actions":[{"kind":
//     "start"|"reallocate"|"suspend"|"drop","job":ID,"gpus":[slots],
//     "reason":"…"}]}, {"type":"error","message":"…"} to stop the run, or
//     (version 2) {"type":"resync","round":R}.
//  5. At the end arena sends {"type":"bye"} and closes stdin; the process
//     should exit (it is killed after a grace period).
//
// Errors end the run with a message naming the round and, when there is
// one, the job (its protocol id, alias and trace name): a line that is not
// JSON or is over the cap, a reply of the wrong type or round, an unknown
// action kind or a job not in the decision, the process exiting, and no
// reply (or no reading of arena's message) within the timeout. The timeout is wall-clock time by nature; it is a generous
// safety net against a hung process and never changes a decision — it only
// ends the run with an error. Whatever the process writes to stderr is
// passed through to arena's stderr.
//
// # Process
//
// The child runs in its own process group, on pipes arena owns
// (process.go). Every read and every write has the timeout as its
// deadline; a reply line is at most Config.MaxLine bytes (option max_line,
// 64 MiB); the run's context (Ctrl-C, SIGTERM, a sweep's --run-timeout)
// ends a wait at once. The whole group is killed on a timeout, an error,
// an interrupt, and as soon as the child exits, so a grandchild neither
// outlives it nor keeps arena waiting on a pipe it holds; a child that
// exits mid-run is reported at once with its exit status and the tail of
// its stderr. docs/trust.md lists the limits.
//
// docs/writing-a-policy.md documents the protocol for policy authors;
// python/ is the Python client package (arena_policy) and examples/python
// holds two policies that use it; testdata/v1 keeps the version-1 client.
package exec
