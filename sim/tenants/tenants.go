package tenants

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/arena-sim/arena/estimator"
	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
)

// Default is the name of the implicit tenant of jobs whose VC the file
// does not list (and of jobs with no VC). A file may list it, quoted
// ("(default)": {…}), to give those jobs an entitlement.
const Default = "(default)"

// MaxFileBytes bounds a tenants file.
const MaxFileBytes = 1 << 20

// Tenant is one VC's entitlement.
type Tenant struct {
	// Name is the VC as the trace writes it (sim.JobSpec.VirtualCluster).
	Name string `json:"name" yaml:"name"`
	// Guaranteed GPUs per GPU type.
	Guaranteed map[string]int `json:"guaranteed,omitempty" yaml:"guaranteed,omitempty"`
	// Cap is the most GPUs the tenant may hold at once; 0 means no cap.
	Cap int `json:"cap,omitempty" yaml:"cap,omitempty"`
	// Weight is the fair-share weight (> 0).
	Weight float64 `json:"weight" yaml:"weight"`
	// Priority orders reclaims: lower priority borrowers go first.
	Priority int `json:"priority" yaml:"priority"`
	// Line is where the tenant is declared in its file (0 when built in code).
	Line int `json:"-" yaml:"-"`
}

// GuaranteedTotal is the tenant's guarantee over all GPU types.
func (t *Tenant) GuaranteedTotal() int {
	n := 0
	for _, g := range t.Guaranteed {
		n += g
	}
	return n
}

// File is a parsed tenants file.
type File struct {
	// Path is the file's name, for error messages.
	Path string `json:"path" yaml:"-"`
	// Tenants in file order; Default is not among them.
	Tenants []Tenant `json:"tenants" yaml:"tenants"`
	// Oversubscribe allows guarantees summing to more than the cluster.
	Oversubscribe bool `json:"oversubscribe,omitempty" yaml:"oversubscribe,omitempty"`

	index map[string]int
}

// New builds a File from tenants given in code (tests, synthesis): the same
// checks as Parse, errors naming the tenant.
func New(path string, oversubscribe bool, ts ...Tenant) (*File, error) {
	f := &File{Path: path, Oversubscribe: oversubscribe, index: map[string]int{}}
	for _, t := range ts {
		if t.Weight == 0 {
			t.Weight = 1
		}
		if err := checkTenant(&t); err != nil {
			return nil, tenantErr(err, path, 0, t.Name)
		}
		if _, dup := f.index[t.Name]; dup {
			return nil, &input.Error{File: path, Err: fmt.Errorf("tenant %s: given twice", sim.ShowValue(t.Name))}
		}
		f.index[t.Name] = len(f.Tenants)
		f.Tenants = append(f.Tenants, t)
	}
	return f, nil
}

// Names reports whether the file lists VC vc as a tenant of its own
// (Default aside).
func (f *File) Names(vc string) bool {
	_, ok := f.index[vc]
	return ok && vc != Default
}

// Index returns the position of the tenant a job of VC vc belongs to:
// its index in Tenants, or len(Tenants) for Default.
func (f *File) Index(vc string) int {
	if i, ok := f.index[vc]; ok {
		return i
	}
	if i, ok := f.index[Default]; ok {
		return i // the file sets the default tenant's entitlement
	}
	return len(f.Tenants)
}

// Len is the number of tenants including Default.
func (f *File) Len() int { return len(f.Tenants) + 1 }

// Tenant returns tenant i (Index's numbering; len(Tenants) is Default).
func (f *File) Tenant(i int) Tenant {
	if i < len(f.Tenants) {
		return f.Tenants[i]
	}
	return Tenant{Name: Default, Weight: 1}
}

//go:embed data/*.yaml
var builtin embed.FS

// BuiltinNames are the tenants files built in (data/<name>.yaml): a
// tenants option or run field may name them instead of a file.
func BuiltinNames() []string { return []string{"philly-vcs"} }

// IsBuiltin reports whether name is a built-in tenants file's name.
func IsBuiltin(name string) bool { return slices.Contains(BuiltinNames(), name) }

