package estimator

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

//go:embed data/prof_database_optimal.json
var profileDBJSON []byte

//go:embed data/dp_mem.json
var dpMemJSON []byte

// The artifact's memory rules (ARENA.md §4, §9).
const (
	// maxIterTime is the scheduling interval; a stored iteration time above
	// it makes the config infeasible.
	maxIterTime = 300.0
	// xlaMemoryFraction is the share of GPU memory XLA pre-allocates.
	xlaMemoryFraction = 0.8
	// dpMemorySafety multiplies the stored DP memory need.
	dpMemorySafety = 1.2
	// Fallback penalties applied in the optimal view.
	relaxedLocalityFactor = 0.9
	largerSizeFactor      = 1.8
	// throughputDigits is the artifact's PREC.
	throughputDigits = 3
)

// ProfileDB is the artifact's measured profile database: for each
// (model, size, batch) the Alpa-optimal iteration time of each
// (GPU type, nodes, GPUs per node) the authors ran, plus the data-parallel
// memory table. It is immutable after Load and safe for concurrent use.
type ProfileDB struct {
	// times maps "bert_2.6B_256" → "2_a40_2_n_2_d" → seconds (−1 = OOM).
	times map[string]map[string]float64
	// dpMem maps "bert_2.6B_256" → GB needed by a pure DP replica on
	// 1, 2, 4, 8, 16 GPUs (−1 = cannot fit, 0 = not recorded, passes).
	dpMem map[string][]float64
	// gpus are the GPU types some entry of times measures.
	gpus map[string]bool

	// cache memoises answers; policies ask the same questions millions of
	// times per run, and concurrent runs share the database. Keys pack the
	// query into 64 bits (see packKey).
	cache estimateCache
}

// estimateCache is a read-mostly memo shared by concurrent runs: lookups
// read an immutable map through an atomic pointer (no lock, no shared
// counter to bounce between cores, unlike an RWMutex's reader count); new
// answers go to a locked map that is merged into a fresh immutable map
// once it holds a quarter as many entries as the published one (at once
// while that is small), so publishing costs amortised O(1) per entry. The
// distinct questions of a run number in the thousands.
type estimateCache struct {
	ro    atomic.Pointer[map[uint64]Estimate]
	mu    sync.Mutex
	dirty map[uint64]Estimate
}

func (c *estimateCache) get(key uint64) (Estimate, bool) {
	if m := c.ro.Load(); m != nil {
		if e, ok := (*m)[key]; ok {
			return e, true
		}
	}
	c.mu.Lock()
	e, ok := c.dirty[key]
	c.mu.Unlock()
	return e, ok
}

func (c *estimateCache) put(key uint64, e Estimate) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirty == nil {
		c.dirty = map[uint64]Estimate{}
	}
	c.dirty[key] = e
	old := c.ro.Load()
	n := 0
	if old != nil {
		n = len(*old)
	}
	if len(c.dirty) < max(1, n/4) {
		return
	}
	merged := make(map[uint64]Estimate, n+len(c.dirty))
	if old != nil {
		for k, v := range *old {
			merged[k] = v
		}
	}
	for k, v := range c.dirty {
		merged[k] = v
	}
	c.ro.Store(&merged)
	c.dirty = map[uint64]Estimate{}
}

// EstimateCache is the profile database's memo (read-mostly, shared by
// concurrent runs) for another estimator's answers (analytic.Hybrid),
// keyed by a query packed as WideKey packs it. The zero value is empty.
type EstimateCache struct{ c estimateCache }

// Get returns the answer stored under key.
func (c *EstimateCache) Get(key uint64) (Estimate, bool) { return c.c.get(key) }

// Put stores e under key.
func (c *EstimateCache) Put(key uint64, e Estimate) { c.c.put(key, e) }

// WideKey packs a query into 64 bits as packKey does but with 14 bits of
// nodes (a locality of up to 16,383 nodes, as on the largest clusters) and
// 6 of GPUs per node, or reports false if a field is out of range.
func WideKey(w Workload, c Config, v View) (uint64, bool) { return pack(w, c, v, 14, 6) }

// gpuIndex maps catalog names to a small integer for cache keys.
var gpuIndex = func() map[string]uint64 {
	m := map[string]uint64{}
	for i, g := range catalog {
		m[g.Name] = uint64(i + 1)
	}
	return m
}()

// packKey packs a query into 64 bits, or reports false if a field is out
// of the packed range (such queries are answered uncached).
func packKey(w Workload, c Config, v View) (uint64, bool) { return pack(w, c, v, 10, 10) }

