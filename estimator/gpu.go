package estimator

import (
	"fmt"
	"sort"
	"strings"
)

// GPUType describes one kind of accelerator. Figures are vendor peaks
// (../shared/reference/perf-model.md §1) except MemoryGB for the paper's four
// types, which is the value the artifact uses for its memory checks.
type GPUType struct {
	Name string
	// MemoryGB is device memory in GB (10^9 bytes as the artifact counts it).
	MemoryGB float64
	// PeakTFLOPS is dense FP16/BF16 tensor-core throughput with FP32 accumulate.
	PeakTFLOPS float64
	// MemBandwidthGBs is device memory bandwidth in GB/s.
	MemBandwidthGBs float64
	// IntraNodeGBs is the per-direction GPU-to-GPU bandwidth inside a node, GB/s.
	IntraNodeGBs float64
	// InterNodeGBs is the per-GPU share of the node's network bandwidth, GB/s.
	InterNodeGBs float64
	// GPUsPerNode is the default node size; the artifact's NODE_CAPACITY for
	// the paper's types. The profile database's best-locality fallback uses it.
	GPUsPerNode int
}

// catalog holds every GPU type the project knows. The first four are the
// paper's; their order is the artifact's type iteration order.
var catalog = []GPUType{
	{Name: "a100", MemoryGB: 40, PeakTFLOPS: 312, MemBandwidthGBs: 1555, IntraNodeGBs: 300, InterNodeGBs: 25, GPUsPerNode: 4},
	{Name: "v100", MemoryGB: 32, PeakTFLOPS: 125, MemBandwidthGBs: 900, IntraNodeGBs: 150, InterNodeGBs: 12.5, GPUsPerNode: 16},
	{Name: "a40", MemoryGB: 48, PeakTFLOPS: 149.7, MemBandwidthGBs: 696, IntraNodeGBs: 32, InterNodeGBs: 6.25, GPUsPerNode: 2},
	{Name: "a10", MemoryGB: 24, PeakTFLOPS: 125, MemBandwidthGBs: 600, IntraNodeGBs: 32, InterNodeGBs: 6.25, GPUsPerNode: 2},
	{Name: "h100", MemoryGB: 80, PeakTFLOPS: 989, MemBandwidthGBs: 3350, IntraNodeGBs: 450, InterNodeGBs: 50, GPUsPerNode: 8},
	{Name: "h800", MemoryGB: 80, PeakTFLOPS: 989, MemBandwidthGBs: 3350, IntraNodeGBs: 200, InterNodeGBs: 50, GPUsPerNode: 8},
	// L20 is not in perf-model.md; figures from NVIDIA's L20 product brief
	// (48 GB GDDR6, 864 GB/s, PCIe 4, ~119.5 dense FP16 TFLOPS) [recalled].
	{Name: "l20", MemoryGB: 48, PeakTFLOPS: 119.5, MemBandwidthGBs: 864, IntraNodeGBs: 32, InterNodeGBs: 3.125, GPUsPerNode: 16},
	{Name: "l4", MemoryGB: 24, PeakTFLOPS: 121, MemBandwidthGBs: 300, IntraNodeGBs: 32, InterNodeGBs: 1.5625, GPUsPerNode: 8},
	{Name: "t4", MemoryGB: 16, PeakTFLOPS: 65, MemBandwidthGBs: 320, IntraNodeGBs: 16, InterNodeGBs: 1.5625, GPUsPerNode: 4},
	{Name: "a100-80g", MemoryGB: 80, PeakTFLOPS: 312, MemBandwidthGBs: 2039, IntraNodeGBs: 300, InterNodeGBs: 25, GPUsPerNode: 8},
}

// LookupGPU returns the catalog entry for name (case-insensitive).
func LookupGPU(name string) (GPUType, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, g := range catalog {
		if g.Name == n {
			return g, nil
		}
	}
	return GPUType{}, fmt.Errorf("estimator: unknown GPU type %q (known: %s)", name, strings.Join(GPUNames(), ", "))
}

// GPUNames lists the catalog's GPU type names in catalog order.
func GPUNames() []string {
	out := make([]string, len(catalog))
	for i, g := range catalog {
		out[i] = g.Name
	}
	return out
}

// TypeOrder returns the artifact's type iteration order restricted to the
// given types: a100, v100, a40, a10 first (the artifact's supported_gpu_type
// list), then any other type in catalog order. Policies iterate types in
// this order when they look for a shrink or a type change.
func TypeOrder(types []string) []string {
	rank := map[string]int{}
	for i, g := range catalog {
		rank[g.Name] = i
	}
	out := append([]string(nil), types...)
	sort.SliceStable(out, func(i, j int) bool {
		ri, okI := rank[out[i]]
		rj, okJ := rank[out[j]]
		if !okI {
			ri = len(catalog)
		}
		if !okJ {
			rj = len(catalog)
		}
		return ri < rj
	})
	return out
}