// Load reads and parses a tenants file from disk, or a built-in one by
// its name (BuiltinNames; e.g. philly-vcs, Philly's 15 VCs on
// paper-1280).
func Load(path string) (*File, error) {
	if IsBuiltin(path) {
		data, err := builtin.ReadFile("data/" + path + ".yaml")
		if err != nil {
			return nil, fmt.Errorf("tenants %s: %w", path, err)
		}
		return Parse(path, data)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tenants file: %w", err)
	}
	if st.Size() > MaxFileBytes {
		return nil, &input.Error{File: path, Err: fmt.Errorf("%d bytes; a tenants file is at most %d", st.Size(), MaxFileBytes)}
	}
	data, err := input.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tenants file: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a tenants file:
//
//	oversubscribe: false        # optional
//	tenants:
//	  vc-a:                     # the VC's name as the trace writes it
//	    guaranteed: {v100: 32, a100: 8}
//	    cap: 64                 # optional, 0 = none
//	    weight: 2               # optional, default 1
//	    priority: 1             # optional, default 0
//
// Parsing is strict: one document, no unknown or duplicate key, whole
// numbers where counts are expected, known GPU types. Errors name the
// file, the line and the key.
func Parse(path string, data []byte) (*File, error) {
	if len(data) > MaxFileBytes {
		return nil, &input.Error{File: path, Err: fmt.Errorf("%d bytes; a tenants file is at most %d", len(data), MaxFileBytes)}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return nil, &input.Error{File: path, Err: fmt.Errorf("not valid YAML: %s", yamlText(err))}
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		return nil, &input.Error{File: path, Line: second.Line, Err: errors.New("a second YAML document; a tenants file is one document")}
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, &input.Error{File: path, Err: errors.New("want a mapping with keys tenants and oversubscribe")}
	}
	f := &File{Path: path, index: map[string]int{}}
	doc := root.Content[0]
	var seenTenants bool
	err := eachKey(path, doc, func(k, v *yaml.Node) error {
		switch k.Value {
		case "oversubscribe":
			b, err := boolean(v)
			if err != nil {
				return &input.Error{File: path, Line: v.Line, Kind: "key", Field: "oversubscribe", Err: err}
			}
			f.Oversubscribe = b
		case "tenants":
			seenTenants = true
			if v.Kind != yaml.MappingNode {
				return &input.Error{File: path, Line: v.Line, Kind: "key", Field: "tenants", Err: errors.New("want a mapping from VC name to {guaranteed, cap, weight, priority}")}
			}
			if len(v.Content) == 0 {
				// tenants: {} — quota and the fairness figures would have
				// no tenant to act on, and a run would look like one
				// with tenants.
				return &input.Error{File: path, Line: v.Line, Kind: "key", Field: "tenants", Err: errors.New("an empty mapping; list at least one tenant (VC name: {guaranteed, cap, weight, priority})")}
			}
			return eachKey(path, v, func(name, body *yaml.Node) error {
				t, err := parseTenant(path, name, body)
				if err != nil {
					return err
				}
				f.index[t.Name] = len(f.Tenants)
				f.Tenants = append(f.Tenants, t)
				return nil
			})
		default:
			return &input.Error{File: path, Line: k.Line, Kind: "key", Field: k.Value, Err: errors.New("unknown key (want tenants, oversubscribe)")}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !seenTenants {
		return nil, &input.Error{File: path, Kind: "key", Field: "tenants", Err: errors.New("required")}
	}
	return f, nil
}

// eachKey calls fn for each key of a mapping, refusing a duplicate key.
func eachKey(path string, m *yaml.Node, fn func(k, v *yaml.Node) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &input.Error{File: path, Line: k.Line, Err: errors.New("a key must be a plain name")}
		}
		if first, dup := seen[k.Value]; dup {
			return &input.Error{File: path, Line: k.Line, Kind: "key", Field: k.Value, Err: fmt.Errorf("given twice (first on line %d)", first)}
		}
		seen[k.Value] = k.Line
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

func parseTenant(path string, name, body *yaml.Node) (Tenant, error) {
	t := Tenant{Name: name.Value, Weight: 1, Line: name.Line}
	at := func(n *yaml.Node, key string, err error) error {
		return &input.Error{File: path, Line: n.Line, Kind: tenantKind(t.Name), Field: key, Err: err}
	}
	if t.Name == "" {
		return t, &input.Error{File: path, Line: name.Line, Err: errors.New("a tenant needs a non-empty VC name")}
	}
	if err := input.Name(t.Name); err != nil {
		// The same rule as the trace's VC names, which it must match.
		return t, &input.Error{File: path, Line: name.Line, Kind: "key", Field: "tenants", Err: fmt.Errorf("VC name: %w", err)}
	}
	if body.Kind == yaml.ScalarNode && body.Tag == "!!null" {
		return t, nil // "vc-a:" alone: a tenant with the defaults
	}
	if body.Kind != yaml.MappingNode {
		return t, &input.Error{File: path, Line: body.Line, Err: fmt.Errorf("tenant %s: want a mapping {guaranteed, cap, weight, priority}", sim.ShowValue(t.Name))}
	}
	err := eachKey(path, body, func(k, v *yaml.Node) error {
		switch k.Value {
		case "guaranteed":
			if v.Kind != yaml.MappingNode {
				return at(v, "guaranteed", errors.New("want a mapping from GPU type to a GPU count, e.g. {v100: 32}"))
			}
			t.Guaranteed = map[string]int{}
			return eachKey(path, v, func(gk, gv *yaml.Node) error {
				gpu := strings.ToLower(gk.Value)
				if _, err := estimator.LookupGPU(gpu); err != nil {
					return at(gk, "guaranteed."+gk.Value, fmt.Errorf("unknown GPU type; want one of %s", strings.Join(estimator.GPUNames(), ", ")))
				}
				n, err := count(gv)
				if err != nil {
					return at(gv, "guaranteed."+gk.Value, err)
				}
				t.Guaranteed[gpu] = n
				return nil
			})
		case "cap":
			n, err := count(v)
			if err != nil {
				return at(v, "cap", err)
			}
			t.Cap = n
		case "weight":
			w, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || err != nil || math.IsNaN(w) || math.IsInf(w, 0) {
				return at(v, "weight", fmt.Errorf("want a number > 0, got %s", sim.ShowValue(v.Value)))
			}
			if w <= 0 {
				return at(v, "weight", fmt.Errorf("want a number > 0, got %s (a weight of 0 or less would give the tenant no share)", v.Value))
			}
			t.Weight = w
		case "priority":
			p, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil {
				return at(v, "priority", fmt.Errorf("want a whole number, got %s", sim.ShowValue(v.Value)))
			}
			t.Priority = p
		default:
			return &input.Error{File: path, Line: k.Line, Kind: tenantKind(t.Name), Field: k.Value, Err: errors.New("unknown key (want guaranteed, cap, weight, priority)")}
		}
		return nil
	})
	if err != nil {
		return t, err
	}
	if err := checkTenant(&t); err != nil {
		return t, tenantErr(err, path, t.Line, t.Name)
	}
	return t, nil
}

// tenantKind is the Kind of an input.Error about one of tenant name's
// keys: the message reads "file:line: tenant "a": key cap: …".
func tenantKind(name string) string { return "tenant " + sim.ShowValue(name) + ": key" }

// tenantErr places checkTenant's error in file path at line (0: none),
// for tenant name.
func tenantErr(err error, path string, line int, name string) error {
	var ie *input.Error
	if errors.As(err, &ie) {
		e := *ie
		e.File, e.Line, e.Kind = path, line, tenantKind(name)
		return &e
	}
	return &input.Error{File: path, Line: line, Err: fmt.Errorf("tenant %s: %w", sim.ShowValue(name), err)}
}

// checkTenant checks a tenant's values; an error about a key is an
// *input.Error naming it (tenantErr places it).
func checkTenant(t *Tenant) error {
	key := func(field, format string, args ...any) error {
		return &input.Error{Kind: "key", Field: field, Err: fmt.Errorf(format, args...)}
	}
	if t.Name == "" {
		return errors.New("empty VC name")
	}
	if t.Weight <= 0 || math.IsNaN(t.Weight) || math.IsInf(t.Weight, 0) {
		return key("weight", "want a number > 0, got %g", t.Weight)
	}
	if t.Cap < 0 {
		return key("cap", "want a whole number ≥ 0, got %d", t.Cap)
	}
	for g, n := range t.Guaranteed {
		if n < 0 {
			return key("guaranteed."+g, "want a whole number ≥ 0, got %d", n)
		}
	}
	if g := t.GuaranteedTotal(); t.Cap > 0 && g > t.Cap {
		return key("cap", "%d is below the tenant's guarantee of %d GPUs", t.Cap, g)
	}
	return nil
}

func count(v *yaml.Node) (int, error) {
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || err != nil || n < 0 {
		return 0, fmt.Errorf("want a whole number ≥ 0, got %s", sim.ShowValue(v.Value))
	}
	return n, nil
}

func boolean(v *yaml.Node) (bool, error) {
	if v.Kind == yaml.ScalarNode {
		switch strings.ToLower(v.Value) {
		case "true", "yes", "on":
			return true, nil
		case "false", "no", "off":
			return false, nil
		}
	}
	return false, fmt.Errorf("want true or false, got %s", sim.ShowValue(v.Value))
}

func yamlText(err error) string {
	msg := err.Error()
	if i := strings.IndexAny(msg, "`'\""); i >= 0 {
		msg = strings.TrimSpace(msg[:i]) + " …"
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

// CheckCluster refuses guarantees of a GPU type the cluster lacks and,
// unless f.Oversubscribe, guarantees of a type summing to more GPUs than
// the cluster has. Errors name the file, the tenant's line and the key.
func (f *File) CheckCluster(c *sim.Cluster) error {
	sum := map[string]int{}
	for _, t := range f.Tenants {
		for _, g := range sortedKeys(t.Guaranteed) {
			if c.TotalGPUs(g) == 0 && t.Guaranteed[g] > 0 {
				return &input.Error{File: f.Path, Line: t.Line, Kind: tenantKind(t.Name), Field: "guaranteed." + g, Err: fmt.Errorf("cluster %s has no %s GPU (it has %s)", c.Name, g, strings.Join(c.Types, ", "))}
			}
			sum[g] += t.Guaranteed[g]
		}
	}
	if f.Oversubscribe {
		return nil
	}
	for _, g := range c.Types {
		if sum[g] > c.TotalGPUs(g) {
			// name the tenant whose guarantee crosses the line
			run := 0
			for _, t := range f.Tenants {
				run += t.Guaranteed[g]
				if run > c.TotalGPUs(g) {
					return &input.Error{File: f.Path, Line: t.Line, Kind: tenantKind(t.Name), Field: "guaranteed." + g, Err: fmt.Errorf("guarantees of %s sum to %d GPUs, over the cluster's %d (set oversubscribe: true to allow it)", g, sum[g], c.TotalGPUs(g))}
				}
			}
		}
	}
	return nil
}

// CheckJobs refuses a tenant that no job of the trace belongs to.
func (f *File) CheckJobs(jobs []sim.JobSpec) error {
	has := make(map[string]bool, len(f.Tenants))
	for i := range jobs {
		has[jobs[i].VirtualCluster] = true
	}
	for _, t := range f.Tenants {
		if !has[t.Name] && t.Name != Default {
			return &input.Error{File: f.Path, Line: t.Line, Err: fmt.Errorf("tenant %s: no job of the trace has this VC (the trace's VCs: %s)", sim.ShowValue(t.Name), listVCs(jobs))}
		}
	}
	return nil
}

// Check is CheckCluster then CheckJobs.
func (f *File) Check(c *sim.Cluster, jobs []sim.JobSpec) error {
	if err := f.CheckCluster(c); err != nil {
		return err
	}
	return f.CheckJobs(jobs)
}

// TraceVCs lists the VCs of jobs for messages (at most 20, "none").
func TraceVCs(jobs []sim.JobSpec) string { return listVCs(jobs) }

func listVCs(jobs []sim.JobSpec) string {
	seen := map[string]bool{}
	for i := range jobs {
		if vc := jobs[i].VirtualCluster; vc != "" { // a job without a VC names none
			seen[vc] = true
		}
	}
	names := sortedKeys(seen)
	if len(names) > 20 {
		names = append(names[:20], fmt.Sprintf("… %d more", len(seen)-20))
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
