package analytic

import (
	"fmt"
	"math"
	"strings"

	"github.com/arena-sim/arena/estimator"
)

// Unit is one layer group of a model: the granularity at which the planner
// cuts the model into pipeline stages. All per-sample quantities are for one
// training sample (one sequence or one image) of the global batch.
type Unit struct {
	// Params replicated across data-parallel ranks and sharded by tensor
	// parallelism; their gradients are all-reduced over dp.
	Params float64
	// ExpertParams are MoE expert weights, sharded over dp×tp (expert
	// parallelism), never all-reduced.
	ExpertParams float64
	// FwdFLOPs is the forward pass, per sample.
	FwdFLOPs float64
	// OutBytes is the activation leaving the unit, per sample (the
	// pipeline's point-to-point message when a stage ends here).
	OutBytes float64
	// TPBytes is what tensor parallelism all-reduces in one forward pass,
	// per sample.
	TPBytes float64
	// A2ABytes is what MoE all-to-alls move in one forward pass, per sample.
	A2ABytes float64
	// StashBytes is the activation kept per sample between forward and
	// backward (the unit's input under rematerialisation).
	StashBytes float64
	// PeakActBytes is the transient activation of the unit's largest layer
	// while it is (re)computed, per sample, before tensor sharding.
	PeakActBytes float64
	// Layers is the number of kernels-heavy layers in the unit (fixed
	// per-layer launch cost).
	Layers int
	// FLOPsPerWidth is Σ over the unit's layers of FLOPs ÷ GEMM width
	// (hidden size, or a convolution's channels): the efficiency curve
	// e·w/(w + w0) costs F·(1 + w0/width), at the model's full width
	// (planCost does not narrow it by tensor parallelism).
	FLOPsPerWidth float64
}

// Arch is a model's architecture as the cost model needs it.
type Arch struct {
	Name   string
	Family estimator.Family
	// Units in execution order; stages are contiguous runs of units.
	Units []Unit
	// BytesPerValue is 2 for fp16 models (GPT, MoE) and 4 for fp32
	// (WideResNet, as in Alpa's benchmark).
	BytesPerValue float64
	// TrainFLOPsFactor multiplies forward FLOPs for one training step:
	// 4 with rematerialisation (forward, recompute, 2× backward).
	TrainFLOPsFactor float64
	// Spec records the architecture for display.
	Spec string
}

// Params is the model's total parameter count.
func (a *Arch) Params() float64 {
	var p float64
	for _, u := range a.Units {
		p += u.Params + u.ExpertParams
	}
	return p
}

// FwdFLOPs is the forward FLOPs per sample of the whole model.
func (a *Arch) FwdFLOPs() float64 {
	var f float64
	for _, u := range a.Units {
		f += u.FwdFLOPs
	}
	return f
}

// TransformerSpec is a GPT or GShard-MoE configuration in Alpa's notation.
type TransformerSpec struct {
	Hidden, Layers, Heads, Seq, Vocab int
	// Experts > 0 makes every other layer a top-2 MoE layer with FFN width
	// 8·Hidden (Alpa's GShard MoE); 0 is a dense GPT with FFN width 4·Hidden.
	Experts int
}

// gptSpecs are Alpa's GPT benchmark configurations (seq 1024, vocab 51200;
// perf-model.md §3.5), by the artifact's size names; sizes after 39B are
// beyond the artifact's catalog (Megatron-LM SC21 shapes at seq 1024).
var gptSpecs = map[string]TransformerSpec{
	"350M": {1024, 24, 16, 1024, 51200, 0},
	"760M": {1536, 24, 16, 1024, 51200, 0},
	"1.3B": {2048, 24, 32, 1024, 51200, 0},
	"2.6B": {2560, 32, 32, 1024, 51200, 0},
	"6.7B": {4096, 32, 32, 1024, 51200, 0},
	"15B":  {5120, 48, 40, 1024, 51200, 0},
	"39B":  {8192, 48, 64, 1024, 51200, 0},
	"76B":  {10240, 60, 80, 1024, 51200, 0},
	"145B": {12288, 80, 96, 1024, 51200, 0},
	"175B": {12288, 96, 96, 1024, 51200, 0},
}

// moeSpecs are Alpa's GShard MoE configurations (seq 1024, vocab 32000).
var moeSpecs = map[string]TransformerSpec{
	"380M": {768, 8, 16, 1024, 32000, 8},
	"690M": {768, 8, 16, 1024, 32000, 16},
	"1.3B": {768, 16, 16, 1024, 32000, 16},
	"2.4B": {1024, 16, 16, 1024, 32000, 16},
	"10B":  {1536, 16, 16, 1024, 32000, 32},
	"27B":  {2048, 16, 32, 1024, 32000, 48},
	"70B":  {2048, 32, 32, 1024, 32000, 64},
	"140B": {2048, 32, 32, 1024, 32000, 128},
}

// ResNetSpec is a WideResNet configuration in Alpa's notation.
type ResNetSpec struct {
	Depth, BaseChannels, Width int
	Image                      int
}

