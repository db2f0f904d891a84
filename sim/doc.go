// Package sim is the discrete-event engine: cluster and job state, the
// actions a policy may request, their validation, reconfiguration overhead,
// the invariant checker, the summary's metrics and the Recorder the results
// files' records go to. It reads no input file: sim/clusterspec turns a
// --cluster argument into the ClusterSpec NewCluster builds, and
// sim/overheadprofile an --overheads argument into the OverheadProfile
// whose resolved Overhead the engine charges.
//
// # Model
//
// A Cluster is a fixed list of nodes, each of one GPU type, whose GPU slots
// are numbered globally node by node. A running job holds a set of slots that
// must form a uniform grid: one GPU type and the same number of GPUs on each
// of its nodes (estimator.Config). The engine owns the clock, the slot table
// and two queues — running (start order) and pending (arrival/suspension
// order) — whose order policies use for tie-breaking, as the artifact does.
//
// At each scheduling point the engine hands the Policy a read-only View and
// receives Actions (Start, Reallocate, Suspend, Drop). The batch is checked
// on its final state — so a policy may swap two jobs' GPUs in one batch —
// and rejected whole, with an *ActionError naming the policy, the job and
// the GPUs, if any GPU would be held twice, a grid is not uniform or is
// infeasible for the job, or a job is in the wrong state. A policy bug is
// never silently repaired.
//
// # Timing modes
//
// Exact (the default) is event-driven: arrivals, completions, scheduling
// rounds (every RoundLength) and the horizon are events in a heap ordered by
// (time, kind, sequence), with completions before arrivals before rounds at
// equal times. Progress is integrated exactly; a (re)configured job makes no
// progress for the policy's overhead, min(PerGPU·GPUs, Cap); a job completes
// at its exact completion time and its GPUs are free from then on. The
// throughput of a round is the samples processed during it divided by its
// length.
//
// Artifact reproduces the Arena artifact's round-based simulator (ARENA.md
// §6). It reads trace times as the artifact's trace loader does, in whole
// seconds (int(): ArtifactSecond; submission times, deadlines and so T0,
// the first row's); exact timing keeps the decimals. The jobs of chunk k
// (T0+300k < submit ≤ T0+300(k+1)) arrive at round k with the round's
// timer as submission time; at the start of each round
// every running job not in time debt gets exec_time += 300 and remaining =
// iterations − ⌊exec_time/iter_time⌋ (cumulative, so a resize re-values past
// time); jobs with remaining ≤ 0 end (JCT = 300·(end round − submit round));
// after the policy, pending jobs accrue 300 s of queueing, jobs whose slots
// changed pay the overhead out of the round's throughput or, beyond 300 s,
// as a time debt that zeroes their throughput and skips progress updates.
//
// # Faults
//
// Config.Events (cluster events: a node goes down, comes back, is drained
// or reclaimed with a notice, is added) and Config.Checkpoint (interval τ
// of progress time, cost δ to write, restore R) turn on the fault model,
// in exact timing only (artifact timing refuses them: it reproduces the
// artifact's fault-free rounds). Without either, the engine is the
// fault-free one, unchanged: every hook is behind one nil test.
//
// Events are applied in time order, after completions and before arrivals
// and rounds at equal times. A node is available, draining/reclaiming
// (until its notice expires at Time+Notice: it takes no new job, its jobs
// run on) or down; a node whose first event is NodeAdd is down until it.
// The free GPUs of a node not available read Unavailable in the slot
// table, and the engine refuses a start or reallocation onto them (a job
// may keep GPUs it already holds on a draining node). A NodeDown, or a
// notice expiring, interrupts every job holding a GPU on the node: its
// progress falls back to its last save point — the later of the start of
// its current configuration (a start, reallocation or suspension saves its
// state, as they always have) and its last completed checkpoint — and it
// joins the end of the pending queue, listed in View.Interrupted at the
// next decision. Its next start pays the overhead profile's restart cost
// plus R. A running job alternates τ of progress and δ of writing (no
// progress), from its configuration's ready time; it writes no checkpoint
// at its end. With ScheduleOnEvents the policy is also called after
// cluster events.
//
// Result.Faults holds the accounting (summary.json's "faults" section,
// jobs.parquet's fault columns, availability.parquet): progress lost,
// recovery time (restart and restore after interruptions), effective
// training time ratio, goodput, per-cause breakdown. JobSpec.Outcome
// ("failed", "killed") changes nothing of how a job runs: it runs the work
// the trace recorded and is counted apart (jobs_failed, jobs_killed).
//
// # Topology and contention
//
// A ClusterSpec may carry a Topology (topology.go; docs/topology.md): fast
// (NVLink) domains of consecutive nodes, switch tiers whose groups' uplinks
// are oversubscribed, per-GPU bandwidths. In exact timing the engine then
// keeps each running job's place on the uplinks it crosses (contention.go):
// every uplink shares its capacity among its flows, a job communicates at
// its most congested uplink's rate, and the share of its iteration time in
// cross-node collectives (Config.NetworkShare) stretches accordingly. A
// start, reallocation, end, suspension or interruption re-times, at that
// instant, exactly the jobs on the uplinks whose job set changed. Without a
// topology (or in artifact timing) the engine keeps no network state: every
// hook is behind one nil test, and results are the two-tier engine's.
// Result.Network and the summary's network section hold the contention
// slowdowns and per-tier uplink utilisation; View.ContentionSlowdown gives
// a running job's current slowdown.
//
// # Results: the engine and its recorder
//
// The engine keeps the run and the figures the summary is computed from
// (Result's counts, JCT and queueing lists, busy GPU-seconds, the fault
// summary, per-job and per-round totals); the records — the rows of the
// results files — go to a Recorder as they happen: each round's state at
// its start (the digest row) and its window once closed (the timeline
// row), each job's end, each GPU holding once it ends (a start, resize,
// end, suspension, interruption or the horizon closes it), each cluster
// event, and after the run each submitted job's record, in trace order, a
// part of the table at a time (built in one reused buffer, so a recorder
// that streams it never holds the table whole).
// A Recorder is a small interface in the manner of io.Writer or a
// Kubernetes scheduler extension point: a few methods, each a documented
// unit, arguments the engine's and valid during the call only, nothing
// returned — a recorder cannot change the run. The default, ResultRecorder,
// builds Result's Jobs, Timeline, Allocations, Digest and fault records;
// Config.Recorder replaces it (a streaming writer, NopRecorder for the
// summary alone; Tee hands the calls to several), and Result then holds
// the summary figures only: Summarize gives the same summary whatever the
// recorder kept.
//
// # Guarantees
//
// Same inputs ⇒ byte-identical results: nothing depends on map order or the
// wall clock (decision latency is measured but reported apart, in
// Summary.Wallclock). With Config.Check the invariant checker runs after
// every event and fails the run with ErrInvariant on the first violation.
package sim