// pack lays a query out in 64 bits: model family (2 bits), size index
// (6), batch (24), GPU type (6), nodes (nodeBits), GPUs per node
// (perNodeBits), view (2); nodeBits + perNodeBits ≤ 20. It reports false
// when a field does not fit its bits, so distinct queries never share a key.
func pack(w Workload, c Config, v View, nodeBits, perNodeBits uint) (uint64, bool) {
	g := gpuIndex[c.GPU]
	if g == 0 || w.Batch <= 0 || w.Batch >= 1<<24 || c.Nodes <= 0 || c.Nodes >= 1<<nodeBits ||
		c.PerNode <= 0 || c.PerNode >= 1<<perNodeBits || w.Model.SizeIndex < 0 || w.Model.SizeIndex >= 1<<6 ||
		w.Model.Family < 0 || w.Model.Family >= 4 || v < 0 || v >= 4 {
		return 0, false
	}
	k := uint64(w.Model.Family)
	k = k<<6 | uint64(w.Model.SizeIndex)
	k = k<<24 | uint64(w.Batch)
	k = k<<6 | g
	k = k<<nodeBits | uint64(c.Nodes)
	k = k<<perNodeBits | uint64(c.PerNode)
	k = k<<2 | uint64(v)
	return k, true
}

var (
	defaultDBOnce sync.Once
	defaultDB     *ProfileDB
	defaultDBErr  error
)

// DefaultProfileDB returns the embedded artifact database (loaded once).
func DefaultProfileDB() (*ProfileDB, error) {
	defaultDBOnce.Do(func() {
		defaultDB, defaultDBErr = LoadProfileDB(profileDBJSON, dpMemJSON)
	})
	return defaultDB, defaultDBErr
}

// LoadProfileDB parses the artifact's prof_database JSON
// ({"optimal": {key: {config: seconds}}}) and dp_mem.json ([{key: [GB×5]}]).
func LoadProfileDB(profile, dpMem []byte) (*ProfileDB, error) {
	var p struct {
		Optimal map[string]map[string]float64 `json:"optimal"`
	}
	if err := json.Unmarshal(profile, &p); err != nil {
		return nil, fmt.Errorf("estimator: profile database: %w", err)
	}
	if len(p.Optimal) == 0 {
		return nil, fmt.Errorf("estimator: profile database: no \"optimal\" entries")
	}
	var m []map[string][]float64
	if err := json.Unmarshal(dpMem, &m); err != nil {
		return nil, fmt.Errorf("estimator: dp_mem table: %w", err)
	}
	db := &ProfileDB{times: p.Optimal, dpMem: map[string][]float64{}, gpus: map[string]bool{}}
	for _, entries := range p.Optimal {
		for k := range entries {
			// configKey's form: nodes_gpu_nodes_n_perNode_d.
			if parts := strings.Split(k, "_"); len(parts) == 6 {
				db.gpus[parts[1]] = true
			}
		}
	}
	for _, part := range m {
		for k, row := range part {
			if len(row) != 5 {
				return nil, fmt.Errorf("estimator: dp_mem table: key %q: want 5 values (1,2,4,8,16 GPUs), got %d", k, len(row))
			}
			db.dpMem[k] = row
		}
	}
	return db, nil
}

// PricesGPU reports whether some entry of the database measures gpu
// (estimator.Coverage): a100, v100, a40 and a10 in the artifact's.
func (db *ProfileDB) PricesGPU(gpu string) bool { return db.gpus[strings.ToLower(gpu)] }

// GPUTypes lists the GPU types the database measures, in TypeOrder.
func (db *ProfileDB) GPUTypes() []string {
	out := make([]string, 0, len(db.gpus))
	for g := range db.gpus {
		out = append(out, g)
	}
	sort.Strings(out)
	return TypeOrder(out)
}

var _ Coverage = (*ProfileDB)(nil)

// View returns the database read in view v.
func (db *ProfileDB) View(v View) Estimator { return dbView{db: db, view: v} }

type dbView struct {
	db   *ProfileDB
	view View
}

func (d dbView) Name() string { return "profiledb/" + d.view.String() }

func (d dbView) Estimate(w Workload, c Config) Estimate { return d.db.Estimate(w, c, d.view) }

// Has reports whether the database holds an exact entry for (w, c) and its
// stored value in seconds.
func (db *ProfileDB) Has(w Workload, c Config) (float64, bool) {
	t, ok := db.times[w.Model.dbKey(w.Batch)][configKey(c)]
	return t, ok
}

