package sweep

import (
	"maps"
	"slices"
)

// sortedKeys returns m's keys in order (output must not follow map order).
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
