package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/arena-sim/arena/policy"
)

// TestFlagRules is the class "counts and sizes named by flags": every
// nonsense or oversized value is refused before the command does any work
// (before: --parallel 100000 started every run at once, negatives were
// accepted, --progress 1ns wrote 42 MB in 5 s, plot --size NaNx2 panicked,
// tolerance NaN% passed everything, --nodes -1 and --max-rounds 0 were
// accepted).
func TestFlagRules(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(spec, []byte("traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: artifact\nrounds: 5\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", spec, "--parallel", "-1", "--out", t.TempDir()}, "--parallel \"-1\": want 0 (every core) to 1024"},
		{[]string{"sweep", spec, "--parallel", "100000", "--out", t.TempDir()}, "--parallel \"100000\""},
		{[]string{"sweep", spec, "--max-rounds", "0", "--out", t.TempDir()}, "--max-rounds \"0\""},
		{[]string{"simulate", "--trace", "pai", "--policy", "fcfs", "--progress", "1ns"}, "--progress \"1ns\": want 0 (never) or at least 1s"},
		{[]string{"estimate", "--nodes", "-1"}, "--nodes \"-1\""},
		{[]string{"estimate", "--gpus", "0"}, "--gpus \"0\""},
		{[]string{"trace", "tile", "pai", "--copies", "2000000000", "-o", filepath.Join(t.TempDir(), "x.csv")}, "--copies \"2000000000\""},
		{[]string{"trace", "tile", "pai", "-o", filepath.Join(t.TempDir(), "x.parquet")}, "tile writes the artifact's CSV format"},
		{[]string{"plot", t.TempDir(), "--size", "NaNx2"}, "size \"NaNx2\""},
		{[]string{"plot", t.TempDir(), "--size", "1e309x2"}, "size \"1e309x2\""},
		{[]string{"simulate", "--trace", "pai", "--policy", "tiresias(queues=1000000000)"}, "want at most 64"},
		{[]string{"simulate", "--trace", "pai", "--policy", "fcfs", "--slowdown", "1e-6"}, "want a factor from 0.01 to 100"},
	} {
		out, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
		if strings.Contains(out, "jobs finished") {
			t.Errorf("%s: ran before failing", strings.Join(c.args, " "))
		}
	}
}

