package analytic

import (
	"fmt"

	"github.com/arena-sim/arena/estimator"
)

// LlamaSpec is a Llama-style dense decoder: grouped-query attention
// (KVHeads key/value heads of Hidden/Heads dimensions), a SwiGLU FFN of
// width FFN (three matrices), untied input and output embeddings.
type LlamaSpec struct {
	Hidden, Layers, Heads, KVHeads, FFN, Seq, Vocab int
}

// llamaSpecs are the Llama 3 models (Meta, The Llama 3 Herd of Models,
// arXiv:2407.21783, 2024, Table 3), at the 8,192-token pre-training
// sequence. They are validation architectures (LlamaArch): not in the
// trace catalog, so no existing model's values change.
var llamaSpecs = map[string]LlamaSpec{
	"8B":   {4096, 32, 32, 8, 14336, 8192, 128256},
	"70B":  {8192, 80, 64, 8, 28672, 8192, 128256},
	"405B": {16384, 126, 128, 8, 53248, 8192, 128256},
}

// LlamaArch returns the Llama 3 model of the given size ("8B", "70B",
// "405B") at sequence length seq (0: 8,192), one unit per layer.
func LlamaArch(size string, seq int) (*Arch, error) {
	s, ok := llamaSpecs[size]
	if !ok {
		return nil, fmt.Errorf("analytic: no Llama 3 %s (known: 8B, 70B, 405B)", size)
	}
	if seq > 0 {
		s.Seq = seq
	}
	return Llama("llama3-"+size, s, s.Layers), nil
}

// Llama builds a LlamaSpec architecture cut into `groups` layer groups.
// Per layer and sample (s tokens, width h, KV width k = KVHeads·h/Heads):
// parameters 2h² + 2hk (attention) + 3hF (SwiGLU) + 2h (norms); forward
// FLOPs 2s × those matrices + 4s²h (scores and values, the whole square
// as Megatron counts it). Activations follow Transformer's (Korthikanti
// et al.'s 34·s·h bytes per layer) without the s² attention term, which
// fused (flash) attention never materialises.
func Llama(name string, s LlamaSpec, groups int) *Arch {
	h, sq, V, F := float64(s.Hidden), float64(s.Seq), float64(s.Vocab), float64(s.FFN)
	k := float64(s.KVHeads) * h / float64(s.Heads)
	const b = 2.0 // bf16 bytes
	mats := 2*h*h + 2*h*k + 3*h*F
	layers := make([]Unit, s.Layers)
	for i := range layers {
		u := Unit{
			Params:       mats + 2*h,
			FwdFLOPs:     2*sq*mats + 4*sq*sq*h,
			OutBytes:     sq * h * b,
			StashBytes:   sq * h * b,
			TPBytes:      2 * sq * h * b,
			PeakActBytes: sq * h * 34 * F / (4 * h),
			Layers:       1,
		}
		u.FLOPsPerWidth = u.FwdFLOPs / h
		layers[i] = u
	}
	layers[0].Params += V * h
	last := &layers[len(layers)-1]
	last.Params += V*h + h
	last.FwdFLOPs += 2 * sq * h * V
	last.FLOPsPerWidth += 2 * sq * V
	last.PeakActBytes += 4 * sq * V * 2 // fp32 logits and their gradient
	return &Arch{Name: name, Family: estimator.GPT, Units: groupUnits(layers, groups), BytesPerValue: b, TrainFLOPsFactor: 4,
		Spec: fmt.Sprintf("h=%d L=%d heads=%d kv=%d ffn=%d seq=%d vocab=%d", s.Hidden, s.Layers, s.Heads, s.KVHeads, s.FFN, s.Seq, s.Vocab)}
}
