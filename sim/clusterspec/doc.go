// Package clusterspec reads cluster descriptions: the built-in clusters
// (paper-1280, testbed-64, h100-l20; with a network topology h100-24k,
// h100-98k, nvl72-h100, h100-racks), a YAML spec (name, node pools in order and an
// optional topology: fast domain, bandwidths, switch tiers with their
// oversubscription; docs/topology.md; an energy section overriding the
// power, price and carbon model, docs/energy.md) or the artifact's JSON spec
// ([{"a100": {"node_num": 80}, …}], node sizes from the GPU catalog), into
// a sim.ClusterSpec for sim.NewCluster.
//
// The order of pools and of nodes in them is kept: it is the tie-break
// order policies use, as in the artifact (the artifact builds nodes in its
// JSON's key order, so the JSON is read token by token). Parsing is
// strict — one YAML document, no duplicate keys, whole numbers only,
// nothing after the JSON, sizes within sim's bounds (sim.MaxNodes,
// sim.MaxGPUsPerNode, sim.MaxClusterGPUs) and files within MaxBytes — and
// every error is an input.Error naming file, line and key without quoting
// the file beyond a key or a short value.
package clusterspec
