package sim

import "slices"

// jobQueue is one of the engine's ordered job queues (the pending queue,
// the running queue): jobs join at the end and leave from anywhere, and
// the others keep their order.
//
// Each job in the queue holds a ticket (a field of its Job, ticketOf),
// drawn from a counter when it joined, and seq keeps the tickets next to
// the jobs: seq is increasing, so a job's place is a binary search of seq
// for its ticket, and nothing is written to the other jobs when one
// leaves. A job that leaves leaves a nil behind (removed; the positions
// are in gone); compact squeezes them out by moving whole runs of jobs
// and tickets with copy, without reading any of the jobs it moves. The
// queue is read (View.Pending, View.Running, the engine's walks) only
// when it holds no nil, which the engine keeps by compacting at the end
// of each batch of actions and before it reads the running queue after
// completions.
//
// Before, each job kept its position, and every compaction rewrote the
// position of every job behind the first one removed: a write into each
// of those jobs' records, scattered in memory, which at a million jobs
// made the compactions the largest part of a preemptive policy's run.
type jobQueue struct {
	jobs []*Job
	seq  []int32
	next int32
	// gone are the positions of the jobs removed since the last compact,
	// in the order removed.
	gone []int
	// ticketOf returns the job's ticket field for this queue.
	ticketOf func(*Job) *int32
}

// maxTicket bounds the tickets: at it, push renumbers the queue from 0.
const maxTicket = 1 << 30

// push appends j to the queue's end.
func (q *jobQueue) push(j *Job) {
	if q.next >= maxTicket {
		q.renumber()
	}
	*q.ticketOf(j) = q.next
	q.jobs = append(q.jobs, j)
	q.seq = append(q.seq, q.next)
	q.next++
}

// renumber compacts the queue and gives its jobs the tickets 0, 1, ….
func (q *jobQueue) renumber() {
	q.compact()
	for i, j := range q.jobs {
		*q.ticketOf(j) = int32(i)
		q.seq[i] = int32(i)
	}
	q.next = int32(len(q.jobs))
}

// find returns j's position in the queue, -1 if it is not in it.
func (q *jobQueue) find(j *Job) int {
	if p, ok := slices.BinarySearch(q.seq, *q.ticketOf(j)); ok && q.jobs[p] == j {
		return p
	}
	// Not where its ticket says (no caller should get here).
	return slices.Index(q.jobs, j)
}

// remove takes j off the queue, leaving a nil until compact, and reports
// whether j was in it.
func (q *jobQueue) remove(j *Job) bool {
	p := q.find(j)
	if p < 0 {
		return false
	}
	q.jobs[p] = nil
	q.gone = append(q.gone, p)
	return true
}

// removed reports whether jobs were removed since the last compact.
func (q *jobQueue) removed() bool { return len(q.gone) > 0 }

// compact squeezes out the removed jobs, keeping the others' order. Jobs
// removed from the head leave by reslicing; each run of jobs after the
// first removed one below the head moves with one copy.
func (q *jobQueue) compact() {
	g := q.gone
	if len(g) == 0 {
		return
	}
	slices.Sort(g)
	k := 0
	for k < len(g) && g[k] == k {
		k++
	}
	q.jobs, q.seq, g = q.jobs[k:], q.seq[k:], g[k:]
	if len(g) > 0 {
		w := g[0] - k
		for i, p := range g {
			p -= k
			end := len(q.jobs)
			if i+1 < len(g) {
				end = g[i+1] - k
			}
			copy(q.seq[w:], q.seq[p+1:end])
			w += copy(q.jobs[w:], q.jobs[p+1:end])
		}
		clear(q.jobs[w:])
		q.jobs, q.seq = q.jobs[:w], q.seq[:w]
	}
	q.gone = q.gone[:0]
}

// filter keeps the jobs for which keep is true, in order (the queue must
// hold no removed job).
func (q *jobQueue) filter(keep func(*Job) bool) {
	w := 0
	for i, j := range q.jobs {
		if keep(j) {
			q.jobs[w], q.seq[w] = j, q.seq[i]
			w++
		}
	}
	clear(q.jobs[w:])
	q.jobs, q.seq = q.jobs[:w], q.seq[:w]
}
