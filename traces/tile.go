package traces

import (
	"encoding/csv"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/arena-sim/arena/sim/input"

	"github.com/arena-sim/arena/sim"
)

// TileOptions parameterises Tile.
type TileOptions struct {
	// Copies is how many copies of the trace the result holds (≥ 1).
	Copies int
	// Overlap is how many copies are submitted over one span of the
	// original trace: 1 lays the copies end to end (the same load as the
	// original on the same cluster, a trace Copies times as long); 8 offers
	// eight times the load, for a cluster eight times as large. 0 means 1.
	Overlap float64
	// Seed draws each copy's offset within its slot (below).
	Seed uint64
	// Regular drops the random offsets: copy k starts exactly k·W after
	// the first. With Overlap 1 the copies abut, so the offered load is
	// the original's throughout; with random offsets neighbouring copies
	// can overlap (u_k > u_{k+1}) and briefly double it.
	Regular bool
}

// Tile builds a larger trace with the job mix of t: Copies copies of t,
// copy k shifted in time by (k + u_k)·W where W = span/Overlap, span is
// t's first-to-last submission time and u_k is uniform in [0, 1) drawn
// from Seed (0 with Regular). Within a copy the jobs keep their order, gaps, models,
// batches, iterations, GPU requests and deadline budgets (a deadline moves
// with its submission). The result is sorted by submission time (ties:
// copy, then original position), its IDs are the new positions and its job
// names are "<name>#<copy>". It is the scale-up the performance
// benchmarks use; it is not a statistical model of a larger cluster.
func Tile(t *Trace, o TileOptions) (*Trace, error) {
	if err := input.Count("tile copies", int64(o.Copies), 1, nil); err != nil {
		return nil, fmt.Errorf("traces: tile: %w", err)
	}
	// The tiled trace is rows held in memory: copies × jobs is under the
	// rows cap before anything is allocated.
	if err := input.Count("tiled rows (copies × jobs)", input.Product(int64(o.Copies), int64(len(t.Jobs))), 0, input.RowsCap); err != nil {
		return nil, fmt.Errorf("traces: tile: %w", err)
	}
	if o.Overlap == 0 {
		o.Overlap = 1
	}
	if !(o.Overlap > 0) || o.Overlap > float64(o.Copies) {
		return nil, fmt.Errorf("traces: tile: overlap %v: want a number in (0, copies]", o.Overlap)
	}
	if len(t.Jobs) == 0 {
		return nil, fmt.Errorf("%w: nothing to tile in %s", ErrEmpty, t.Name)
	}
	first, last := t.Jobs[0].Submit, t.Jobs[0].Submit
	for _, j := range t.Jobs {
		first, last = min(first, j.Submit), max(last, j.Submit)
	}
	// A one-instant trace still spreads its copies by a round.
	span := max(float64(last-first), 300)
	w := span / o.Overlap
	rng := rand.New(rand.NewPCG(o.Seed, 0x7469_6c65)) // "tile"
	type row struct {
		spec       sim.JobSpec
		copy, orig int
	}
	rows := make([]row, 0, o.Copies*len(t.Jobs))
	for k := 0; k < o.Copies; k++ {
		shift := sim.Time((float64(k) + rng.Float64()) * w)
		if o.Regular {
			shift = sim.Time(float64(k) * w)
		}
		if k == 0 {
			shift = 0 // the first copy keeps the original times
		}
		for i, j := range t.Jobs {
			j.Submit += shift
			if j.Deadline > 0 {
				j.Deadline += shift
			}
			j.Name = j.Name + "#" + strconv.Itoa(k)
			rows = append(rows, row{spec: j, copy: k, orig: i})
		}
	}
	sort.SliceStable(rows, func(a, b int) bool {
		ra, rb := rows[a], rows[b]
		if ra.spec.Submit != rb.spec.Submit {
			return ra.spec.Submit < rb.spec.Submit
		}
		if ra.copy != rb.copy {
			return ra.copy < rb.copy
		}
		return ra.orig < rb.orig
	})
	out := &Trace{Name: fmt.Sprintf("%s-x%d", t.Name, o.Copies), Jobs: make([]sim.JobSpec, len(rows)),
		IterationScale: t.IterationScale, ScaleSource: t.ScaleSource}
	for i, r := range rows {
		r.spec.ID = sim.JobID(i)
		out.Jobs[i] = r.spec
	}
	return out, nil
}

// WriteArenaCSV writes t in the artifact's trace format (the columns
// ReadArenaCSV reads), times in whole seconds when they are whole, after a
// "# iteration_scale: N" line when the trace has a scale.
func WriteArenaCSV(w io.Writer, t *Trace) error {
	if t.IterationScale > 0 {
		if _, err := fmt.Fprintf(w, "# iteration_scale: %d\n", t.IterationScale); err != nil {
			return err
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(arenaColumns); err != nil {
		return err
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, j := range t.Jobs {
		rec := []string{j.Name, num(float64(j.Submit)), strconv.FormatInt(j.Iterations, 10),
			j.Workload.Model.ArtifactName(), num(float64(j.Deadline)), strconv.Itoa(j.Workload.Batch),
			strconv.Itoa(j.GPUs), j.GPU}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