// wresnetSpecs are Alpa's WideResNet configurations (image 224, fp32).
var wresnetSpecs = map[string]ResNetSpec{
	"250M": {50, 160, 2, 224},
	"500M": {50, 224, 2, 224},
	"1B":   {50, 320, 2, 224},
	"2B":   {50, 448, 2, 224},
	"4B":   {50, 640, 2, 224},
	"6.8B": {50, 320, 16, 224},
	"13B":  {101, 320, 16, 224},
}

// unitsPerFamily is the artifact's layer-group count per family (the
// planner cuts stages between groups): GPT 6, MoE 8, WideResNet 16.
var unitsPerFamily = map[estimator.Family]int{estimator.GPT: 6, estimator.MoE: 8, estimator.WideResNet: 16}

// extraSizes lists sizes this package knows beyond the artifact's catalog,
// in increasing order. They get SizeIndex values past the catalog's, so the
// profile database never resolves them (its fallback only walks upwards
// inside the catalog). gpt-405b is Llama 3 405B (llamaSpecs: a dense
// decoder with grouped-query attention and a SwiGLU FFN, 8,192-token
// sequences, one unit per layer), the Llama 3 scenario's job.
var extraSizes = map[estimator.Family][]string{
	estimator.GPT:        {"76B", "145B", "175B", "405B"},
	estimator.MoE:        {"140B"},
	estimator.WideResNet: {},
}

// ParseModel accepts every name estimator.ParseModel accepts plus the
// larger sizes of this package's architecture tables (gpt-175b, moe-140b).
func ParseModel(s string) (estimator.Model, error) {
	m, err := estimator.ParseModel(s)
	if err == nil {
		return m, nil
	}
	in := strings.TrimSpace(s)
	i := strings.LastIndexAny(in, "-_")
	if i < 0 {
		return m, err
	}
	fam, size := strings.TrimRight(in[:i], "_"), in[i+1:]
	probe, perr := estimator.ParseModel(fam + "-" + firstSize(fam))
	if perr != nil {
		return m, err
	}
	catalogLen := len(sizesOf(probe.Family))
	for k, sz := range extraSizes[probe.Family] {
		if strings.EqualFold(sz, size) {
			return estimator.Model{Family: probe.Family, Size: sz, SizeIndex: catalogLen + k}, nil
		}
	}
	return m, err
}

func firstSize(fam string) string {
	switch strings.ToLower(fam) {
	case "moe":
		return "690m"
	case "gpt", "bert":
		return "760m"
	}
	return "500m"
}

func sizesOf(f estimator.Family) []string {
	var out []string
	for _, m := range estimator.Models() {
		if m.Family == f {
			out = append(out, m.Size)
		}
	}
	return out
}

// extraSizeGroups is the layer-group count of sizes beyond the catalog:
// they need deeper pipelines than the artifact's 6 or 8 groups allow.
const extraSizeGroups = 16

// ArchOf returns the architecture of a catalog (or extra-size) model.
func ArchOf(m estimator.Model) (*Arch, error) {
	groups := unitsPerFamily[m.Family]
	if m.SizeIndex >= len(sizesOf(m.Family)) {
		groups = extraSizeGroups
	}
	switch m.Family {
	case estimator.GPT:
		if m.Size == "405B" {
			return LlamaArch("405B", 0)
		}
		if s, ok := gptSpecs[m.Size]; ok {
			return Transformer(m.Name(), s, groups), nil
		}
	case estimator.MoE:
		if s, ok := moeSpecs[m.Size]; ok {
			return Transformer(m.Name(), s, groups), nil
		}
	case estimator.WideResNet:
		if s, ok := wresnetSpecs[m.Size]; ok {
			return WideResNet(m.Name(), s, m.Params()), nil
		}
	}
	return nil, fmt.Errorf("analytic: model %s: no architecture table entry", m.Name())
}

