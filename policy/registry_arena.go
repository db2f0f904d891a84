package policy

// arenaEntries registers Arena and its ablations (policy/arena).
func arenaEntries() []Entry { return nil }
