package arena

// BoundCounts are what the upgrade trial's bound counted (bounds).
type BoundCounts struct {
	Steps, MaxVisited int
}

// Bounds returns p's bound counters.
func (p *Policy) Bounds() BoundCounts {
	return BoundCounts{p.bound.steps, p.bound.maxVisited}
}