// Transformer builds a GPT (Experts = 0) or GShard MoE architecture cut into
// `groups` layer groups (the embedding joins the first group, the output
// layer the last).
func Transformer(name string, s TransformerSpec, groups int) *Arch {
	h, L, sq, V, a := float64(s.Hidden), s.Layers, float64(s.Seq), float64(s.Vocab), float64(s.Heads)
	fam := estimator.GPT
	if s.Experts > 0 {
		fam = estimator.MoE
	}
	const b = 2.0 // fp16 bytes
	layers := make([]Unit, L)
	for i := 0; i < L; i++ {
		u := Unit{
			OutBytes:   sq * h * b,
			StashBytes: sq * h * b,
			TPBytes:    2 * sq * h * b, // two all-reduces per layer forward (Megatron)
			// Korthikanti et al.: s·h·(34 + 5·a·s/h) bytes per sample.
			PeakActBytes: sq * h * (34 + 5*a*sq/h),
			Layers:       1,
		}
		attnFLOPs := 8*sq*h*h + 4*sq*sq*h
		switch {
		case s.Experts == 0:
			u.Params = 12*h*h + 13*h
			u.FwdFLOPs = 24*sq*h*h + 4*sq*sq*h
		case i%2 == 0: // dense layer of the MoE model, FFN width 8h
			u.Params = 4*h*h + 16*h*h + 13*h
			u.FwdFLOPs = attnFLOPs + 2*sq*16*h*h
			u.PeakActBytes *= 1.5
		default: // MoE layer: top-2 of E experts, each FFN 8h wide
			u.Params = 4*h*h + h*float64(s.Experts) + 5*h
			u.ExpertParams = float64(s.Experts) * 16 * h * h
			u.FwdFLOPs = attnFLOPs + 2*2*sq*16*h*h + 2*sq*h*float64(s.Experts)
			u.A2ABytes = 2 * 2 * sq * h * b // dispatch + combine, top-2
			u.PeakActBytes *= 2
		}
		u.FLOPsPerWidth = u.FwdFLOPs / h
		layers[i] = u
	}
	// Embedding (first layer) and output projection + fp32 logits (last).
	layers[0].Params += V*h + sq*h
	layers[L-1].FwdFLOPs += 2 * sq * h * V
	layers[L-1].FLOPsPerWidth += 2 * sq * V
	layers[L-1].PeakActBytes += 4 * sq * V * 2 // fp32 logits and their gradient
	arch := &Arch{Name: name, Family: fam, Units: groupUnits(layers, groups), BytesPerValue: b, TrainFLOPsFactor: 4,
		Spec: fmt.Sprintf("h=%d L=%d heads=%d seq=%d vocab=%d", s.Hidden, s.Layers, s.Heads, s.Seq, s.Vocab)}
	if s.Experts > 0 {
		arch.Spec += fmt.Sprintf(" experts=%d", s.Experts)
	}
	return arch
}

// groupUnits merges consecutive layers into n groups of (nearly) equal
// layer count.
func groupUnits(layers []Unit, n int) []Unit {
	if n > len(layers) {
		n = len(layers)
	}
	out := make([]Unit, n)
	for i, u := range layers {
		g := i * n / len(layers)
		o := &out[g]
		o.Params += u.Params
		o.ExpertParams += u.ExpertParams
		o.FwdFLOPs += u.FwdFLOPs
		o.OutBytes = u.OutBytes
		o.TPBytes += u.TPBytes
		o.A2ABytes += u.A2ABytes
		o.StashBytes += u.StashBytes
		o.PeakActBytes = math.Max(o.PeakActBytes, u.PeakActBytes)
		o.Layers += u.Layers
		o.FLOPsPerWidth += u.FLOPsPerWidth
	}
	return out
}

// WideResNet builds a bottleneck WideResNet (ImageNet, fp32): stages of
// 3/4/6/3 (depth 50) or 3/4/23/3 (depth 101) blocks with base·2^i filters,
// 3×3 convolutions widened by Width; one unit per block (16 for depth 50,
// the 101-layer model's blocks are grouped to 16). The parameter and FLOP
// counts are scaled to the nominal size so the catalog's sizes keep their
// stated ratios.
func WideResNet(name string, s ResNetSpec, nominalParams float64) *Arch {
	blocks := []int{3, 4, 6, 3}
	if s.Depth == 101 {
		blocks = []int{3, 4, 23, 3}
	}
	const b = 4.0 // fp32 bytes
	var units []Unit
	in := float64(64)
	spatial := float64(s.Image) / 4 // after the stem and max-pool
	var total float64
	for i, n := range blocks {
		c := float64(s.BaseChannels) * math.Pow(2, float64(i))
		mid, out := c*float64(s.Width)/2, 4*c
		for j := 0; j < n; j++ {
			sp := spatial
			if i > 0 && j == 0 {
				sp = spatial / 2
			}
			hw := sp * sp
			params := in*mid + 9*mid*mid + mid*out
			if j == 0 {
				params += in * out // projection shortcut
			}
			units = append(units, Unit{
				Params:       params,
				FwdFLOPs:     2 * params * hw,
				OutBytes:     out * hw * b,
				TPBytes:      (mid + out) * hw * b,
				StashBytes:   (in + 2*mid + out) * hw * b * 2, // conv + BN/ReLU outputs kept (no remat)
				PeakActBytes: (in + 2*mid + out) * hw * b,
				Layers:       3,
				// Width: the 3×3 convolution's channels dominate.
				FLOPsPerWidth: 2 * params * hw / mid,
			})
			total += params
			in = out
		}
		if i < len(blocks)-1 {
			spatial /= 2
		}
	}
	// Scale to the nominal parameter count: our block shapes approximate
	// Alpa's; keep each size's stated weight.
	if nominalParams > 0 && total > 0 {
		f := nominalParams / total
		for i := range units {
			units[i].Params *= f
			units[i].FwdFLOPs *= f
			units[i].FLOPsPerWidth *= f
		}
	}
	// Stem convolution FLOPs on the first unit (224² input, 7×7, 64 ch).
	units[0].FwdFLOPs += 2 * 3 * 64 * 49 * 112 * 112
	return &Arch{Name: name, Family: estimator.WideResNet, Units: groupUnits(units, 16), BytesPerValue: b, TrainFLOPsFactor: 3,
		Spec: fmt.Sprintf("depth=%d base=%d width=%d image=%d", s.Depth, s.BaseChannels, s.Width, s.Image)}
}
