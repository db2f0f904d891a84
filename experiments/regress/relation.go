package regress

import (
	"fmt"
	"strconv"
	"strings"
)

// relation is a parsed golden-file relation: left OP right, each side a
// coefficient times a run's metric, or a number.
type relation struct {
	expr        string
	left, right term
	op          string
}

// term is coef × policy.metric, or coef alone when policy is "".
type term struct {
	coef           float64
	policy, metric string
}

var relationOps = []string{">=", "<=", "==", "!=", ">", "<"}

// parseRelation reads "arena.mean_throughput >= 1.3 * fcfs.mean_throughput".
// A side is NUMBER, POLICY.METRIC, NUMBER * POLICY.METRIC or
// POLICY.METRIC * NUMBER; POLICY names exactly one run of g, METRIC a
// summary key (dotted for nested ones: utilization.a100).
func parseRelation(expr string, g *Golden) (relation, error) {
	r := relation{expr: expr}
	at := -1
	for _, op := range relationOps {
		if i := strings.Index(expr, op); i >= 0 && (at < 0 || i < at) {
			at, r.op = i, op
		}
	}
	if at < 0 {
		return r, fmt.Errorf("%q: no comparison (want one of %s), e.g. \"arena.mean_throughput >= 1.3 * fcfs.mean_throughput\"", expr, strings.Join(relationOps, " "))
	}
	var err error
	if r.left, err = parseTerm(strings.TrimSpace(expr[:at]), g); err != nil {
		return r, fmt.Errorf("%q: left side: %w", expr, err)
	}
	if r.right, err = parseTerm(strings.TrimSpace(expr[at+len(r.op):]), g); err != nil {
		return r, fmt.Errorf("%q: right side: %w", expr, err)
	}
	if r.left.policy == "" && r.right.policy == "" {
		return r, fmt.Errorf("%q: compares two numbers; name a run's metric (policy.metric)", expr)
	}
	return r, nil
}

func parseTerm(s string, g *Golden) (term, error) {
	if s == "" {
		return term{}, fmt.Errorf("empty")
	}
	t := term{coef: 1}
	parts := strings.Split(s, "*")
	if len(parts) > 2 {
		return t, fmt.Errorf("%q: at most one factor (NUMBER * POLICY.METRIC)", s)
	}
	var ref string
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if v, err := strconv.ParseFloat(p, 64); err == nil {
			t.coef *= v
			continue
		}
		if ref != "" {
			return t, fmt.Errorf("%q: two metrics multiplied", s)
		}
		ref = p
	}
	if ref == "" {
		if len(parts) > 1 {
			return t, fmt.Errorf("%q: two numbers multiplied", s)
		}
		return t, nil
	}
	// The policy is the prefix before a dot that names a run (policy
	// strings may hold dots: "tiresias(threshold=0.5)").
	var matches []string
	for i := range ref {
		if ref[i] != '.' {
			continue
		}
		pol := ref[:i]
		n := 0
		for _, r := range g.Runs {
			if r.Run.Policy == pol {
				n++
			}
		}
		if n > 1 {
			return t, fmt.Errorf("%q: %d runs of policy %s in the file; a relation needs exactly one", s, n, pol)
		}
		if n == 1 {
			matches = append(matches, pol)
			t.policy, t.metric = pol, ref[i+1:]
		}
	}
	if len(matches) == 0 {
		var pols []string
		for _, r := range g.Runs {
			pols = append(pols, r.Run.Policy)
		}
		return t, fmt.Errorf("%q: want POLICY.METRIC with POLICY one of the file's runs (%s)", ref, strings.Join(pols, ", "))
	}
	if t.metric == "" {
		return t, fmt.Errorf("%q: no metric after the policy", ref)
	}
	return t, nil
}

func (t term) value(got map[string]map[string]any) (float64, error) {
	if t.policy == "" {
		return t.coef, nil
	}
	v, ok := got[t.policy][t.metric]
	if !ok {
		return 0, fmt.Errorf("relation: %s has no metric %q (summary keys, e.g. mean_jct_s, mean_throughput, utilization.a100)", t.policy, t.metric)
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("relation: %s.%s is %v, not a number", t.policy, t.metric, v)
	}
	return t.coef * f, nil
}

func (r relation) eval(got map[string]map[string]any) (RelationResult, error) {
	l, err := r.left.value(got)
	if err != nil {
		return RelationResult{}, err
	}
	rv, err := r.right.value(got)
	if err != nil {
		return RelationResult{}, err
	}
	var ok bool
	switch r.op {
	case ">=":
		ok = l >= rv
	case "<=":
		ok = l <= rv
	case ">":
		ok = l > rv
	case "<":
		ok = l < rv
	case "==":
		ok = l == rv
	case "!=":
		ok = l != rv
	}
	return RelationResult{Expr: r.expr, Left: l, Right: rv, OK: ok}, nil
}