// TestFlagRulesNamesMeanOneThing: a rule of flagRules applies to the flag
// of that name in every command, so each must be a number (or a
// duration, for progress) wherever it appears.
func TestFlagRulesNamesMeanOneThing(t *testing.T) {
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if _, ok := flagRules[f.Name]; ok {
				seen[f.Name] = true
				if ty := f.Value.Type(); ty != "int" && ty != "duration" {
					t.Errorf("%s --%s is a %s; flagRules treats it as a number", c.CommandPath(), f.Name, ty)
				}
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(New(policy.NewRegistry()))
	for name := range flagRules {
		if !seen[name] {
			t.Errorf("flagRules has --%s, which no command defines", name)
		}
	}
}

// TestHostileInputsBoundedMemory runs the built binary under an address-
// space limit (prlimit --as) on one hostile input per data class: each
// must end with a clear error and a non-zero exit, not a Go "fatal error:
// out of memory", a panic or the kernel's OOM killer. Skipped, loudly,
// without prlimit.
func TestHostileInputsBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("WARNING: prlimit (util-linux) not found: the memory-limit test of hostile inputs is SKIPPED")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "arena")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/arena-sim/arena/cmd/arena").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// A gzip bomb: 512 MB of zeros in about 0.5 MB.
	bomb := filepath.Join(dir, "bomb.csv.gz")
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for i := 0; i < 512; i++ {
		zw.Write(zeros)
	}
	zw.Close()
	os.WriteFile(bomb, zb.Bytes(), 0o644)
	// A Parquet file whose footer declares a list of 2^31 - 1 row groups.
	crafted := filepath.Join(dir, "crafted.parquet")
	footer := []byte{0x15, 0x02, 0x19, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00}
	pq := append([]byte("PAR1"), footer...)
	pq = binary.LittleEndian.AppendUint32(pq, uint32(len(footer)))
	os.WriteFile(crafted, append(pq, "PAR1"...), 0o644)
	// A 6-line spec naming 4,000,000 runs.
	spec := filepath.Join(dir, "huge.yaml")
	var sb strings.Builder
	sb.WriteString("traces: [pai]\nclusters: [paper-1280]\npolicies: [fcfs]\ntiming: artifact\nrounds: 5\n")
	for _, ax := range []string{"seeds", "density"} {
		sb.WriteString(ax + ": [")
		for i := 0; i < 2000; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			if ax == "seeds" {
				fmt.Fprintf(&sb, "%d", i)
			} else {
				fmt.Fprintf(&sb, "%g", 0.01+float64(i)/100)
			}
		}
		sb.WriteString("]\n")
	}
	os.WriteFile(spec, []byte(sb.String()), 0o644)
	longID := filepath.Join(dir, "long-id.csv")
	os.WriteFile(longID, []byte("job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\n"+strings.Repeat("j", 50<<20)+",0,100,bert__1.3B,0,128,2,a100\n"), 0o644)
	// A faults events file (issue 26) whose second line is one 50 MB cause.
	longCause := filepath.Join(dir, "long-cause.csv")
	os.WriteFile(longCause, []byte("time,node,event,cause\n1000,0,down,"+strings.Repeat("c", 50<<20)+"\n"), 0o644)
	crafted2 := filepath.Join(dir, "crafted-events.parquet")
	os.WriteFile(crafted2, append(pq, "PAR1"...), 0o644)

	cases := []struct {
		name string
		args []string
		want string
	}{
		{"/dev/zero as a trace", []string{"simulate", "--trace", "/dev/zero", "--policy", "fcfs"}, "over the line cap"},
		{"a gzip bomb imported", []string{"trace", "import", "--format", "pollux", bomb, "-o", filepath.Join(dir, "out.parquet")}, "over the line cap"},
		{"a crafted Parquet footer (simulate)", []string{"simulate", "--trace", crafted, "--policy", "fcfs"}, "not a valid Parquet file"},
		{"a crafted Parquet footer (inspect)", []string{"trace", "inspect", crafted}, "not a valid Parquet file"},
		{"a crafted Parquet footer (synth --from)", []string{"trace", "synth", "--from", crafted, "-o", filepath.Join(dir, "s.csv")}, "not a valid Parquet file"},
		{"a spec expanding to 4M runs", []string{"sweep", spec, "--out", filepath.Join(dir, "sw")}, "over the runs cap"},
		{"a 50 MB job id", []string{"simulate", "--trace", longID, "--policy", "fcfs"}, "over the line cap"},
		{"a 50 MB cause in a faults events file", []string{"simulate", "--trace", "pai", "--policy", "fcfs", "--faults", longCause}, "over the line cap"},
		{"a crafted Parquet footer (faults events)", []string{"simulate", "--trace", "pai", "--policy", "fcfs", "--faults", crafted2}, "not a valid Parquet file"},
		{"a billion tiresias queues", []string{"simulate", "--trace", "pai", "--policy", "tiresias(queues=1000000000)"}, "want at most 64"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(prlimit, append([]string{"--as=2147483648", "--", bin}, c.args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.Stdout = &stderr
			err := cmd.Run()
			msg := stderr.String()
			if err == nil {
				t.Fatalf("exit 0, want an error; output:\n%.2000s", msg)
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("%v, want exit status 1 (an error, not a crash or a signal)", err)
			}
			if strings.Contains(msg, "fatal error") || strings.Contains(msg, "panic:") || strings.Contains(msg, "goroutine ") {
				t.Errorf("crashed:\n%.2000s", msg)
			}
			if !strings.Contains(msg, c.want) {
				t.Errorf("message %.1000q lacks %q", msg, c.want)
			}
			if len(msg) > 4096 {
				t.Errorf("a %d-byte message", len(msg))
			}
		})
	}
}
