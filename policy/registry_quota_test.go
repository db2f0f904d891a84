package policy_test

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/policy/policytest"
	"github.com/arena-sim/arena/policy/quota"
	"github.com/arena-sim/arena/policy/registry"
	"github.com/arena-sim/arena/sim"
)

// Policy strings of the wrapper: the wrapped policy first, nested
// parentheses and exec: commands kept whole, canonical form round-trips,
// the wrapper takes the inner policy's overhead class.
func TestQuotaPolicyStrings(t *testing.T) {
	reg := policy.NewRegistry()
	for _, c := range []struct{ in, want string }{
		{"quota(fcfs)", "quota(fcfs)"},
		{"quota(fcfs,borrow=false)", "quota(fcfs,borrow=false)"},
		{"quota( tiresias(queues=3,threshold=16h) , grace=10m)", "quota(tiresias(queues=3),grace=10m)"},
		{"quota(exec:python3 examples/python/fifo.py,tenants=t.yaml)", "quota(exec:python3 examples/python/fifo.py,tenants=t.yaml)"},
		{"quota(policy=arena)", "quota(arena)"},
		{"quota", "quota(fcfs)"},
		{"quota(borrow=false)", "quota(fcfs,borrow=false)"},
		{"quota(quota(fcfs,borrow=false),grace=5m)", "quota(quota(fcfs,borrow=false),grace=5m)"},
	} {
		spec, err := reg.Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := spec.String(); got != c.want {
			t.Errorf("%s renders %q, want %q", c.in, got, c.want)
		}
		back, err := reg.Parse(spec.String())
		if err != nil || back.String() != spec.String() {
			t.Errorf("%s does not round-trip: %v %v", spec, back, err)
		}
	}
	q, err := reg.Parse("quota(arena)")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := reg.Lookup("arena")
	if fmt.Sprint(q.Entry.Overhead) != fmt.Sprint(a.Overhead) {
		t.Errorf("quota(arena) overhead class %v, want arena's %v", q.Entry.Overhead, a.Overhead)
	}
	for _, c := range []struct{ in, want string }{
		{"quota(nosuch)", "policy quota: option policy: policy \"nosuch\": unknown"},
		{"fcfs(arena)", "policy fcfs: option arena: want key=value"},
		{"quota(fcfs,grace=soon)", "policy quota: option grace"},
		{"quota(tiresias(queues=x))", "policy quota: option policy: policy tiresias: option queues"},
	} {
		_, err := reg.Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.in, err, c.want)
		}
	}
}

// The conformance suite's clusters lack GPU types a tenants file would
// name, and its jobs carry no VC: it runs the wrapper without a file and
// without borrowing; TestEveryPolicyUnderQuota covers tenants.
func TestQuotaConformance(t *testing.T) {
	policytest.Run(t, policy.NewRegistry(), "quota(fcfs)")
	policytest.Run(t, policy.NewRegistry(), "quota(srtf,grace=10m)")
}

// Every built-in policy runs under the wrapper with three tenants on the
// conformance cluster, the invariant checker on: a tenant-tagged mix of
// 24 jobs over three waves, more than the cluster holds, so that tenants
// borrow and owners reclaim. A policy whose actions the wrapper turned
// into an invalid batch would stop the run.
func TestEveryPolicyUnderQuota(t *testing.T) {
	reg := policy.NewRegistry()
	src, err := estimator.DefaultProfileDB()
	if err != nil {
		t.Fatal(err)
	}
	c, err := sim.NewCluster(sim.ClusterSpec{Name: "quota-2x4a40-2x4a10", Pools: []sim.Pool{{GPU: "a40", Nodes: 2, GPUsPerNode: 4}, {GPU: "a10", Nodes: 2, GPUsPerNode: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	models := []string{"bert__760M", "moe__690M", "bert__1.3B", "moe__1.3B"}
	vcs := []string{"red", "blue", "green", "unlisted"}
	var jobs []sim.JobSpec
	for i := range 24 {
		m, err := estimator.ParseModel(models[i%len(models)])
		if err != nil {
			t.Fatal(err)
		}
		gpu := "a40"
		if i%3 == 1 {
			gpu = "a10"
		}
		jobs = append(jobs, sim.JobSpec{ID: sim.JobID(i), Name: fmt.Sprintf("q%02d", i), Submit: sim.Time(600 * (i / 8)),
			Workload: estimator.Workload{Model: m, Batch: 256}, Iterations: int64(300 + 150*(i%5)), GPU: gpu, GPUs: []int{1, 2, 4, 2}[i%4],
			VirtualCluster: vcs[(i/2)%len(vcs)]})
	}
	reclaims := 0
	records := map[string][]sim.JobRecord{} // by inner policy and timing
	var inners []string
	for _, e := range reg.Entries() {
		if e.Name == "quota" || e.Name == registry.ExecName || e.NeedsOptions() || e.Name == "sia-glpk" { // sia-glpk needs python3-cvxopt
			continue
		}
		inners = append(inners, e.Name)
	}
	if _, err := exec.LookPath("python3"); err == nil {
		inners = append(inners, "exec:python3 ../examples/python/fifo.py") // a policy in another language
	}
	for _, in := range inners {
		for _, timing := range []sim.Timing{sim.Exact, sim.Artifact} {
			name := fmt.Sprintf("quota(%s,tenants=testdata/quota-tenants.yaml)", in)
			t.Run(in+"/"+timing.String(), func(t *testing.T) {
				spec, err := reg.Parse(name)
				if err != nil {
					t.Fatal(err)
				}
				o := registry.Options{Cluster: c, Source: src, Timing: timing, Values: spec.Values}
				if o.Overhead, err = o.Resolve(spec.Entry.Overhead); err != nil {
					t.Fatal(err)
				}
				p, err := spec.Entry.New(o)
				if err != nil {
					t.Fatal(err)
				}
				if c, ok := p.(io.Closer); ok {
					defer c.Close()
				}
				cfg := sim.DefaultConfig(c, src.View(estimator.ViewOptimal))
				cfg.Timing, cfg.Rounds, cfg.Check, cfg.Overhead = timing, 80, true, o.Overhead
				res, err := sim.Run(context.Background(), cfg, p, jobs)
				if err != nil {
					t.Fatal(err)
				}
				done := 0
				for _, r := range res.Jobs {
					if r.State == "finished" || r.State == "dropped" {
						done++
					}
				}
				records[in+"/"+timing.String()] = res.Jobs
				st := p.(quota.StatsReporter).QuotaStats()
				reclaims += st.Reclaims
				t.Logf("%s: %d of %d jobs done; %+v", name, done, len(jobs), st)
			})
		}
	}
	if reclaims == 0 {
		t.Error("no policy ever had a borrower reclaimed: the workload does not exercise the wrapper")
	}
	// examples/python/fifo.py reimplements fcfs; under the wrapper, through
	// the exec adapter, it must decide alike.
	for _, timing := range []string{"exact", "artifact"} {
		if py, ok := records["exec:python3 ../examples/python/fifo.py/"+timing]; ok && !reflect.DeepEqual(py, records["fcfs/"+timing]) {
			for i := range py {
				if !reflect.DeepEqual(py[i], records["fcfs/"+timing][i]) {
					t.Errorf("%s: job %d: quota(exec:python3 fifo.py) %+v, quota(fcfs) %+v", timing, i, py[i], records["fcfs/"+timing][i])
					break
				}
			}
		}
	}
}
