package replay

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/arena-sim/arena/sim"
)

// Slurm is a Slurm cluster the replay talks to through its client
// commands (srun, sbatch, squeue, scancel, sinfo): an emulated one arena
// started (Up) or an existing one (Attach).
type Slurm struct {
	// Env is the client commands' environment (SLURM_CONF of an emulated
	// cluster).
	Env       []string
	Partition string
	// Nodes maps arena's node index to the Slurm node name.
	Nodes []string
	// Dir is a directory every node can write and arena can read (the
	// native mode's batch output): the work directory of an emulated
	// cluster, a shared one on a real cluster.
	Dir string

	// Emulated only.
	Emulated  bool
	daemons   []*daemon
	keep      bool
	StartupS  float64 // wall seconds from the first daemon to every node idle
	DaemonRSS []int64 // resident KiB of each slurmd after start-up
	CtldRSS   int64
}

type daemon struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// Command is a Slurm client command with the cluster's environment; it
// runs in its own process group, so a Ctrl-C at the terminal reaches
// arena alone, which stops it in order.
func (s *Slurm) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 3 * time.Second
	return cmd
}

// output runs a client command and returns its stdout; an error carries
// its stderr.
func (s *Slurm) output(ctx context.Context, name string, args ...string) (string, error) {
	cmd := s.Command(ctx, name, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// UpOptions say how to start an emulated cluster.
type UpOptions struct {
	// Dir is the work directory ("" = a new temporary one), removed by
	// Down unless Keep.
	Dir  string
	Keep bool
	// Scheduler is SchedulerType without "sched/" ("" = backfill).
	Scheduler string
	Log       io.Writer // progress lines; nil = none
}

// sbinPath finds a daemon in PATH or /usr/sbin.
func sbinPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("replay: %s not found (install Debian's slurmctld, slurmd, slurm-client and munge: docs/replay.md)", name)
}

// ErrNeedsRoot is returned by Up when not run as root: Slurm's daemons
// run as root here (SlurmUser=root).
var ErrNeedsRoot = errors.New("replay: an emulated Slurm cluster needs root (its daemons run as SlurmUser=root); run as root, or --attach to an existing cluster")

// Up starts an emulated Slurm cluster with c's nodes: a private munged,
// slurmctld and one `slurmd -N NAME` per node, each on its own loopback
// address and a port below the ephemeral range; it returns when every
// node is idle. Every daemon is arena's child in its own process group,
// killed by the kernel if arena dies (Pdeathsig) and stopped by Down by
// its pid. On error, what was started is stopped.
func Up(ctx context.Context, c *sim.Cluster, o UpOptions) (s *Slurm, err error) {
	if os.Geteuid() != 0 {
		return nil, ErrNeedsRoot
	}
	bins := map[string]string{}
	for _, b := range []string{"munged", "munge", "slurmctld", "slurmd", "srun", "sbatch", "squeue", "sinfo", "scontrol", "scancel"} {
		if bins[b], err = sbinPath(b); err != nil {
			return nil, err
		}
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "arena-replay-"); err != nil {
			return nil, err
		}
	} else if err = os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	s = &Slurm{Emulated: true, Dir: dir, keep: o.Keep, Partition: "arena", Nodes: NodeNames(c)}
	defer func() {
		if err != nil {
			s.Down(context.Background())
		}
	}()
	for _, d := range []string{"log", "munge", "ctld", "spool", "run", "gpu", "native"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return s, err
		}
	}
	if err := os.Chmod(filepath.Join(dir, "munge"), 0o711); err != nil {
		return s, err
	}
	for i := 0; i < max(MaxGPUsPerNode(c), 1); i++ {
		if err := os.WriteFile(filepath.Join(dir, "gpu", strconv.Itoa(i)), nil, 0o644); err != nil {
			return s, err
		}
	}
	lo, hi := 10000, ephemeralLow()
	start, _ := rand.Int(rand.Reader, big.NewInt(int64(hi-lo)))
	ports, err := PickPorts(len(c.Nodes)+1, lo, hi, lo+int(start.Int64()), PortFree)
	if err != nil {
		return s, err
	}
	sock := filepath.Join(dir, "munge", "munge.socket")
	conf, err := SlurmConf(c, ConfParams{Dir: dir, MungeSock: sock, CtldPort: ports[0], NodePorts: ports[1:],
		GPUFiles: filepath.Join(dir, "gpu"), Partition: s.Partition, ClusterTag: "arenareplay", Scheduler: o.Scheduler})
	if err != nil {
		return s, err
	}
	files := map[string]string{"slurm.conf": conf, "gres.conf": GresConf(c, filepath.Join(dir, "gpu")), "plugstack.conf": ""}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return s, err
		}
	}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		return s, err
	}
	keyFile := filepath.Join(dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o600); err != nil {
		return s, err
	}
	s.Env = []string{"SLURM_CONF=" + filepath.Join(dir, "slurm.conf")}
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "replay: "+format+"\n", a...)
		}
	}
	t0 := time.Now()
	if err := s.start("munged", bins["munged"], "--foreground", "--force", "--socket="+sock, "--key-file="+keyFile,
		"--pid-file="+filepath.Join(dir, "munge", "munged.pid"), "--log-file="+filepath.Join(dir, "log", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge", "munged.seed")); err != nil {
		return s, err
	}
	if err := s.waitFor(ctx, 20*time.Second, "munged answering", func() bool {
		return s.Command(ctx, bins["munge"], "-n", "-S", sock).Run() == nil
	}); err != nil {
		return s, err
	}
	if err := s.start("slurmctld", bins["slurmctld"], "-D", "-i"); err != nil {
		return s, err
	}
	if err := s.waitFor(ctx, 60*time.Second, "slurmctld answering", func() bool {
		out, err := s.output(ctx, bins["scontrol"], "ping")
		return err == nil && strings.Contains(out, "UP")
	}); err != nil {
		return s, err
	}
	for _, name := range s.Nodes {
		if err := s.start("slurmd "+name, bins["slurmd"], "-D", "-N", name); err != nil {
			return s, err
		}
	}
	n := len(s.Nodes)
	idle := 0
	if err := s.waitFor(ctx, time.Duration(60+n/4)*time.Second, fmt.Sprintf("%d nodes idle", n), func() bool {
		out, err := s.output(ctx, bins["sinfo"], "-h", "-N", "-p", s.Partition, "-o", "%N %T")
		if err != nil {
			return false
		}
		idle = 0
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[1] == "idle" {
				idle++
			}
		}
		return idle >= n
	}); err != nil {
		return s, fmt.Errorf("%w (%d of %d idle; logs in %s/log)", err, idle, n, dir)
	}
	s.StartupS = time.Since(t0).Seconds()
	for _, d := range s.daemons {
		rss := rssKiB(d.cmd.Process.Pid)
		switch {
		case strings.HasPrefix(d.name, "slurmd "):
			s.DaemonRSS = append(s.DaemonRSS, rss)
		case d.name == "slurmctld":
			s.CtldRSS = rss
		}
	}
	logf("emulated Slurm up in %.1f s: %d nodes, slurmctld on port %d, work directory %s", s.StartupS, n, ports[0], dir)
	return s, nil
}

