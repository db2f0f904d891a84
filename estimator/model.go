package estimator

import (
	"fmt"
	"strconv"
	"strings"
)

// Family is a model family of the Arena evaluation.
type Family int

const (
	WideResNet Family = iota
	GPT
	MoE
)

var familyInfo = [...]struct {
	name    string   // canonical name used by this project
	dbName  string   // name in the artifact's traces and profile database
	sizes   []string // sizes in the artifact's supported_model_cfgs order
	batches []int    // batch sizes the artifact's trace generator draws from
	layers  int
}{
	WideResNet: {"wresnet", "wide_resnet", []string{"500M", "1B", "2B", "4B", "6.8B", "13B"}, []int{256, 512, 1024}, 16},
	GPT:        {"gpt", "bert", []string{"760M", "1.3B", "2.6B", "6.7B", "15B", "39B"}, []int{128, 256, 512}, 6},
	MoE:        {"moe", "moe", []string{"690M", "1.3B", "2.4B", "10B", "27B", "70B"}, []int{256, 512, 1024}, 8},
}

// String returns the family's canonical name ("gpt", "moe", "wresnet").
func (f Family) String() string { return familyInfo[f].name }

// Model is one model of the catalog: a family and a size.
type Model struct {
	Family Family
	// Size is the artifact's spelling of the parameter count, e.g. "2.6B", "500M".
	Size string
	// SizeIndex is the position of Size in the family's size order; the
	// profile database's missing-size fallback walks it upwards.
	SizeIndex int
}

// Name is the canonical model name, e.g. "gpt-2.6b", "wresnet-500m".
func (m Model) Name() string { return familyInfo[m.Family].name + "-" + strings.ToLower(m.Size) }

// ArtifactName is the name used in the artifact's traces, e.g. "bert__2.6B".
func (m Model) ArtifactName() string { return familyInfo[m.Family].dbName + "__" + m.Size }

// Params returns the nominal parameter count parsed from Size.
func (m Model) Params() float64 {
	s := m.Size
	mult := 1e9
	if strings.HasSuffix(s, "M") {
		mult = 1e6
	}
	v, _ := strconv.ParseFloat(strings.TrimRight(s, "MB"), 64)
	return v * mult
}

// dbKey is the profile database key of (model, batch), "bert_2.6B_256".
func (m Model) dbKey(batch int) string {
	return familyInfo[m.Family].dbName + "_" + m.Size + "_" + strconv.Itoa(batch)
}

// Models lists every model of the catalog, family by family in size order.
func Models() []Model {
	var out []Model
	for f := range familyInfo {
		for i, s := range familyInfo[f].sizes {
			out = append(out, Model{Family: Family(f), Size: s, SizeIndex: i})
		}
	}
	return out
}

// BatchSizes returns the batch sizes the artifact's traces use for a family.
func (f Family) BatchSizes() []int { return append([]int(nil), familyInfo[f].batches...) }

// ParseModel accepts the canonical form ("gpt-2.6b", "moe-10b",
// "wresnet-500m") and the artifact's forms ("bert__2.6B", "wide_resnet__1B",
// "moe_10B"). Family aliases: bert = gpt, wide_resnet/wideresnet/wrn = wresnet.
func ParseModel(s string) (Model, error) {
	in := strings.TrimSpace(s)
	var fam, size string
	switch {
	case strings.Contains(in, "__"):
		i := strings.LastIndex(in, "__")
		fam, size = in[:i], in[i+2:]
	case strings.Contains(in, "-"):
		i := strings.LastIndex(in, "-")
		fam, size = in[:i], in[i+1:]
	case strings.Contains(in, "_"):
		i := strings.LastIndex(in, "_")
		fam, size = in[:i], in[i+1:]
	default:
		return Model{}, fmt.Errorf("estimator: model %q: want <family>-<size> such as gpt-2.6b or the artifact's bert__2.6B", s)
	}
	var f Family
	switch strings.ToLower(fam) {
	case "gpt", "bert":
		f = GPT
	case "moe":
		f = MoE
	case "wresnet", "wide_resnet", "wideresnet", "wrn", "wide-resnet":
		f = WideResNet
	default:
		return Model{}, fmt.Errorf("estimator: model %q: unknown family %q (want gpt, moe or wresnet)", s, fam)
	}
	for i, sz := range familyInfo[f].sizes {
		if strings.EqualFold(sz, size) {
			return Model{Family: f, Size: sz, SizeIndex: i}, nil
		}
	}
	return Model{}, fmt.Errorf("estimator: model %q: unknown %s size %q (known: %s)", s, f, size, strings.Join(familyInfo[f].sizes, ", "))
}

// Workload is what one job trains: a model at a global batch size.
type Workload struct {
	Model Model
	Batch int
}

// String renders the workload as "gpt-2.6b/256".
func (w Workload) String() string { return w.Model.Name() + "/" + strconv.Itoa(w.Batch) }

// Config is one uniform placement shape: Nodes nodes of GPU type GPU, each
// contributing PerNode GPUs. The artifact calls (Nodes, PerNode) the
// "locality" of a job: [PerNode]·Nodes.
type Config struct {
	GPU     string
	Nodes   int
	PerNode int
}

// GPUs is the total GPU count, Nodes × PerNode.
func (c Config) GPUs() int { return c.Nodes * c.PerNode }

// String renders the config as "a100:2x4" (nodes × GPUs per node).
func (c Config) String() string { return fmt.Sprintf("%s:%dx%d", c.GPU, c.Nodes, c.PerNode) }

// BestLocality is the most compact uniform shape of n GPUs on nodes of
// capacity nodeCap: one node if n ≤ nodeCap, else NodesFor(n, nodeCap)
// nodes of n/NodesFor GPUs each — n/nodeCap full nodes when nodeCap
// divides n (every power-of-two job on power-of-two nodes), else the
// fewest nodes that split n evenly (24 GPUs on nodes of 16: 2 × 12; 7 on
// nodes of 4: 7 × 1). A nodeCap ≤ 0 (the cluster has no node of the
// type) gives the zero shape, which every estimator answers as
// infeasible (BadShape).
func BestLocality(gpu string, n, nodeCap int) Config {
	if nodeCap <= 0 || n <= 0 {
		return Config{GPU: gpu}
	}
	k := NodesFor(n, nodeCap)
	return Config{GPU: gpu, Nodes: k, PerNode: n / k}
}

// NodesFor is the node count of n GPUs' most compact uniform shape on
// nodes of capacity nodeCap (nodeCap > 0, n > 0): the smallest k ≥
// ⌈n/nodeCap⌉ that divides n, so that every node holds n/k ≤ nodeCap GPUs.
// It is 1 when n ≤ nodeCap and n/nodeCap when nodeCap divides n.
func NodesFor(n, nodeCap int) int {
	k := (n + nodeCap - 1) / nodeCap
	for n%k != 0 {
		k++
	}
	return k
}
