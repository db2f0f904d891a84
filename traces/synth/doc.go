// Package synth turns a canonical job table (or nothing) into a workload:
// filters, Pollux/Sia time windows and samples, Poisson re-arrival at a
// rate, load scaling by arrival rate, Gavel's duration law, GPU-demand
// mixes, and re-labelling recipes — the Arena artifact's (ARENA.md §8:
// LM family, size, GPUs, GPU type and batch drawn with the stated
// thresholds and redrawn until the profile database says the plan is
// feasible; iterations from the duration and the estimated iteration
// time; keep-gpus=exact keeps any GPU count, labelled with the hybrid
// estimator) and Pollux's/Sia's GPU-time buckets — and the Acme recipe
// (acme.go): GPU counts, run times, outcomes and job types drawn from the
// published statistics of the Acme trace of LLM development (NSDI'24).
//
// Every random choice comes from math/rand/v2's PCG seeded explicitly from
// Options.Seed, one stream per stage (sampling, arrivals, durations, GPU
// demand, labels, Acme), so a synthesis is the same on every machine and
// changing one stage's parameters (say the arrival rate) leaves the other
// stages' draws unchanged — runs at two rates compare the same jobs.
package synth
