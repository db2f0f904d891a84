package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/arena-sim/arena/traces/importers"
	"github.com/arena-sim/arena/traces/synth"
	"github.com/arena-sim/arena/traces/table"
)

// capacityFormats are the machine/capacity files `trace import` reads.
var capacityFormats = []string{"philly-machines", "pai-machines", "helios-capacity"}

func formatHelp() string {
	var b strings.Builder
	for _, f := range importers.Formats() {
		fmt.Fprintf(&b, "  %-16s %s\n", f.Name, f.Description)
	}
	b.WriteString("  philly-machines  Philly cluster_machine_list (prints the inventory)\n")
	b.WriteString("  pai-machines     PAI 2020 pai_machine_spec.csv (prints the inventory)\n")
	b.WriteString("  helios-capacity  Helios cluster_gpu_number.csv (prints the peak GPUs per VC)\n")
	return b.String()
}

func newTraceImportCmd() *cobra.Command {
	var fl traceImportFlags
	cmd := &cobra.Command{
		Use:   "import --format F IN -o OUT",
		Short: "Convert a public trace (Philly, Pollux, Helios, PAI, Alibaba 2023, Gavel, Arena) into the canonical job table",
		Long: `import reads a public GPU-cluster trace, streaming, and writes the canonical job
table (docs/workloads.md): CSV, or Parquet when OUT ends in .parquet.
IN may be gzip-compressed (.gz) or - for standard input. A bad value stops the
import with the file, line and field, and OUT is not written. Rows left out
(CPU-only jobs, jobs without tasks) are counted by reason.

Jobs that never ran (Philly: no attempt with a start and an end; Helios: no
start_time; PAI: no task started; Alibaba 2023: never scheduled) follow one
rule in every format: skipped and counted under "never ran: …", or, with
--keep-never-ran, kept with duration_s -1 and their final state. Absurd values
warn: a negative run time skips its row; a job larger than any cluster arena
knows is kept and reported (a misread layout gives such counts).

Formats:
` + formatHelp(),
		Example: `  arena trace import --format pollux philly.csv -o philly.parquet
  arena trace import --format philly cluster_job_log -o philly-raw.csv --attempts attempt
  arena trace import --format pai pai_job_table.csv --tasks pai_task_table.csv -o pai.parquet
  arena trace import --format pai-machines pai_machine_spec.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTraceImport(cmd, args, fl)
		},
	}
	cmd.Flags().StringVar(&fl.format, "format", "", "input format (see above; required)")
	cmd.Flags().StringVarP(&fl.out, "out", "o", "", "output table: .csv or .parquet")
	cmd.Flags().StringVar(&fl.attempts, "attempts", "job", "philly: one row per job, or per attempt (attempt)")
	cmd.Flags().StringVar(&fl.tasks, "tasks", "", "pai: the pai_task_table.csv to join")
	cmd.Flags().BoolVar(&fl.keepCPU, "keep-cpu", false, "keep jobs that use no GPU (helios, pai, alibaba2023)")
	cmd.Flags().BoolVar(&fl.keepNeverRan, "keep-never-ran", false, "keep jobs that never ran, with duration_s -1 and their state (default: skip and count them)")
	cmd.MarkFlagRequired("format")
	return cmd
}

// traceImportFlags are trace import's flags.
type traceImportFlags struct {
	format, out, attempts, tasks string
	keepCPU, keepNeverRan        bool
}

// runTraceImport runs trace import on the trace args[0] (or standard input
// for -): a capacity format is printed, any other is converted to the
// canonical job table f.out, with a tally of the rows left out. Separate
// from the command's definition, which is mostly its help text.
func runTraceImport(cmd *cobra.Command, args []string, f traceImportFlags) error {
	in, name := args[0], args[0]
	var r io.Reader = os.Stdin
	if in != "-" {
		file, err := os.Open(in)
		if err != nil {
			return err
		}
		defer file.Close()
		r = file
	} else {
		name = "stdin"
	}
	r, err := importers.Decompress(name, r)
	if err != nil {
		return err
	}
	stdout := cmd.OutOrStdout()
	if handled, err := printTraceCapacity(stdout, f.format, name, r); handled {
		return err
	}
	imp, err := importers.Lookup(f.format)
	if err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	if f.out == "" {
		return fmt.Errorf("import: -o OUT (.csv or .parquet) is required")
	}
	opt := importers.Options{Attempts: f.attempts, KeepCPU: f.keepCPU, KeepNeverRan: f.keepNeverRan}
	if f.tasks != "" {
		tf, err := os.Open(f.tasks)
		if err != nil {
			return err
		}
		defer tf.Close()
		if opt.Tasks, err = importers.Decompress(f.tasks, tf); err != nil {
			return err
		}
		opt.TasksName = f.tasks
	}
	tally := newImportTally(&opt)
	w, err := table.Create(f.out)
	if err != nil {
		return err
	}
	n := 0
	if err := imp.Read(name, r, opt, func(j table.Job) error { n++; return w.Write(j) }); err != nil {
		w.Abort()
		return err
	}
	if err := w.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d jobs from %s (%s)\n", f.out, n, name, f.format)
	tally.print(stdout, f.keepNeverRan)
	return nil
}

// printTraceCapacity handles the formats that describe a cluster rather
// than jobs (philly-machines, pai-machines, helios-capacity): it prints the
// capacity read from r and reports handled; for any other format it reads
// nothing and reports not handled. Separate because these formats write no
// table and share nothing else with the job importers.
func printTraceCapacity(stdout io.Writer, format, name string, r io.Reader) (handled bool, err error) {
	switch format {
	case "philly-machines", "pai-machines":
		read := importers.ReadPhillyMachines
		if format == "pai-machines" {
			read = importers.ReadPAIMachines
		}
		c, err := read(name, r)
		if err != nil {
			return true, err
		}
		fmt.Fprintf(stdout, "%s: %d GPUs — %s\n", name, c.GPUs(), c)
		return true, nil
	case "helios-capacity":
		total, per, err := importers.ReadHeliosCapacity(name, r)
		if err != nil {
			return true, err
		}
		vcs := make([]string, 0, len(per))
		for v := range per {
			vcs = append(vcs, v)
		}
		sort.Strings(vcs)
		parts := make([]string, len(vcs))
		for i, v := range vcs {
			parts[i] = fmt.Sprintf("%s %d", v, per[v])
		}
		fmt.Fprintf(stdout, "%s: at most %d GPUs in a day; per VC (daily peak): %s\n", name, total, strings.Join(parts, ", "))
		return true, nil
	}
	return false, nil
}

func synthKeyHelp() string {
	var b strings.Builder
	for _, k := range synth.Keys() {
		fmt.Fprintf(&b, "  --%-16s %s\n", k.Name, k.Help)
	}
	return b.String()
}

func newTraceSynthCmd() *cobra.Command {
	var from, format, out string
	var keepNeverRan bool
	vals := map[string]*string{}
	cmd := &cobra.Command{
		Use:   "synth [--from SRC] -o OUT [options]",
		Short: "Build a seeded workload: filters, windows, Poisson arrivals, Gavel laws, re-labelling recipes",
		Long: `synth builds a workload from a trace (--from: a built-in trace, ` + strings.Join(importers.SourceNames(), ", ") + `;
a canonical table made by 'arena trace import'; or a raw trace file with --format) or,
without --from, from scratch (--jobs, --rate, --durations, --gpu-mix). Stages run in
this order: filters, window, sample, arrivals (rate), rate-scale, durations, gpu-mix,
recipe. Every random choice comes from --seed (one PCG stream per stage, so changing the
rate leaves the labels alone). OUT is a canonical job table (.csv or .parquet) that
'arena simulate --trace OUT' and experiment specs accept once it has models (a recipe).
The same keys are accepted in an experiment spec's synth mapping.

synth prints what each stage changed: the jobs each filter, the window and the
sample dropped, whether arrivals were replaced, and the run times and GPU counts a
stage redrew. The arena recipe, as the artifact does, replaces a run time by a
uniform draw of iterations whenever duration ÷ iteration time falls outside
--iter-range, and draws GPU counts from its own mix: on Philly that replaces most
run times and turns a 1-GPU trace into a multi-GPU one. --keep-durations and
--keep-gpus keep the trace's run times (iterations derived exactly, scale 1) and GPU
counts (rounded up to a power of two, at most 16) under the recipe's labels;
--keep-gpus=exact keeps any count (12, 24, 128 GPUs) with labels the hybrid
estimator can run, for simulate --estimator hybrid.

Options:
` + synthKeyHelp(),
		Example: `  arena trace synth --recipe arena --from philly-pollux --seed 1 -o philly-arena.csv
  arena trace synth --recipe arena --keep-durations --keep-gpus --from philly-pollux --seed 1 -o philly-kept.csv
  arena trace synth --from philly-pollux --window 2+8 --sample 160 --min-duration 60s --max-gpu-time 1000h --recipe pollux --seed 3 -o pollux-w3.csv
  arena trace synth --jobs 1000 --rate 30 --durations gavel --gpu-mix gavel --recipe arena --iteration-scale 1 --seed 0 -o gavel-30.csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("synth: -o OUT (.csv or .parquet) is required")
			}
			var o synth.Options
			for _, k := range synth.Keys() {
				if cmd.Flags().Changed(k.Name) {
					if err := synth.Set(&o, k.Name, *vals[k.Name]); err != nil {
						return fmt.Errorf("--%w", err)
					}
				}
			}
			var in []table.Job
			stdout := cmd.OutOrStdout()
			if from != "" {
				opt := importers.Options{KeepNeverRan: keepNeverRan}
				tally := newImportTally(&opt)
				var err error
				if in, err = importers.Open(from, format, opt); err != nil {
					return err
				}
				if len(tally.skipped)+len(tally.warned) > 0 {
					fmt.Fprintf(stdout, "reading %s:\n", from)
					tally.print(stdout, keepNeverRan)
				}
			}
			jobs, rep, err := synth.RunReport(in, o)
			if err != nil {
				return err
			}
			if err := table.WriteFile(out, jobs); err != nil {
				return err
			}
			span := jobs[len(jobs)-1].Submit - jobs[0].Submit
			src := from
			if src == "" {
				src = "scratch"
			}
			fmt.Fprintf(stdout, "%s: %d jobs over %.1f h from %s (%d in), seed %d\n", out, len(jobs), span/3600, src, len(in), o.Seed)
			fmt.Fprintln(stdout, "stages:")
			for _, l := range rep.Lines() {
				fmt.Fprintln(stdout, "  "+l)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "source: a built-in public trace, a canonical table, or a raw trace with --format")
	cmd.Flags().StringVar(&format, "format", "", "format of --from when it is a raw trace (see 'arena trace import --help')")
	cmd.Flags().StringVarP(&out, "out", "o", "", "output table: .csv or .parquet")
	cmd.Flags().BoolVar(&keepNeverRan, "keep-never-ran", false, "with --format: keep jobs that never ran (a recipe then drops them, counted)")
	for _, k := range synth.Keys() {
		v := new(string)
		vals[k.Name] = v
		cmd.Flags().StringVar(v, k.Name, "", k.Help)
		if strings.HasPrefix(k.Name, "keep-") {
			cmd.Flags().Lookup(k.Name).NoOptDefVal = "true" // --keep-gpus alone means true
		}
	}
	return cmd
}

