package analytic

import (
	"fmt"
	"math"

	"github.com/arena-sim/arena/estimator"
)

// Shape is one stage's intra-stage parallelism: DP data-parallel replicas
// of TP-way tensor-parallel shards (DP·TP = the stage's GPUs).
type Shape struct{ DP, TP int }

func (s Shape) String() string { return fmt.Sprintf("(%d,%d)", s.DP, s.TP) }

// Plan is one execution plan inside a grid: the units of each pipeline
// stage (Cuts[i] is the first unit of stage i+1), one (dp, tp) shape used by
// every stage, and the number of micro-batches per iteration.
type Plan struct {
	Stages int
	Cuts   []int
	Shape  Shape
	Micro  int
	// Interleave is the number of virtual stages per GPU of the
	// interleaved 1F1B schedule (Search3D); 0 or 1: the plain schedule.
	Interleave int
}

func (p Plan) String() string {
	s := fmt.Sprintf("pp=%d dp=%d tp=%d micro=%d cuts=%v", p.Stages, p.Shape.DP, p.Shape.TP, p.Micro, p.Cuts)
	if p.Interleave > 1 {
		s += fmt.Sprintf(" interleave=%d", p.Interleave)
	}
	return s
}

// Result is the cost model's answer for one plan.
type Result struct {
	// IterTime in seconds; +Inf when the plan does not fit in memory.
	IterTime float64
	// PeakMemory is the largest per-GPU footprint over stages, bytes.
	PeakMemory float64
	// Breakdown of IterTime, seconds.
	Compute, TPComm, PipeComm, Bubble, DPComm, Optimizer float64
	Fits                                                 bool
}

// stageAgg sums a contiguous run of units.
type stageAgg struct {
	params, expert, flops, tpBytes, a2aBytes, stash, peakAct, outBytes float64
	layers, flopsPerWidth                                              float64
}

func aggregate(units []Unit) stageAgg {
	var s stageAgg
	for _, u := range units {
		s.params += u.Params
		s.expert += u.ExpertParams
		s.flops += u.FwdFLOPs
		s.tpBytes += u.TPBytes
		s.a2aBytes += u.A2ABytes
		s.stash += u.StashBytes
		s.peakAct = math.Max(s.peakAct, u.PeakActBytes)
		s.layers += float64(u.Layers)
		s.flopsPerWidth += u.FLOPsPerWidth
	}
	if len(units) > 0 {
		s.outBytes = units[len(units)-1].OutBytes
	}
	return s
}

// hardware is a GPU type on a locality with the parameters applied.
type hardware struct {
	gpu                estimator.GPUType
	nodes, perNode     int
	flops              float64 // peak × efficiency, FLOP/s
	halfWidth          float64 // w0 of the GEMM-width efficiency curve
	layerLat           float64
	intraBW, interBW   float64 // achieved bytes/s per direction
	memBW, memCapacity float64
	dpExposed          float64
	// tpExposed is the share of the tensor-parallel all-reduces left on
	// the critical path: 1 (none overlapped with compute) for every
	// estimate; the held-out studies set it to 0 to show what overlap
	// (Megatron-Core's --tp-comm-overlap) would be worth.
	tpExposed float64
}

func newHardware(gpu estimator.GPUType, nodes, perNode int, fam estimator.Family, p *Params) hardware {
	ce := p.commEff(gpu.Name)
	return hardware{
		gpu: gpu, nodes: nodes, perNode: perNode,
		flops:       gpu.PeakTFLOPS * 1e12 * p.efficiency(gpu.Name, fam),
		layerLat:    p.LayerLatency[fam.String()],
		halfWidth:   p.HalfWidth[fam.String()],
		intraBW:     gpu.IntraNodeGBs * 1e9 * ce.Intra,
		interBW:     gpu.InterNodeGBs * 1e9 * ce.Inter,
		memBW:       gpu.MemBandwidthGBs * 1e9,
		memCapacity: usableMemoryFraction * gpu.MemoryGB * 1e9,
		dpExposed:   p.DPExposed,
		tpExposed:   1,
	}
}

// collLatency is a collective's start-up latency on n ranks: α per step
// of a log-depth (tree / LL-protocol) schedule.
func collLatency(n int) float64 { return collectiveLatency * math.Ceil(math.Log2(float64(n))) }

func allReduce(bytes float64, n int, bw float64) float64 {
	if n <= 1 || bytes <= 0 {
		return 0
	}
	k := float64(n)
	return 2*(k-1)/k*bytes/bw + 2*collLatency(n)
}

func allToAll(bytes float64, n int, bw float64) float64 {
	if n <= 1 || bytes <= 0 {
		return 0
	}
	k := float64(n)
	return (k-1)/k*bytes/bw + collLatency(n)
}

