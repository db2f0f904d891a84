package traces

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arena-sim/arena/sim/input"
)

const header = "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\n"

func TestBuiltinTraces(t *testing.T) {
	want := map[string]int{"philly": 1938, "helios": 438, "pai": 125, "testbed": 244}
	for name, n := range want {
		tr, err := Load(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(tr.Jobs) != n {
			t.Errorf("%s: %d jobs, want %d", name, len(tr.Jobs), n)
		}
		for i, j := range tr.Jobs {
			if int(j.ID) != i {
				t.Fatalf("%s: job %d has ID %d", name, i, j.ID)
			}
		}
	}
	tr, _ := Load("philly")
	first := tr.Jobs[0]
	if first.Name != "f043f272-f7a0-6861-353c-30479e8fffc1" || first.Submit != 1945645 || first.Iterations != 119965 ||
		first.Workload.Model.Name() != "gpt-2.6b" || first.Workload.Batch != 256 || first.GPUs != 4 || first.GPU != "a40" || first.Deadline != 1956739 {
		t.Errorf("first Philly job parsed as %+v", first)
	}
}

func TestReadArenaCSVErrors(t *testing.T) {
	good := "a,100,50,bert__1.3B,0,128,2,a100\n"
	cases := []struct {
		name, body string
		line       int
		column     string
		sentinel   error
	}{
		{"missing column", "job_id,submission_time\n", 1, "num_iteration", ErrHeader},
		{"negative time", header + good + "b,-3,50,bert__1.3B,0,128,2,a100\n", 3, "submission_time", ErrTime},
		{"time not a number", header + "b,soon,50,bert__1.3B,0,128,2,a100\n", 2, "submission_time", ErrTime},
		{"zero iterations", header + "b,1,0,bert__1.3B,0,128,2,a100\n", 2, "num_iteration", ErrNumber},
		{"unknown model", header + "b,1,5,llama__7B,0,128,2,a100\n", 2, "model_name", ErrModel},
		{"deadline before submission", header + "b,100,5,moe__10B,50,256,2,a100\n", 2, "deadline", ErrTime},
		{"batch not an integer", header + "b,1,5,moe__10B,0,2.5,2,a100\n", 2, "batch_size", ErrNumber},
		{"GPU count not a power of two", header + "b,1,5,moe__10B,0,256,3,a100\n", 2, "num_gpu", ErrNumber},
		{"GPU count above 16", header + "b,1,5,moe__10B,0,256,32,a100\n", 2, "num_gpu", ErrNumber},
		{"unknown GPU", header + "b,1,5,moe__10B,0,256,2,b200\n", 2, "gpu_type", ErrGPU},
		{"short row", header + "b,1,5,moe__10B\n", 2, "", ErrColumns},
		{"no rows", header, 0, "", ErrEmpty},
		{"empty file", "", 1, "", ErrEmpty},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadArenaCSV("t.csv", strings.NewReader(c.body))
			var pe *input.Error
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want *input.Error", err)
			}
			if pe.Line != c.line || pe.Field != c.column || !errors.Is(err, c.sentinel) {
				t.Errorf("got line %d column %q (%v), want line %d column %q (%v)", pe.Line, pe.Field, err, c.line, c.column, c.sentinel)
			}
			if !strings.Contains(err.Error(), "t.csv") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestColumnsFoundByName(t *testing.T) {
	body := "gpu_type,num_gpu,batch_size,deadline,model_name,num_iteration,submission_time,job_id\na40,4,256,0,moe__2.4B,100,7,x\n"
	tr, err := ReadArenaCSV("r.csv", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	j := tr.Jobs[0]
	if j.GPU != "a40" || j.GPUs != 4 || j.Workload.Batch != 256 || j.Iterations != 100 || j.Submit != 7 || j.Name != "x" {
		t.Errorf("parsed %+v", j)
	}
}

// FuzzReadArenaCSV: the reader never panics, and whatever it accepts is a
// valid job list.
func FuzzReadArenaCSV(f *testing.F) {
	f.Add(header + "a,100,50,bert__1.3B,0,128,2,a100\n")
	f.Add(header + "a,1e3,50,moe__10B,2e3,256,16,v100\nb,1,1,wide_resnet__500M,,256,1,a10\n")
	f.Add(header + "a,\"1\",5,x,0,1,1,a\n")
	f.Add("job_id\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		tr, err := ReadArenaCSV("fuzz.csv", strings.NewReader(body))
		if err != nil {
			var pe *input.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *input.Error", err)
			}
			return
		}
		if len(tr.Jobs) == 0 {
			t.Fatal("accepted a trace with no jobs")
		}
		ids := map[string]bool{}
		for i, j := range tr.Jobs {
			if ids[j.Name] || !utf8.ValidString(j.Name) || int64(len(j.Name)) > input.FieldCap.Value() || float64(j.Submit) > MaxTime {
				t.Fatalf("accepted a duplicate, non-UTF-8, long id or an out-of-range time: %+v", j)
			}
			ids[j.Name] = true
			if int(j.ID) != i || j.Iterations <= 0 || j.Submit < 0 || j.Workload.Batch <= 0 || j.GPUs <= 0 || j.GPUs&(j.GPUs-1) != 0 || j.GPU == "" {
				t.Fatalf("accepted invalid job %+v", j)
			}
			if j.Deadline != 0 && j.Deadline < j.Submit {
				t.Fatalf("accepted deadline before submission: %+v", j)
			}
		}
	})
}

// TestIterationScale: the artifact's simulation traces were generated ×5
// and its simulator divides by 5; the runtime (testbed) trace never got the
// ×5 (arena-data/testbed/README.md). A CSV declares its own.
func TestIterationScale(t *testing.T) {
	for name, want := range map[string]int64{"philly": 5, "helios": 5, "pai": 5, "testbed": 1} {
		tr, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if tr.IterationScale != want || tr.ScaleSource != "built-in" {
			t.Errorf("%s: scale %d (%s), want %d (built-in)", name, tr.IterationScale, tr.ScaleSource, want)
		}
	}
	row := "a,0,100,bert__1.3B,0,128,1,a100\n"
	for _, c := range []struct {
		name, text string
		want       int64
		source     string
	}{
		{"undeclared: the artifact simulator's ÷5", header + row, 5, "default"},
		{"declared with a colon", "# iteration_scale: 1\n" + header + row, 1, "declared on line 1"},
		{"declared with = after free text", "# exported by my tool\n#iteration_scale=3\n" + header + row, 3, "declared on line 2"},
		{"other key: free text", "# note: iteration_scale is 1\n" + header + row, 5, "default"},
	} {
		tr, err := ReadArenaCSV("t.csv", strings.NewReader(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tr.IterationScale != c.want || tr.ScaleSource != c.source || len(tr.Jobs) != 1 {
			t.Errorf("%s: scale %d (%s), %d jobs; want %d (%s), 1 job", c.name, tr.IterationScale, tr.ScaleSource, len(tr.Jobs), c.want, c.source)
		}
	}
	for _, c := range []struct{ text, want string }{
		{"# iteration_scale: 0\n" + header + row, "t.csv:1: column iteration_scale"},
		{"# iteration_scale: five\n" + header + row, `"five": want a positive integer`},
		{"# iteration_scale: 1\n# iteration_scale: 5\n" + header + row, ":2: column iteration_scale: traces: bad metadata comment: declared twice"},
	} {
		_, err := ReadArenaCSV("t.csv", strings.NewReader(c.text))
		if err == nil || !errors.Is(err, ErrMeta) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want ErrMeta containing %q", c.text, err, c.want)
		}
	}
	// Line numbers of data errors still count the comment lines.
	_, err := ReadArenaCSV("t.csv", strings.NewReader("# iteration_scale: 1\n"+header+"a,0,-1,bert__1.3B,0,128,1,a100\n"))
	if err == nil || !strings.Contains(err.Error(), ":3: column num_iteration") {
		t.Errorf("error %v, want it on line 3", err)
	}
}
