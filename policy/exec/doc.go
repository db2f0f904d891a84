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
// # Protocol, version 1
//
// Every message is one JSON object on one line, with a "type" field.
//
//  1. arena → policy: {"type":"hello","protocol":1,"timing":"exact",
//     "view":"optimal","cluster":{"name":…,"types":[…],
//     "slots":N,"nodes":[{"gpu":"a100","capacity":4,"first_slot":0},…]}}
//  2. policy → arena: {"type":"hello","protocol":1,"name":"my-fifo"}
//     (a different protocol number ends the run with an error).
//  3. Per decision, arena → policy: {"type":"decide","round":R,"now":T,
//     "round_length":300,"occupant":[job id or -1 per GPU slot],"running":[state…],
//     "pending":[state…],"arrivals":[job…],"ended":[state…]}.
//     A state is the dynamic part of a job: id, status, gpus (slots held),
//     grid ({gpu,nodes,per_node} or null), progress, remaining and total
//     iterations, first_start (−1 before), reconfigs, queue_time. An arrival
//     (sent once, when the job is submitted) adds the static part: name,
//     alias, model, batch, iterations, gpu and gpus requested, submit,
//     deadline (0 = none), user, vc, best (the best-locality grid of its
//     request) and estimates: the estimator's answer for every candidate
//     grid that is feasible, [{gpu,nodes,per_node,throughput,iter_time}], so
//     the policy needs no profile database. Candidate grids: for each GPU
//     type, every GPU count that is a power of two (and the job's own
//     count) up to the type's total, on every uniform shape of whole nodes.
//     A grid not listed is infeasible. Estimates depend only on the job and
//     the grid, so a policy keeps them from the arrival.
//  4. policy → arena: {"type":"actions","round":R,"actions":[{"kind":
//     "start"|"reallocate"|"suspend"|"drop","job":ID,"gpus":[slots],
//     "reason":"…"}]}, or {"type":"error","message":"…"} to stop the run.
//  5. At the end arena sends {"type":"bye"} and closes stdin; the process
//     should exit (it is killed after a grace period).
//
// Errors end the run with a message naming the round and, when there is
// one, the job: a line that is not JSON, a reply of the wrong type or
// round, an unknown action kind or a job not in the decision, the process
// exiting, and no reply within the timeout. The timeout is wall-clock time
// by nature; it is a generous safety net against a hung process and never
// changes a decision — it only ends the run with an error. Whatever the
// process writes to stderr is passed through to arena's stderr.
//
// docs/writing-a-policy.md documents the protocol for policy authors;
// examples/python holds a stdlib-only Python client and two policies.
package exec
