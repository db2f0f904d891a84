package replay

import (
	"fmt"
	"net"
	"strings"

	"github.com/arena-sim/arena/sim"
)

// NodeNames names the Slurm node of every node of c, in node order: the
// GPU type (letters and digits only) and the node's index among the
// nodes of its type, "a40-0", "a40-1", …, "a10-0". The names are what
// `srun -w` takes and what the stand-ins report back.
func NodeNames(c *sim.Cluster) []string {
	names := make([]string, len(c.Nodes))
	seen := map[string]int{}
	for i, n := range c.Nodes {
		t := slurmWord(n.GPU)
		names[i] = fmt.Sprintf("%s-%d", t, seen[t])
		seen[t]++
	}
	return names
}

// slurmWord keeps the letters and digits of s, lower case: a node-name
// prefix or a gres type Slurm's parsers accept.
func slurmWord(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "gpu"
	}
	return b.String()
}

// GresType is the gres type a GPU type of arena is known by in Slurm
// (`--gres=gpu:TYPE:N`): slurmWord of the name, "a100-80g" → "a10080g".
func GresType(gpu string) string { return slurmWord(gpu) }

// LoopbackAddr is node i's own loopback address, 127.0.1.1, 127.0.1.2, …
// (250 per third octet): every emulated slurmd listens on its own
// address and port, as the exploration found works.
func LoopbackAddr(i int) string { return fmt.Sprintf("127.0.%d.%d", 1+i/250, 1+i%250) }

// ConfParams are the per-run values of an emulated cluster's slurm.conf.
type ConfParams struct {
	Dir        string // the work directory: state, spool, logs, pid files
	MungeSock  string // the private munged's socket
	CtldPort   int
	NodePorts  []int  // one per node, in node order
	GPUFiles   string // directory of the empty files gres File= points at
	Partition  string
	ClusterTag string // ClusterName
	// Scheduler is Slurm's SchedulerType without its "sched/" prefix:
	// "builtin" (strict priority order: a job that cannot start blocks
	// its partition's later jobs) or "backfill".
	Scheduler string
}

// SlurmConf is the slurm.conf of an emulated cluster whose nodes are c's:
// one NodeName line per node (its own loopback address and port, CPUs =
// its GPUs, Gres=gpu:TYPE:N), one partition of them all; munge
// authentication on a private socket; no accounting (the stand-ins time
// themselves). Every daemon runs as root from the work directory.
func SlurmConf(c *sim.Cluster, p ConfParams) (string, error) {
	if len(p.NodePorts) != len(c.Nodes) {
		return "", fmt.Errorf("replay: %d node ports for %d nodes", len(p.NodePorts), len(c.Nodes))
	}
	names := NodeNames(c)
	var b strings.Builder
	fmt.Fprintf(&b, `# An emulated Slurm cluster of %d nodes (cluster spec %s), written by arena replay.
ClusterName=%s
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%s
CredType=cred/munge
StateSaveLocation=%s/ctld
SlurmdSpoolDir=%s/spool/%%n
SlurmctldPidFile=%s/run/slurmctld.pid
SlurmdPidFile=%s/run/slurmd-%%n.pid
SlurmctldLogFile=%s/log/slurmctld.log
SlurmdLogFile=%s/log/slurmd-%%n.log
PlugStackConfig=%s/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/%s
# Schedule at once: no batching delay, a main pass every second, backfill every second.
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=1,bf_interval=1,default_queue_depth=10000
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
KillWait=2
InactiveLimit=0
MinJobAge=300
MaxJobCount=100000
SlurmdTimeout=600
MessageTimeout=30
`, len(c.Nodes), c.Name, p.ClusterTag, p.CtldPort, p.MungeSock, p.Dir, p.Dir, p.Dir, p.Dir, p.Dir, p.Dir, p.Dir, cmpOr(p.Scheduler, "backfill"))
	for i, n := range c.Nodes {
		fmt.Fprintf(&b, "NodeName=%s NodeAddr=%s NodeHostname=localhost Port=%d CPUs=%d RealMemory=1000 Gres=gpu:%s:%d State=UNKNOWN\n",
			names[i], LoopbackAddr(i), p.NodePorts[i], max(n.Capacity, 1), GresType(n.GPU), n.Capacity)
	}
	fmt.Fprintf(&b, "PartitionName=%s Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO\n", p.Partition)
	// One partition per GPU type: native mode submits there, so that a
	// waiting job holds back later jobs of its type only (FCFS per type).
	byType := map[string][]string{}
	var types []string
	for i, n := range c.Nodes {
		t := GresType(n.GPU)
		if _, ok := byType[t]; !ok {
			types = append(types, t)
		}
		byType[t] = append(byType[t], names[i])
	}
	for _, t := range types {
		fmt.Fprintf(&b, "PartitionName=%s Nodes=%s MaxTime=INFINITE State=UP OverSubscribe=NO\n", TypePartition(p.Partition, t), strings.Join(byType[t], ","))
	}
	return b.String(), nil
}

// TypePartition is the partition of one GPU type's nodes: "arena-a40".
func TypePartition(partition, gresType string) string { return partition + "-" + gresType }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// GresConf is the gres.conf of the emulated cluster: every node's GPUs
// are File= entries pointing at empty regular files (gpuFiles/0, 1, …;
// a count-only gres is dropped and the node drains), no autodetection.
func GresConf(c *sim.Cluster, gpuFiles string) string {
	names := NodeNames(c)
	var b strings.Builder
	b.WriteString("AutoDetect=off\n")
	for i, n := range c.Nodes {
		if n.Capacity == 0 {
			continue
		}
		files := gpuFiles + "/0"
		if n.Capacity > 1 {
			files = fmt.Sprintf("%s/[0-%d]", gpuFiles, n.Capacity-1)
		}
		fmt.Fprintf(&b, "NodeName=%s Name=gpu Type=%s File=%s\n", names[i], GresType(n.GPU), files)
	}
	return b.String()
}

// MaxGPUsPerNode is the largest node capacity among c's nodes (how many
// empty GPU files the emulated cluster needs).
func MaxGPUsPerNode(c *sim.Cluster) int {
	m := 0
	for _, n := range c.Nodes {
		m = max(m, n.Capacity)
	}
	return m
}

// PickPorts returns n distinct ports from [lo, hi), scanning up from
// start (wrapping at hi) and keeping those free says are free; it fails
// when the range has fewer than n. Ports below the ephemeral range do not
// collide with the client ports the kernel hands out meanwhile.
func PickPorts(n, lo, hi, start int, free func(int) bool) ([]int, error) {
	if hi <= lo || n < 0 {
		return nil, fmt.Errorf("replay: bad port range [%d, %d)", lo, hi)
	}
	if start < lo || start >= hi {
		start = lo
	}
	ports := make([]int, 0, n)
	for k := 0; k < hi-lo && len(ports) < n; k++ {
		p := lo + (start-lo+k)%(hi-lo)
		if free(p) {
			ports = append(ports, p)
		}
	}
	if len(ports) < n {
		return nil, fmt.Errorf("replay: only %d free ports in [%d, %d), %d needed", len(ports), lo, hi, n)
	}
	return ports, nil
}

// PortFree says whether TCP port p can be bound on every address (slurmd
// listens on all of them).
func PortFree(p int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf(":%d", p))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
