package sia

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/policy/ilp"
)

// glpkScript solves one program per input line with GLPK through cvxopt,
// building the matrices as cvxpy's GLPK_MI interface did for the artifact.
//
//go:embed glpk_reassignment.py
var glpkScript []byte

// ErrNoGLPK: no python3 with cvxopt (GLPK) is installed.
var ErrNoGLPK = errors.New("sia: GLPK needs python3 with cvxopt (Debian: apt-get install python3-cvxopt)")

// GLPK is a Solver backed by GLPK 5 through Python's cvxopt: the solver
// the artifact's Sia used (cvxpy GLPK_MI). It is not exact on these
// programs — the −1e9 entries swamp its simplex tolerances, so it can call
// a sub-optimal assignment optimal (docs/ilp-baselines.md) — which is why
// the stored Philly run follows it and not the exact solver. One helper
// process serves all programs; Close ends it. Safe for concurrent use.
type GLPK struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	script string
}

// StartGLPK starts the helper process; it returns ErrNoGLPK when no python3
// with cvxopt is found.
func StartGLPK() (*GLPK, error) {
	python := ""
	for _, name := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(name); err == nil && exec.Command(p, "-c", "import cvxopt.glpk").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		return nil, ErrNoGLPK
	}
	f, err := os.CreateTemp("", "arena-sia-glpk-*.py")
	if err != nil {
		return nil, fmt.Errorf("sia: GLPK: %w", err)
	}
	if _, err := f.Write(glpkScript); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("sia: GLPK: %w", err)
	}
	f.Close()
	g := &GLPK{cmd: exec.Command(python, f.Name()), script: f.Name()}
	g.cmd.Stderr = os.Stderr
	if g.in, err = g.cmd.StdinPipe(); err == nil {
		var out io.ReadCloser
		if out, err = g.cmd.StdoutPipe(); err == nil {
			g.out = bufio.NewReader(out)
			err = g.cmd.Start()
		}
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("sia: GLPK: %w", err)
	}
	return g, nil
}

// Solve implements Solver: the artifact's matrix (admitted rows, then the
// new job's row; −1e9 where infeasible), GLPK's status and columns.
func (g *GLPK) Solve(p *ilp.Reassignment, _ ilp.Options) (ilp.Assignment, bool, error) {
	var w [][]float64
	var prev []int
	for _, r := range p.Rows {
		w = append(w, r.Value)
		prev = append(prev, r.Prev)
	}
	newRow := make([]float64, len(p.New.Value))
	for c, x := range p.New.Value {
		newRow[c] = x - NewJobBonus // the script adds the bonus as the artifact's objective does
		if x <= ilp.InfeasibleValue {
			newRow[c] = estimator.InfeasibleThroughput
		}
	}
	w = append(w, newRow)
	req, err := json.Marshal(map[string]any{"w": w, "prev": prev, "hasprev": p.HasPrev, "cap": p.Capacity, "bonus": NewJobBonus})
	if err != nil {
		return ilp.Assignment{}, false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := g.in.Write(append(req, '\n')); err != nil {
		return ilp.Assignment{}, false, fmt.Errorf("sia: GLPK: %w", err)
	}
	line, err := g.out.ReadBytes('\n')
	if err != nil {
		return ilp.Assignment{}, false, fmt.Errorf("sia: GLPK helper: %w", err)
	}
	var res struct {
		Status string `json:"status"`
		Cols   []int  `json:"cols"`
	}
	if err := json.Unmarshal(line, &res); err != nil {
		return ilp.Assignment{}, false, fmt.Errorf("sia: GLPK helper answered %q: %w", line, err)
	}
	if res.Status != "optimal" || len(res.Cols) != len(p.Rows)+1 {
		return ilp.Assignment{}, false, nil
	}
	n := len(res.Cols) - 1
	return ilp.Assignment{Columns: res.Cols[:n], NewColumn: res.Cols[n]}, true, nil
}

// Close ends the helper process and removes its script.
func (g *GLPK) Close() error {
	g.in.Close()
	io.Copy(io.Discard, g.out)
	err := g.cmd.Wait()
	os.Remove(g.script)
	return err
}