// importTally counts what an import skipped, by reason, and the absurd
// values it warned about, keeping the first place each warning was met.
type importTally struct {
	skipped map[string]int
	warned  map[string]int
	first   map[string]importers.Warning
}

func newImportTally(opt *importers.Options) *importTally {
	t := &importTally{skipped: map[string]int{}, warned: map[string]int{}, first: map[string]importers.Warning{}}
	opt.Skipped = func(reason string) { t.skipped[reason]++ }
	opt.Warned = func(w importers.Warning) {
		if t.warned[w.Reason] == 0 {
			t.first[w.Reason] = w
		}
		t.warned[w.Reason]++
	}
	return t
}

// print writes "  skipped N: reason" lines and "  warning: N × reason
// (first: where)" lines, in reason order; a never-ran line says how to keep
// those jobs.
func (t *importTally) print(w io.Writer, keptNeverRan bool) {
	for _, k := range sortedKeys(t.skipped) {
		hint := ""
		if strings.HasPrefix(k, importers.NeverRanPrefix) {
			hint = " (the never-ran rule; --keep-never-ran keeps them with their state)"
		}
		fmt.Fprintf(w, "  skipped %d: %s%s\n", t.skipped[k], k, hint)
	}
	if keptNeverRan {
		fmt.Fprintf(w, "  jobs that never ran are kept with duration_s -1 and their state (--keep-never-ran)\n")
	}
	for _, k := range sortedKeys(t.warned) {
		fmt.Fprintf(w, "  warning: %d × %s — first at %s\n", t.warned[k], k, t.first[k])
	}
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
