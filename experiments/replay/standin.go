package replay

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// StandinScript is the stand-in job every replayed start runs: a POSIX
// shell script that writes its own timestamps (epoch seconds, ns digits)
// and the node it runs on, and sleeps in between. With until > 0 it
// sleeps until that absolute epoch instant (the deterministic option:
// its end does not depend on when Slurm started it); otherwise it sleeps
// seconds. Every line it prints starts with "arena-standin", followed by
// the task's rank, its node, "start" or "end" and the instant:
//
//	arena-standin 0 a40-3 start 1765000000.123456789
//
// In a batch job (native mode) SLURM_JOB_NODELIST is printed as well
// ("arena-standin 0 a40-3 nodes a40-[3-4]").
func StandinScript(seconds, until float64) string {
	sleep := fmt.Sprintf("sleep %.3f", max(seconds, 0))
	if until > 0 {
		sleep = fmt.Sprintf(`sleep "$(awk -v e=%.6f -v n="$t" 'BEGIN { d = e - n; if (d < 0) d = 0; printf "%%.3f", d }')"`, until)
	}
	return `p="arena-standin ${SLURM_PROCID:-0} ${SLURMD_NODENAME:-$(hostname)}"; t=$(date +%s.%N); ` +
		`echo "$p start $t"; echo "$p nodes ${SLURM_JOB_NODELIST:-}"; ` + sleep + `; echo "$p end $(date +%s.%N)"`
}

// Stamps is what a stand-in job reported: its first task's start, its
// last task's end (epoch seconds) and the nodes its tasks ran on.
type Stamps struct {
	Start, End float64
	Nodes      []string // sorted, distinct
	NodeList   string   // SLURM_JOB_NODELIST as printed, if any
}

// Complete says whether both timestamps were seen.
func (s Stamps) Complete() bool { return s.Start > 0 && s.End > 0 }

// ParseStamps reads a stand-in's output (lines other than its own are
// ignored: srun's or Slurm's messages) and returns its stamps; an
// "arena-standin" line that does not parse is an error naming its line.
func ParseStamps(r io.Reader) (Stamps, error) {
	var s Stamps
	nodes := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || f[0] != "arena-standin" {
			continue
		}
		if len(f) < 4 {
			if len(f) == 3 && f[2] == "nodes" || len(f) == 4 && f[3] == "nodes" {
				continue
			}
			return s, fmt.Errorf("line %d: %q: want 'arena-standin RANK NODE start|end|nodes VALUE'", line, sc.Text())
		}
		node, what := f[2], f[3]
		if what == "nodes" {
			if len(f) > 4 {
				s.NodeList = f[4]
			}
			continue
		}
		if len(f) != 5 {
			return s, fmt.Errorf("line %d: %q: want 'arena-standin RANK NODE %s SECONDS'", line, sc.Text(), what)
		}
		v, err := strconv.ParseFloat(f[4], 64)
		if err != nil || v <= 0 {
			return s, fmt.Errorf("line %d: %s time %q: want epoch seconds", line, what, f[4])
		}
		nodes[node] = true
		switch what {
		case "start":
			if s.Start == 0 || v < s.Start {
				s.Start = v
			}
		case "end":
			s.End = max(s.End, v)
		default:
			return s, fmt.Errorf("line %d: %q: want start, end or nodes", line, what)
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	for n := range nodes {
		s.Nodes = append(s.Nodes, n)
	}
	sort.Strings(s.Nodes)
	return s, nil
}

// ExpandHostlist expands a Slurm hostlist ("a40-[0-2,5],a10-7") into its
// names, in order. Only one bracket per name is supported (Slurm's node
// lists of one-dimensional names).
func ExpandHostlist(s string) ([]string, error) {
	var out []string
	for len(s) > 0 {
		// The next name runs to a comma outside brackets.
		depth, end := 0, len(s)
		for i, r := range s {
			if r == '[' {
				depth++
			} else if r == ']' {
				depth--
			} else if r == ',' && depth == 0 {
				end = i
				break
			}
		}
		item := s[:end]
		s = strings.TrimPrefix(s[end:], ",")
		open := strings.IndexByte(item, '[')
		if open < 0 {
			if item != "" {
				out = append(out, item)
			}
			continue
		}
		closeAt := strings.IndexByte(item, ']')
		if closeAt < open || strings.Contains(item[closeAt+1:], "[") {
			return nil, fmt.Errorf("hostlist %q: want PREFIX[RANGES]SUFFIX", item)
		}
		prefix, suffix := item[:open], item[closeAt+1:]
		for _, rg := range strings.Split(item[open+1:closeAt], ",") {
			lo, hi, isRange := strings.Cut(rg, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil || b < a || b-a > 100000 {
				return nil, fmt.Errorf("hostlist %q: range %q: want N or N-M", item, rg)
			}
			for v := a; v <= b; v++ {
				out = append(out, fmt.Sprintf("%s%0*d%s", prefix, len(lo), v, suffix))
			}
		}
	}
	return out, nil
}