// start starts one daemon, its output appended to log/NAME.out.
func (s *Slurm) start(name, path string, args ...string) error {
	out, err := os.OpenFile(filepath.Join(s.Dir, "log", strings.ReplaceAll(name, " ", "-")+".out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Dir = s.Dir
	// Its own process group (a terminal's Ctrl-C reaches arena, which
	// stops the daemons in order); killed if arena dies first.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("replay: starting %s: %w", name, err)
	}
	d := &daemon{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); out.Close(); close(d.done) }()
	s.daemons = append(s.daemons, d)
	return nil
}

// waitFor polls ok every 0.1 s until it holds, the limit passes (an
// error naming what), or ctx ends.
func (s *Slurm) waitFor(ctx context.Context, limit time.Duration, what string, ok func() bool) error {
	end := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(end) {
			return fmt.Errorf("replay: %s: not within %v", what, limit)
		}
		for _, d := range s.daemons {
			select {
			case <-d.done:
				return fmt.Errorf("replay: %s exited (%v) while waiting for %s; logs in %s/log", d.name, d.cmd.ProcessState, what, s.Dir)
			default:
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// Down stops an emulated cluster: every daemon by its pid, slurmds first
// (all at once), then slurmctld, then munged; SIGTERM, SIGKILL after 3 s
// — or SIGKILL at once when ctx has ended (Ctrl-C: arena has 2 s to
// stop). Then any process still carrying the cluster's SLURM_CONF in its
// environment (a slurmstepd, a stand-in, an srun) is killed by its pid,
// and the work directory is removed unless asked to keep it. An attached
// cluster is left as it is.
func (s *Slurm) Down(ctx context.Context) {
	if s == nil || !s.Emulated {
		return
	}
	wait := 3 * time.Second
	if ctx.Err() != nil {
		wait = 0
	}
	var nodes, rest []*daemon
	for _, d := range s.daemons {
		if strings.HasPrefix(d.name, "slurmd ") {
			nodes = append(nodes, d)
		} else {
			rest = append(rest, d)
		}
	}
	stop := func(ds []*daemon) {
		var wg sync.WaitGroup
		for _, d := range ds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if wait == 0 {
					d.cmd.Process.Kill()
				} else {
					d.cmd.Process.Signal(syscall.SIGTERM)
				}
				select {
				case <-d.done:
				case <-time.After(wait):
					d.cmd.Process.Kill()
					<-d.done
				}
			}()
		}
		wg.Wait()
	}
	stop(nodes)
	for i := len(rest) - 1; i >= 0; i-- {
		stop(rest[i : i+1])
	}
	s.daemons = nil
	for _, pid := range PidsWithEnv(s.confEnv()) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if !s.keep && s.Dir != "" {
		os.RemoveAll(s.Dir)
	}
}

// confEnv is the SLURM_CONF entry of an emulated cluster's environment.
func (s *Slurm) confEnv() string { return "SLURM_CONF=" + filepath.Join(s.Dir, "slurm.conf") }

// PidsWithEnv lists the processes (other than arena itself) whose
// environment holds the entry kv, e.g. every process an emulated
// cluster's daemons and clients started.
func PidsWithEnv(kv string) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		for _, v := range strings.Split(string(b), "\x00") {
			if v == kv {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// Pids lists the daemons' pids (tests check none is left).
func (s *Slurm) Pids() []int {
	var p []int
	for _, d := range s.daemons {
		p = append(p, d.cmd.Process.Pid)
	}
	return p
}

// ephemeralLow is the start of the kernel's ephemeral port range
// (32768 when unreadable).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if v, err := strconv.Atoi(f[0]); err == nil && v > 11000 {
				return v
			}
		}
	}
	return 32768
}

