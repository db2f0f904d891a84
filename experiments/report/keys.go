package report

import (
	"maps"
	"slices"
)

// sortedKeys returns m's keys in order (output must not follow map order).
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// sign is -1, 0 or 1 by the sign of x (NaN counts as 0).
func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
