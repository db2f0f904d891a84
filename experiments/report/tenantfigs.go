package report

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/arena-sim/arena/experiments/sweep"

	"gonum.org/v1/plot/vg"

	"github.com/arena-sim/arena/plots"
	"github.com/arena-sim/arena/sim/fairness"
)

// TenantKinds are the figures of runs with tenants (Run.Tenants): each
// tenant's GPUs over time, stacked, one panel per policy; and the CDF of
// finish-time fairness ρ, one line per policy. "all" draws them for runs
// that have tenants and skips them for runs that do not.
var TenantKinds = []string{"tenant-share", "rho-cdf"}

func init() {
	kindTitle["tenant-share"] = "GPUs held per tenant over time"
	kindTitle["rho-cdf"] = "finish-time fairness ρ CDF"
}

// HasTenants reports whether any of runs was run with tenants (its
// results directory holds the fairness files).
func HasTenants(runs []*sweep.Results) bool {
	return slices.ContainsFunc(runs, func(r *sweep.Results) bool { return r.Summary.Fairness != nil })
}

// WriteTenantFigures draws each of kinds (TenantKinds) for runs — one
// comparison group, or one seed cell — into dir as <prefix><kind>.<format>.
// Runs without tenants are left out; with none, nothing is drawn. Over
// several seeds, a policy's ρ are pooled over its seeds (the CDF of every
// rated job of every seed, said in the legend) and its share panel is its
// lowest seed's run (said in the panel's title).
func WriteTenantFigures(dir, prefix string, runs []*sweep.Results, kinds []string, o FigureOptions) ([]FigureFile, error) {
	var policies []string
	byPolicy := map[string][]*sweep.Results{}
	for _, r := range runs {
		if r.Summary.Fairness == nil {
			continue
		}
		p := r.Summary.Policy
		if _, ok := byPolicy[p]; !ok {
			policies = append(policies, p)
		}
		byPolicy[p] = append(byPolicy[p], r)
	}
	if len(policies) == 0 {
		return nil, nil
	}
	var out []FigureFile
	for _, k := range kinds {
		var f *plots.Figure
		var err error
		switch k {
		case "tenant-share":
			var shares []plots.TenantShare
			var seeds []int64 // each panel's seed (none: one run per policy)
			for _, p := range policies {
				rs := byPolicy[p]
				r := slices.MinFunc(rs, func(a, b *sweep.Results) int { return int(a.Record.Seed - b.Record.Seed) })
				s, err := fairness.ReadShare(r.Dir)
				if errors.Is(err, fs.ErrNotExist) {
					continue // written before the share file existed
				}
				if err != nil {
					return out, err
				}
				label := o.runLabel(r)
				if len(rs) > 1 {
					seeds = append(seeds, r.Record.Seed)
				}
				start := 0.0
				if len(s.Times) > 0 {
					start = s.Times[0]
				}
				capacity := 0
				for _, tc := range gpuLayout(r) {
					capacity += tc.N
				}
				shares = append(shares, plots.TenantShare{Label: label, Start: start, Times: s.Times, Tenants: s.Tenants, GPUs: s.GPUs, Capacity: capacity})
			}
			if len(shares) == 0 {
				continue
			}
			if f, err = plots.TenantShares(shares, o.Window); err == nil {
				sayShareSeeds(f, seeds)
			}
		case "rho-cdf":
			var rr []plots.RhoRun
			seeds := 0
			for _, p := range policies {
				rs := byPolicy[p]
				run := plots.RhoRun{Label: o.label(p)}
				seeds = max(seeds, len(rs))
				for _, r := range rs {
					jobs, err := fairness.ReadJobs(r.Dir)
					if errors.Is(err, fs.ErrNotExist) {
						continue
					}
					if err != nil {
						return out, err
					}
					for _, j := range jobs {
						run.Rhos = append(run.Rhos, j.Rho)
					}
				}
				rr = append(rr, run)
			}
			if f, err = plots.RhoCDF(rr); err == nil && seeds > 1 {
				// Said once, not in every legend entry.
				f.Panels[0].Y.Label.Text += fmt.Sprintf(", %d seeds pooled", seeds)
			}
		default:
			return out, fmt.Errorf("tenant figures: unknown kind %q (known: %v)", k, TenantKinds)
		}
		if err != nil {
			return out, err
		}
		f.Title = o.Title
		render := o.render()
		if rows := (len(f.Panels) + max(f.Cols, 1) - 1) / max(f.Cols, 1); rows > 1 {
			// Panels in rows keep the height of one row's figure each,
			// less the legend's share, which is drawn once.
			size := render.Size
			if size.W == 0 {
				size = plots.Column
			}
			size.H = size.H * vg.Length(1+0.7*float64(rows-1))
			render.Size = size
		}
		path := filepath.Join(dir, prefix+k+"."+o.ext())
		if err := f.Save(path, render); err != nil {
			return out, err
		}
		out = append(out, FigureFile{Kind: k, Title: kindTitle[k], Path: path, Notes: f.Notes})
	}
	return out, nil
}

// sayShareSeeds says which seed the share panels show (each policy's
// lowest, seeds[i] panel i's; nil: one run per policy): once, in the x
// axis' label, when it is the same for every panel (a seed cell), else in
// each panel's title.
func sayShareSeeds(f *plots.Figure, seeds []int64) {
	if len(seeds) != len(f.Panels) {
		return
	}
	if slices.Min(seeds) == slices.Max(seeds) {
		label := &f.XLabel
		if *label == "" {
			label = &f.Panels[0].X.Label.Text
		}
		*label += fmt.Sprintf("; seed %d", seeds[0])
		return
	}
	for i, p := range f.Panels {
		p.Title.Text += fmt.Sprintf(", seed %d", seeds[i])
	}
}
