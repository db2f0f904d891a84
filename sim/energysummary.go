package sim

// Energy is a run's energy, money and carbon figures as summary.json
// carries them (package sim/energy computes them; the model and its
// sources in docs/energy.md): only for a run that asks for them
// (runner.Run.Energy), absent otherwise, so the summaries of other runs
// are unchanged.
type Energy struct {
	// Model names the power, price and carbon inputs: "default" or the
	// energy file's name.
	Model string `json:"model"`
	// KWh is the facility energy over the window: every GPU of the
	// cluster, busy or idle, with its share of server power, × PUE.
	KWh float64 `json:"kwh"`
	// GPUKWh is the GPUs' own energy (no server share, no PUE).
	GPUKWh float64 `json:"gpu_kwh"`
	// JobsKWh is the facility energy of the GPUs jobs held (computing or
	// reconfiguring); IdleKWh that of the GPUs nobody held. KWh = JobsKWh
	// + IdleKWh.
	JobsKWh float64 `json:"jobs_kwh"`
	IdleKWh float64 `json:"idle_kwh"`
	// ReconfigKWh is the facility energy of GPUs held while their job
	// paid an overhead (start, resize, migration), recovery excluded;
	// FailureKWh that lost to failures: work redone plus restart and
	// restore (runs with the fault model; 0 otherwise).
	ReconfigKWh float64 `json:"reconfig_kwh"`
	FailureKWh  float64 `json:"failure_kwh"`
	// KgCO2 is KWh × the grid's carbon intensity at each instant.
	KgCO2 float64 `json:"kg_co2"`
	// JobsKgCO2 is the part of KgCO2 on the GPUs jobs held (JobsKWh at
	// the intensity of when they held them).
	JobsKgCO2 float64 `json:"jobs_kg_co2"`
	// ElectricityUSD is KWh × the electricity price; GPUCostUSD the
	// GPU-hours jobs held × the price tier's $/GPU-hour (what renting
	// them by use would cost); ClusterCostUSD every GPU of the cluster
	// over the window at that price (what renting the cluster costs).
	ElectricityUSD float64 `json:"electricity_usd"`
	GPUCostUSD     float64 `json:"gpu_cost_usd"`
	ClusterCostUSD float64 `json:"cluster_cost_usd"`
	// PriceTier is the tier GPUCostUSD is priced at (on-demand, reserved,
	// spot).
	PriceTier string `json:"price_tier"`
	// JoulesPerSample is the facility energy per useful sample: per sample
	// processed, or with the fault model per sample of kept progress
	// (goodput × the window); 0 when none.
	JoulesPerSample float64 `json:"joules_per_sample"`
	// MgCO2PerSample is the carbon per useful sample, milligrams.
	MgCO2PerSample float64 `json:"mg_co2_per_sample"`
	// MeanGPUWatts is the mean power of one GPU over the window; the
	// quartiles and NearTDPShare (the GPU-time share within 10 % of the
	// TDP) describe the distribution of per-GPU power over GPU-time, the
	// shape Acme's published distributions have.
	MeanGPUWatts float64 `json:"mean_gpu_watts"`
	P25GPUWatts  float64 `json:"p25_gpu_watts"`
	P50GPUWatts  float64 `json:"p50_gpu_watts"`
	P75GPUWatts  float64 `json:"p75_gpu_watts"`
	NearTDPShare float64 `json:"near_tdp_share"`
	// Tenants are the figures per virtual cluster of the trace (when the
	// trace has them), by name.
	Tenants []EnergyTenant `json:"tenants,omitempty"`
}

// EnergyTenant is one tenant's (virtual cluster's) share of a run's energy.
type EnergyTenant struct {
	Name    string  `json:"name"`
	KWh     float64 `json:"kwh"`
	KgCO2   float64 `json:"kg_co2"`
	CostUSD float64 `json:"cost_usd"`
}
