package arena

// BoundCounts are what the upgrade trial's bound counted (bounds).
type BoundCounts struct {
	Trials, MaxVisited int
}

// Bounds returns p's bound counters.
func (p *Policy) Bounds() BoundCounts {
	return BoundCounts{p.bound.trials, p.bound.maxVisited}
}
