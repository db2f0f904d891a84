package fairness_test

// The tenants study of docs/tenants.md, as a test helper: it runs only
// when ARENA_TENANTS_STUDY names a canonical trace (arena trace synth … -o
// FILE), with ARENA_TENANTS_FILE (the tenants file), ARENA_TENANTS_CLUSTER
// (default paper-1280), ARENA_TENANTS_ROUNDS (default 6000) and
// ARENA_TENANTS_POLICIES (comma-separated policy strings; the token
// TENANTS is replaced by the tenants file). It prints each policy's
// fairness report. Not a check: a study's numbers are for the docs.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/experiments/runner"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/fairness"
	"github.com/arena-sim/arena/sim/tenants"
	"github.com/arena-sim/arena/traces"
)

// capture is a registry whose entries remember the policy they build, to
// read the quota wrapper's counts after the run.
type capture struct {
	*registry.Registry
	built sim.Policy
}

func (c *capture) Lookup(name string) (registry.Entry, error) {
	e, err := c.Registry.Lookup(name)
	if err != nil {
		return e, err
	}
	inner := e.New
	e.New = func(o registry.Options) (sim.Policy, error) {
		p, err := inner(o)
		c.built = p
		return p, err
	}
	return e, nil
}

func TestTenantsStudy(t *testing.T) {
	path := os.Getenv("ARENA_TENANTS_STUDY")
	if path == "" {
		t.Skip("set ARENA_TENANTS_STUDY to a trace to run the study")
	}
	tenFile := os.Getenv("ARENA_TENANTS_FILE")
	cl := envOr("ARENA_TENANTS_CLUSTER", "paper-1280")
	rounds, _ := strconv.Atoi(envOr("ARENA_TENANTS_ROUNDS", "6000"))
	pols := strings.Split(envOr("ARENA_TENANTS_POLICIES", "fcfs;quota(fcfs,tenants=TENANTS)"), ";")
	tr, err := traces.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var ten *tenants.File
	if tenFile != "" {
		if ten, err = tenants.Load(tenFile); err != nil {
			t.Fatal(err)
		}
		if err := ten.CheckJobs(tr.Jobs); err != nil {
			t.Fatal(err)
		}
	}
	db, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pols {
		p = strings.ReplaceAll(strings.TrimSpace(p), "TENANTS", tenFile)
		reg := &capture{Registry: policy.NewRegistry()}
		out, err := runner.Execute(context.Background(), reg, runner.Run{Trace: path, Cluster: cl, Policy: p, Timing: sim.Exact, Rounds: rounds, MaxRounds: rounds})
		if err != nil {
			t.Fatal(err)
		}
		var o fairness.Options
		if q, ok := reg.built.(quota.StatsReporter); ok {
			s := q.QuotaStats()
			o.Quota = &fairness.QuotaCounts{Reclaims: s.Reclaims, ReclaimedGPUs: s.ReclaimedGPUs, Vetoed: s.Vetoed, Violations: s.Violations}
		}
		if err := ten.CheckCluster(out.Cluster); err != nil {
			t.Fatal(err)
		}
		r, err := fairness.Compute(out.Result, tr.Jobs, out.Cluster, ten, db.View(estimator.ViewOptimal), o)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "\n== %s on %s, %d rounds: %d of %d jobs finished, mean JCT %.2f h\n", p, cl, rounds, out.Summary.Finished, len(tr.Jobs), out.Summary.MeanJCT/3600)
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
		t.Log(b.String())
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