// rssKiB is a process's resident set (VmRSS, KiB); 0 if unreadable.
func rssKiB(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// Attach uses an existing Slurm cluster (the client commands' own
// configuration) as c's nodes: the partition's nodes with GPUs of each of
// c's types, sorted by name, stand for c's nodes of that type in node
// order (each must have at least that node's GPUs). dir must be a
// directory every node can write and arena can read (native mode's batch
// output).
func Attach(ctx context.Context, c *sim.Cluster, partition, dir string) (*Slurm, error) {
	s := &Slurm{Partition: partition, Dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, "native"), 0o755); err != nil {
		return nil, err
	}
	out, err := s.output(ctx, "sinfo", "-h", "-N", "-p", partition, "-o", "%N %G")
	if err != nil {
		return nil, err
	}
	byType, err := ParseSinfoGres(out)
	if err != nil {
		return nil, err
	}
	s.Nodes = make([]string, len(c.Nodes))
	used := map[string]int{}
	for i, n := range c.Nodes {
		t := GresType(n.GPU)
		have := byType[t]
		k := used[t]
		if k >= len(have) {
			return nil, fmt.Errorf("replay: partition %s has %d nodes with %s GPUs; cluster %s needs %d", partition, len(have), t, c.Name, k+1)
		}
		if have[k].GPUs < n.Capacity {
			return nil, fmt.Errorf("replay: node %s has %d %s GPUs; cluster %s's node %d needs %d", have[k].Name, have[k].GPUs, t, c.Name, i, n.Capacity)
		}
		s.Nodes[i] = have[k].Name
		used[t]++
	}
	return s, nil
}

// SlurmNode is a node of an attached cluster and its GPUs of one type.
type SlurmNode struct {
	Name string
	GPUs int
}

// ParseSinfoGres reads `sinfo -h -N -o "%N %G"` lines ("node1
// gpu:a40:2(S:0-1),gpu:a10:1") into nodes by GPU type, each type's sorted
// by name. Lines without a typed gpu gres are skipped; a node listed
// twice (in several partitions) counts once.
func ParseSinfoGres(out string) (map[string][]SlurmNode, error) {
	by := map[string][]SlurmNode{}
	seen := map[string]bool{}
	for ln, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || seen[f[0]] {
			continue
		}
		seen[f[0]] = true
		for _, g := range strings.Split(f[1], ",") {
			if i := strings.IndexByte(g, '('); i >= 0 {
				g = g[:i]
			}
			p := strings.Split(g, ":")
			if len(p) != 3 || p[0] != "gpu" {
				continue
			}
			n, err := strconv.Atoi(p[2])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("sinfo line %d: gres %q: want gpu:TYPE:COUNT", ln+1, g)
			}
			by[p[1]] = append(by[p[1]], SlurmNode{Name: f[0], GPUs: n})
		}
	}
	for _, v := range by {
		sort.Slice(v, func(i, j int) bool { return v[i].Name < v[j].Name })
	}
	return by, nil
}
