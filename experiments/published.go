package experiments

// Published is one policy's row of the paper's large-scale Philly table
// (ARENA.md §8: 1,280 GPUs, 2000 rounds; recomputed from the authors'
// stored arrays, identical to the artifact-evaluation claims).
type Published struct {
	Policy   string // this project's name
	Finished int
	MeanJCT  float64 // over finished jobs, s
	// PaddedMeanJCT pads every policy to Arena's 828 jobs with the largest
	// JCT of any policy.
	PaddedMeanJCT float64
	// Reduction is Arena's padded-mean-JCT reduction against the policy, %;
	// AvgThrRatio and PeakThrRatio are Arena's throughput over the policy's.
	Reduction, AvgThrRatio, PeakThrRatio float64
	// MeanQueueing, s; QueueingFinishedOnly marks FCFS's stored list, which
	// holds its finished jobs only.
	MeanQueueing         float64
	QueueingFinishedOnly bool
	Note                 string
}

// PublishedPhilly is the paper's Philly table (ARENA.md §8).
var PublishedPhilly = []Published{
	{Policy: "arena", Finished: 828, MeanJCT: 41648, PaddedMeanJCT: 41648, AvgThrRatio: 1, PeakThrRatio: 1, MeanQueueing: 29.2,
		Note: "mean / peak throughput 6,770.6 / 10,994.3 samples/s"},
	{Policy: "fcfs", Finished: 590, MeanJCT: 83192, PaddedMeanJCT: 223034, Reduction: 81.3, AvgThrRatio: 1.55, PeakThrRatio: 1.58,
		MeanQueueing: 11708, QueueingFinishedOnly: true, Note: "stored queueing list holds the 590 finished jobs only"},
	{Policy: "elasticflow-ls", Finished: 573, MeanJCT: 55515, PaddedMeanJCT: 213869, Reduction: 80.5, AvgThrRatio: 1.47, PeakThrRatio: 1.15,
		MeanQueueing: 80229, Note: "from an earlier artifact version; the ae-eurosys head gives 565 jobs, mean JCT 60,220 s, 4,592.4 / 9,713.4 samples/s"},
	{Policy: "gavel-stored", Finished: 642, MeanJCT: 64879, PaddedMeanJCT: 178280, Reduction: 76.6, AvgThrRatio: 1.34, PeakThrRatio: 1.26, MeanQueueing: 46273},
	{Policy: "sia-stored", Finished: 633, MeanJCT: 44394, PaddedMeanJCT: 168107, Reduction: 75.2, AvgThrRatio: 1.35, PeakThrRatio: 1.12, MeanQueueing: 72379},
	{Policy: "gandiva", Finished: 608, MeanJCT: 78455, PaddedMeanJCT: 208979, Reduction: 80.1, AvgThrRatio: 1.47, PeakThrRatio: 1.45, MeanQueueing: 41619,
		Note: "an old Gandiva port the artifact no longer runs"},
}

// PublishedAblation is one row of the paper's Philly ablation table.
type PublishedAblation struct {
	Policy    string
	Finished  int
	Reduction float64 // Arena's padded-mean-JCT reduction against it, % (0 = not given)
	AvgThr    float64 // Arena's mean throughput over its (0 = not given)
	Note      string
}

// PublishedAblations is ARENA.md §8's ablation table.
var PublishedAblations = []PublishedAblation{
	{Policy: "arena-ns", Finished: 789, Reduction: 48.2, AvgThr: 1.068, Note: "no scaling"},
	{Policy: "arena-nh", Finished: 689, Reduction: 71.7, AvgThr: 1.210, Note: "no GPU-type change"},
	{Policy: "arena-ddl", Finished: 468, Note: "deadline-aware variant"},
}

// Paper headline claims (ARENA.md §8, "Other paper numbers").
const (
	PaperJCTReduction = 49.3 // %, Arena
	PaperThroughput   = 1.60 // ×, Arena
)

// PublishedFor returns the published Philly row of a policy.
func PublishedFor(policy string) (Published, bool) {
	for _, p := range PublishedPhilly {
		if p.Policy == policy {
			return p, true
		}
	}
	return Published{}, false
}

// PublishedAblationFor returns the published ablation row of a policy.
func PublishedAblationFor(policy string) (PublishedAblation, bool) {
	for _, p := range PublishedAblations {
		if p.Policy == policy {
			return p, true
		}
	}
	return PublishedAblation{}, false
}