// Keys returns the number of (model, size, batch) keys in the database.
func (db *ProfileDB) Keys() int { return len(db.times) }

// Estimate answers a query with the artifact's db_querier rules:
//
//  1. DP memory check (ViewDataParallel only): missing key → out of memory;
//     m = need[log2(gpus)]; m ≠ 0 and (m = −1 or 1.2·m > 0.8·memory) → OOM.
//  2. Lookup, first hit wins: (a) exact key; (b) if the model key exists,
//     the best-locality key for the same GPU count, k = log2(bestPerNode /
//     PerNode); (c) the first larger size of the family with the original
//     key, s = size-index difference. (b) and (c) never combine.
//  3. Validity: stored t ≠ 0 and t ≤ 300 s.
//  4. thr = round(batch/t, 3); in ViewOptimal thr ×= 0.9^k or 1.8^s (not re-rounded).
//  5. Feasible iff thr > 0; IterTime = round(batch/thr, 3).
func (db *ProfileDB) Estimate(w Workload, c Config, v View) Estimate {
	key, ok := packKey(w, c, v)
	if !ok {
		return db.estimate(w, c, v)
	}
	if e, hit := db.cache.get(key); hit {
		return e
	}
	e := db.estimate(w, c, v)
	db.cache.put(key, e)
	return e
}

func configKey(c Config) string {
	return strconv.Itoa(c.Nodes) + "_" + c.GPU + "_" + strconv.Itoa(c.Nodes) + "_n_" + strconv.Itoa(c.PerNode) + "_d"
}

func log2Exact(n int) (int, bool) {
	if n <= 0 || n&(n-1) != 0 {
		return 0, false
	}
	return bits.TrailingZeros(uint(n)), true
}

func (db *ProfileDB) estimate(w Workload, c Config, v View) Estimate {
	if c.Nodes <= 0 || c.PerNode <= 0 || w.Batch <= 0 {
		return infeasible(BadShape)
	}
	gpu, err := LookupGPU(c.GPU)
	if err != nil {
		return infeasible(UnknownGPU)
	}
	modelKey := w.Model.dbKey(w.Batch)
	if v == ViewDataParallel && !db.dpMemoryFits(modelKey, c, gpu) {
		return infeasible(OutOfMemory)
	}

	cfgKey := configKey(c)
	entries, modelKnown := db.times[modelKey]
	t, found := entries[cfgKey]
	fallback, steps := Exact, 0
	if !found && modelKnown {
		best := BestLocality(c.GPU, c.GPUs(), gpu.GPUsPerNode)
		if t, found = entries[configKey(best)]; found {
			fallback = RelaxedLocality
			steps, _ = log2Exact(best.PerNode / c.PerNode)
		}
	}
	if !found {
		sizes := familyInfo[w.Model.Family].sizes
		for i := w.Model.SizeIndex + 1; i < len(sizes) && !found; i++ {
			larger := Model{Family: w.Model.Family, Size: sizes[i], SizeIndex: i}
			if t, found = db.times[larger.dbKey(w.Batch)][cfgKey]; found {
				fallback, steps = LargerSize, i-w.Model.SizeIndex
			}
		}
	}
	if !found {
		return infeasible(NotProfiled)
	}
	if t == 0 || t > maxIterTime {
		return infeasible(OverIterationCap)
	}
	thr := PyRound(float64(w.Batch)/t, throughputDigits)
	if v == ViewOptimal {
		switch {
		case fallback == RelaxedLocality && steps > 0:
			thr *= powCorrect(relaxedLocalityFactor, steps)
		case fallback == LargerSize:
			thr *= powCorrect(largerSizeFactor, steps)
		}
	}
	if !(thr > 0) {
		return infeasible(OutOfMemory)
	}
	return Estimate{
		Throughput: thr,
		IterTime:   PyRound(float64(w.Batch)/thr, throughputDigits),
		Reason:     Feasible,
		Fallback:   fallback,
		Steps:      steps,
	}
}

// dpMemoryFits applies the artifact's data-parallel memory filter.
func (db *ProfileDB) dpMemoryFits(modelKey string, c Config, gpu GPUType) bool {
	row, ok := db.dpMem[modelKey]
	if !ok {
		return false
	}
	i, ok := log2Exact(c.GPUs())
	if !ok || i >= len(row) {
		return false
	}
	m := row[i]
	if m == 0 {
		return true
	}
	return m != -1 && dpMemorySafety*m <= xlaMemoryFraction*gpu.MemoryGB
}
