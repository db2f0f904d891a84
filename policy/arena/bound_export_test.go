package arena

// BoundCounts are what a policy's counted bounds counted (bounds).
type BoundCounts struct {
	Downgrades, MaxDowngrades, Denied int
	Steps, MaxVisited                 int
}

// Bounds returns p's bound counters.
func (p *Policy) Bounds() BoundCounts {
	b := p.bound
	return BoundCounts{b.downgrades, b.maxDowngrades, b.denied, b.steps, b.maxVisited}
}
