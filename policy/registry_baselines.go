package policy

// baselineEntries registers ElasticFlow and the classic single-type
// policies (policy/elasticflow, policy/tiresias, policy/srtf).
func baselineEntries() []Entry { return nil }
