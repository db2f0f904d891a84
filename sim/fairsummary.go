package sim

// Fairness is a run's fairness figures as summary.json carries them
// (package sim/fairness computes them; definitions in its doc.go): only for
// a run with tenants (runner.Run.Tenants), absent otherwise, so the
// summaries of runs without tenants are unchanged.
type Fairness struct {
	// TenantsFrom is where the tenants came from: the tenants file's name,
	// or "vcs" (each virtual cluster of the trace a tenant of weight 1).
	TenantsFrom string `json:"tenants_from,omitempty"`
	// Rated is the number of finished jobs with a ρ; Unrated those without.
	Rated   int `json:"rated_jobs"`
	Unrated int `json:"unrated_jobs"`
	// Dropped and Unfinished (running or pending at the end) have no ρ.
	Dropped        int             `json:"dropped_jobs"`
	Unfinished     int             `json:"unfinished_jobs"`
	MaxRho         float64         `json:"max_rho"`
	MeanRho        float64         `json:"mean_rho"`
	FracRhoAbove1  float64         `json:"frac_rho_above_1"`
	JainShare      float64         `json:"jain_gpu_share"`
	JainSlowdown   float64         `json:"jain_slowdown"`
	OverCapSeconds float64         `json:"over_cap_gpu_seconds"`
	Quota          *QuotaCounts    `json:"quota,omitempty"`
	Tenants        []TenantFigures `json:"tenants"`
}

// QuotaCounts are the quota wrapper's counts for a run (policy/quota.Stats;
// QuotaReporter).
type QuotaCounts struct {
	Reclaims      int `json:"reclaims"`
	ReclaimedGPUs int `json:"reclaimed_gpus"`
	Vetoed        int `json:"vetoed"`
	Violations    int `json:"violations"`
}

// QuotaReporter is an optional capability of a policy that enforces
// quotas (the quota wrapper): what it did in the run, for the fairness
// figures.
type QuotaReporter interface {
	QuotaCounts() QuotaCounts
}

// TenantFigures is one tenant's figures.
type TenantFigures struct {
	Name              string  `json:"name"`
	Weight            float64 `json:"weight"`
	Jobs              int     `json:"jobs"`
	Finished          int     `json:"finished"`
	MeanJCT           float64 `json:"mean_jct_s"`
	P95JCT            float64 `json:"p95_jct_s"`
	GPUHours          float64 `json:"gpu_hours"`
	Share             float64 `json:"gpu_share"`
	MeanRho           float64 `json:"mean_rho"`
	MaxRho            float64 `json:"max_rho"`
	OverCapGPUSeconds float64 `json:"over_cap_gpu_seconds"`
}