// planCost evaluates one plan given its stage aggregates. batch is the
// global batch in samples.
func planCost(a *Arch, stages []stageAgg, shape Shape, micro, batch int, hw *hardware) Result {
	p := len(stages)
	g := shape.DP * shape.TP
	d, t := float64(shape.DP), float64(shape.TP)
	b := float64(batch) / float64(micro) // samples per micro-batch
	x := b / d                           // samples per replica per micro-batch
	passes := a.TrainFLOPsFactor - 1     // forward (+ recompute) + backward collectives
	bpv := a.BytesPerValue

	tpBW := hw.intraBW
	if shape.TP > hw.perNode {
		tpBW = hw.interBW
	}
	stageBW := hw.intraBW // dp and expert groups span the stage's GPUs
	if g > hw.perNode {
		stageBW = hw.interBW
	}
	var r Result
	var sumStage, maxStage, sumP2P, maxP2P, maxDP, maxOpt, maxMem float64
	var bottleComp, bottleComm float64
	for j, s := range stages {
		comp := a.TrainFLOPsFactor*(s.flops+hw.halfWidth*s.flopsPerWidth)*x/t/hw.flops + hw.layerLat*s.layers
		tp := 0.0
		if shape.TP > 1 {
			// Two all-reduces per layer and pass; allReduce charges one
			// start-up, the other 2·layers−1 are added here.
			tp = hw.tpExposed * passes * (allReduce(s.tpBytes*x, shape.TP, tpBW) + (2*s.layers-1)*2*collLatency(shape.TP))
		}
		a2a := passes * allToAll(s.a2aBytes*b/float64(g), g, stageBW)
		st := comp + tp + a2a
		sumStage += st
		if st > maxStage {
			maxStage, bottleComp, bottleComm = st, comp, tp+a2a
		}
		if j < p-1 {
			bw := hw.intraBW
			if g >= hw.perNode || ((j+1)*g)%hw.perNode == 0 {
				bw = hw.interBW
			}
			pp := 2 * (s.outBytes*b/float64(g)/bw + collectiveLatency)
			sumP2P += pp
			maxP2P = math.Max(maxP2P, pp)
		}
		maxDP = math.Max(maxDP, allReduce(bpv*s.params/t, shape.DP, stageBW))
		perGPUParams := s.params/t + s.expert/float64(g)
		maxOpt = math.Max(maxOpt, optimizerBytesPerParam*perGPUParams/d/hw.memBW)

		// Memory: weights + grads replicated over dp, optimizer states
		// sharded over dp (what Alpa's auto-sharding finds, perf-model
		// §3.6); experts sharded over the stage; 1F1B keeps min(m, p−j)
		// micro-batches' stashed activations.
		inflight := math.Min(float64(micro), float64(p-j))
		mem := s.params/t*(2*bpv+(16-2*bpv)/d) + expertBytesPerParam*s.expert/float64(g) +
			s.stash*x/t*inflight + s.peakAct*x/t + frameworkOverheadBytes
		maxMem = math.Max(maxMem, mem)
	}
	r.PeakMemory = maxMem
	r.Fits = maxMem <= hw.memCapacity
	// Pipeline critical path (1F1B/GPipe): Σ stages + Σ p2p + (m−1)·the
	// slowest stage or link. Reported as m × the bottleneck stage's compute
	// and collectives, point-to-point, and the fill/drain bubble.
	bottleneck := math.Max(maxStage, maxP2P)
	pipeline := sumStage + sumP2P + float64(micro-1)*bottleneck
	m := float64(micro)
	r.Compute, r.TPComm = m*bottleComp, m*bottleComm
	r.PipeComm = sumP2P + m*math.Max(0, maxP2P-maxStage)
	r.Bubble = pipeline - r.Compute - r.TPComm - r.PipeComm
	r.DPComm = hw.dpExposed * maxDP
	r.Optimizer = maxOpt
	r.IterTime = pipeline + r.DPComm + r.Optimizer
	if !r.Fits {
		r.IterTime = math.Inf(1)
	}
	return r
}

// DPReplicaMemory is the per-GPU memory a pure data-parallel replica of a
// needs on n GPUs at global batch `batch` (one micro-batch), bytes, under
// the fitted DP memory model. The analytic source's data-parallel view
// filters with it the way the artifact filters with dp_mem.json.
func DPReplicaMemory(a *Arch, batch, n int, m DPMemory) float64 {
	s := aggregate(a.Units)
	x := float64(batch) / float64(n)
	return m.BytesPerParam*s.params + m.ExpertBytesPerParam*s.expert + m.ActivationScale*(s.stash+s.peakAct)*x + m.OverheadGB*1e9
}
