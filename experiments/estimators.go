package experiments

import (
	"fmt"
	"strings"

	"github.com/arena-sim/arena/estimator"
)

// EstimatorNames lists the performance models a run can use.
func EstimatorNames() []string { return []string{"profiledb"} }

// SourceFor returns the estimator source named by a run ("" = profiledb).
func SourceFor(name string) (estimator.Source, error) {
	switch name {
	case "", "profiledb":
		return estimator.DefaultProfileDB()
	}
	return nil, fmt.Errorf("estimator %q: unknown (known: %s)", name, strings.Join(EstimatorNames(), ", "))
}
