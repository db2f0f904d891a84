package importers

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces/table"
)

func importFile(t *testing.T, format, name string, opt Options) ([]table.Job, []string) {
	t.Helper()
	f, err := Lookup(format)
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var skipped []string
	opt.Skipped = func(r string) { skipped = append(skipped, r) }
	jobs, err := ReadAll(f, name, in, opt)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return jobs, skipped
}

// The fixtures are written by hand from TRACES.md §1–§6; expected values
// are worked out by hand (Unix times with Python's zoneinfo).
func TestPhillyFixture(t *testing.T) {
	jobs, skipped := importFile(t, "philly", "cluster_job_log.json", Options{})
	if len(jobs) != 3 || len(skipped) != 1 {
		t.Fatalf("%d jobs, %d skipped; want 3 jobs (the zero-attempt job skipped)", len(jobs), len(skipped))
	}
	a := jobs[0]
	// 2017-10-03 08:59:00 PDT; attempts 600 s + 3600 s; last attempt on 4+4 GPUs.
	if a.ID != "application_1506638472019_10238" || a.Submit != 1507046340 || a.Duration != 4200 || a.GPUs != 8 ||
		a.VC != "ee9e8c" || a.User != "a1b2c3" || a.Status != "Pass" || a.Censored || a.Zone != ZonePhilly {
		t.Errorf("job 0 = %+v", a)
	}
	// "None" first attempt dropped; the last attempt has no end: still
	// running at the snapshot (censored), on 1 GPU, no complete run time.
	c := jobs[1]
	if c.Submit != 1513954799 || !c.Censored || c.GPUs != 1 || c.Duration != 0 {
		t.Errorf("censored job = %+v", c)
	}
	// 01:29 on 2017-11-05 happens twice (PDT then PST); Go and Python both
	// take the first, PDT.
	if jobs[2].Submit != 1509870540 {
		t.Errorf("DST-ambiguous submit = %v, want 1509870540", jobs[2].Submit)
	}
	att, _ := importFile(t, "philly", "cluster_job_log.json", Options{Attempts: "attempt"})
	if len(att) != 4 {
		t.Fatalf("per attempt: %d rows, want 4 (2 + 1 + 1)", len(att))
	}
	// The second attempt arrives when the first ended (Blox's rule).
	if att[1].Submit != 1507047005 || att[1].Duration != 3600 || att[1].Attempt != 2 || att[1].ID != "application_1506638472019_10238#2" {
		t.Errorf("attempt 2 = %+v", att[1])
	}
	if !att[2].Censored || att[2].Duration != -1 {
		t.Errorf("running attempt = %+v, want censored with unknown duration", att[2])
	}
}

func TestPolluxFixture(t *testing.T) {
	jobs, _ := importFile(t, "pollux", "philly.csv", Options{})
	if len(jobs) != 3 {
		t.Fatalf("%d jobs, want 3 (the trailing empty line is not a job)", len(jobs))
	}
	if j := jobs[0]; j.ID != "0" || j.Submit != 1507557715 || j.Duration != 66 || j.GPUs != 1 || j.VC != "11cb48" {
		t.Errorf("row 0 = %+v", j)
	}
	if jobs[2].GPUs != 4 || jobs[2].Duration != 860662 {
		t.Errorf("row 2 = %+v", jobs[2])
	}
}

func TestHeliosFixture(t *testing.T) {
	jobs, skipped := importFile(t, "helios", "cluster_log.csv", Options{})
	if len(jobs) != 2 || len(skipped) != 2 {
		t.Fatalf("%d jobs, %d skipped; want 2, the CPU job and the never-started job skipped", len(jobs), len(skipped))
	}
	if j := jobs[0]; j.ID != "5" || j.Submit != 1585670410 || j.Duration != 3600 || j.GPUs != 8 || j.VC != "vcEwI" || j.Status != "COMPLETED" {
		t.Errorf("job 5 = %+v", j)
	}
	all, _ := importFile(t, "helios", "cluster_log.csv", Options{KeepCPU: true})
	if len(all) != 3 {
		t.Errorf("with CPU jobs: %d, want 3 (the never-started job still skipped)", len(all))
	}
	in, _ := os.Open("testdata/cluster_gpu_number.csv")
	defer in.Close()
	total, per, err := ReadHeliosCapacity("cluster_gpu_number.csv", in)
	if err != nil || total != 136 || per["vcEwI"] != 80 || per["vcWoR"] != 64 {
		t.Errorf("capacity %d %v %v; want 136, vcEwI 80, vcWoR 64", total, per, err)
	}
}

func TestPAIFixture(t *testing.T) {
	tasks, _ := os.Open("testdata/pai_task_table.csv")
	defer tasks.Close()
	jobs, skipped := importFile(t, "pai", "pai_job_table.csv", Options{Tasks: tasks, TasksName: "pai_task_table.csv"})
	if len(jobs) != 2 || len(skipped) != 3 {
		t.Fatalf("%d jobs, %d skipped; want 2 (a CPU-only job, a job without tasks and a job whose task never started skipped)", len(jobs), len(skipped))
	}
	// plan_gpu 50 % on 1 instance: half a GPU; run 1000010 → 1000590.
	if j := jobs[0]; j.Submit != 1000000 || j.GPUs != 0.5 || j.Duration != 580 || j.GPUType != "MISC" || j.Censored || j.Status != "Terminated" {
		t.Errorf("job 0 = %+v", j)
	}
	// 4 instances × 100 % + a ps task without GPUs; a worker still running.
	if j := jobs[1]; j.GPUs != 4 || !j.Censored || j.GPUType != "V100" || j.Duration != 760 {
		t.Errorf("job 1 = %+v", j)
	}
	in, _ := os.Open("testdata/pai_machine_spec.csv")
	defer in.Close()
	c, err := ReadPAIMachines("pai_machine_spec.csv", in)
	if err != nil || c.GPUs() != 18 || c.Machines["V100"][8] != 2 || c.Machines["T4"][2] != 1 {
		t.Errorf("machines %v %v", c, err)
	}
}

// The real machine table shipped in ../shared/traces (checksum-verified
// there): 1,897 machines (outside anchor: TRACES.md §0, the PAI paper).
func TestPAIMachineSpecReal(t *testing.T) {
	in, err := os.Open(sharedTrace(t, "alibaba-pai-v2020/pai_machine_spec.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	c, err := ReadPAIMachines("pai_machine_spec.csv", in)
	if err != nil {
		t.Fatal(err)
	}
	machines := 0
	for _, m := range c.Machines {
		for _, k := range m {
			machines += k
		}
	}
	// 1,814 of the 1,897 machines have GPUs, 6,742 in all (counted with
	// awk on the file; the paper says "over 6,500 GPUs").
	if c.GPUs() != 6742 || machines != 1814 {
		t.Errorf("%d GPUs on %d machines; want 6742 on 1814", c.GPUs(), machines)
	}
}

func TestAlibaba2023Fixture(t *testing.T) {
	jobs, skipped := importFile(t, "alibaba2023", "openb_pod_list_default.csv", Options{})
	if len(jobs) != 2 || len(skipped) != 2 {
		t.Fatalf("%d pods, %d skipped; want 2, the CPU pod and the Pending one skipped", len(jobs), len(skipped))
	}
	if j := jobs[0]; !j.Censored || j.GPUs != 8 || j.Duration != 12902960 {
		t.Errorf("pod 17 = %+v", j)
	}
	if j := jobs[1]; j.GPUs != 0.46 || j.Duration != 1950 || j.Censored || j.GPUType != "V100M16|V100M32" {
		t.Errorf("pod 22 = %+v", j)
	}
	kept, _ := importFile(t, "alibaba2023", "openb_pod_list_default.csv", Options{KeepNeverRan: true})
	if j := kept[2]; len(kept) != 3 || j.Duration != -1 || j.Status != "Pending" {
		t.Errorf("pending pod kept = %+v, want unknown duration", j)
	}
}

func TestGavelFixtures(t *testing.T) {
	jobs, _ := importFile(t, "gavel", "gavel_7.trace", Options{})
	if len(jobs) != 2 || jobs[1].Submit != 341.58 || jobs[1].GPUs != 4 || jobs[1].Iterations != 8420 || jobs[1].Model != "LM (batch size 20)" {
		t.Errorf("7-field form: %+v", jobs)
	}
	jobs, _ = importFile(t, "gavel", "gavel_10.trace", Options{})
	if len(jobs) != 1 || jobs[0].Submit != 17.5 || jobs[0].GPUs != 2 || jobs[0].Iterations != 1000 {
		t.Errorf("10-field form: %+v", jobs)
	}
}

func TestArenaFixture(t *testing.T) {
	jobs, _ := importFile(t, "arena", "arena.csv", Options{})
	if len(jobs) != 3 || jobs[0].Model != "gpt-2.6b" || jobs[0].Iterations != 119965 || jobs[0].IterationScale != 5 ||
		jobs[0].GPUType != "a40" || jobs[0].GPUs != 4 || jobs[0].Batch != 256 || jobs[0].Deadline != 1956739 {
		t.Errorf("arena rows: %+v", jobs)
	}
}

func TestPhillyMachines(t *testing.T) {
	in, _ := os.Open("testdata/cluster_machine_list")
	defer in.Close()
	c, err := ReadPhillyMachines("cluster_machine_list", in)
	if err != nil || c.GPUs() != 26 || c.Machines["24GB"][8] != 3 || c.Machines["12GB"][2] != 1 {
		t.Errorf("machines %v %v; want 3×8 24GB + 1×2 12GB", c, err)
	}
}

// Every error names the file, the line and the field.
func TestImportErrors(t *testing.T) {
	cases := []struct {
		format, body string
		opt          Options
		line         int
		field        string
	}{
		{"pollux", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n2017-13-09 07:01:55,1,1,1,a\n", Options{}, 3, "timestamp"},
		{"pollux", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,soon,1,66.0,a\n", Options{}, 2, "duration"},
		{"pollux", "timestamp,duration,num_gpus\n", Options{}, 1, "gpu_time"},
		{"pollux", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,5,0,66.0,a\n", Options{}, 2, "num_gpus"},
		{"helios", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n1,u,v,x,1,1,COMPLETED,2020-04-01 00:00:10,,,5,0\n", Options{}, 2, "gpu_num"},
		{"philly", "[\n {\"jobid\": \"j1\", \"submitted_time\": \"yesterday\", \"attempts\": []}\n]", Options{}, 2, "submitted_time"},
		{"philly", "[\n {\"jobid\": \"j1\",\n  \"submitted_time\": \"2017-10-03 08:59:00\",\n  \"attempts\": 5}\n]", Options{}, 4, "attempts"},
		{"philly", "[\n {\"jobid\": \"j1\", \"submitted_time\": \"2017-10-03 08:59:00\", \"attempts\": []},\n {\"jobid\": ", Options{}, 3, ""},
		{"alibaba2023", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np,1,1,1,1000,,BE,Running,10,x,8\n", Options{}, 2, "deletion_time"},
		{"helios", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n1,u,v,1,1,1,COMPLETED,2020-04-01 00:00:10,2020-04-01 00:00:10,,1h,0\n", Options{}, 2, "duration"},
		{"gavel", "a\tb\tc\n", Options{}, 1, ""},
		{"gavel", "x\tc\t--n\t1\t100\t0\t1\nx\tc\t--n\t1\tmany\t0\t1\n", Options{}, 2, "total_steps"},
		{"arena", "job_id,submission_time,num_iteration,model_name,deadline,batch_size,num_gpu,gpu_type\na,1,5,llama__7B,0,128,2,a100\n", Options{}, 2, "model_name"},
		{"pai", "j,i,u,Terminated,100,200\n", Options{Tasks: strings.NewReader("j,t,1,Terminated,x,200,1,1,100,V100\n"), TasksName: "tasks.csv"}, 1, "start_time"},
	}
	for _, c := range cases {
		f, _ := Lookup(c.format)
		_, err := ReadAll(f, "in.x", strings.NewReader(c.body), c.opt)
		var fe *input.Error
		if !errors.As(err, &fe) {
			t.Errorf("%s %q: error %v, want a *input.Error", c.format, c.body, err)
			continue
		}
		if fe.Line != c.line || fe.Field != c.field {
			t.Errorf("%s: error %q at line %d field %q, want line %d field %q", c.format, err, fe.Line, fe.Field, c.line, c.field)
		}
	}
}

// The full Pollux/Sia Philly CSV shipped in ../shared/traces: 82,247 jobs
// (TRACES.md §0), 15 VCs, at most 128 GPUs (outside anchor).
func TestPolluxFullTrace(t *testing.T) {
	in, err := os.Open(sharedTrace(t, "philly-pollux/philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	jobs, err := ReadAll(formats[1], "philly.csv", in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	vcs := map[string]bool{}
	maxG := 0.0
	for _, j := range jobs {
		vcs[j.VC] = true
		maxG = max(maxG, j.GPUs)
	}
	if len(jobs) != 82247 || len(vcs) != 15 || maxG != 128 {
		t.Errorf("%d jobs, %d VCs, max %v GPUs; want 82247, 15, 128", len(jobs), len(vcs), maxG)
	}
}

// The never-ran rule on the real Pollux sample: the reduction keeps only
// jobs that ran (no row without a duration, none negative, at most 128
// GPUs), so nothing is skipped and nothing warns.
func TestPolluxRealNeverRan(t *testing.T) {
	in, err := os.Open(sharedTrace(t, "philly-pollux/philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var skipped []string
	var warned []Warning
	opt := Options{Skipped: func(r string) { skipped = append(skipped, r) }, Warned: func(w Warning) { warned = append(warned, w) }}
	jobs, err := ReadAll(formats[1], "philly.csv", in, opt)
	if err != nil || len(jobs) != 82247 || len(skipped) != 0 || len(warned) != 0 {
		t.Errorf("%d jobs, skipped %v, warned %v, %v; want 82247 and none", len(jobs), skipped, warned, err)
	}
}

// The real Helios Venus capacity file: 968 to 1,264 GPUs a day, 25 VCs
// (counted with awk on the file; its README says "968 to 1,080", which
// the file's later rows exceed).
func TestHeliosCapacityReal(t *testing.T) {
	in, err := os.Open(sharedTrace(t, "helios-venus/cluster_gpu_number.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	total, per, err := ReadHeliosCapacity("cluster_gpu_number.csv", in)
	if err != nil || total != 1264 || len(per) != 25 {
		t.Errorf("peak %d GPUs, %d VCs, %v; want 1264 and 25", total, len(per), err)
	}
}

// The never-ran rule, format by format, on the TRACES.md fixtures: the
// job that never started is skipped under a "never ran: " reason by
// default, and with KeepNeverRan kept with duration −1, not censored, and
// its state. Before the rule, Philly skipped it, Helios kept it with
// duration 0, PAI and Alibaba 2023 kept it with −1 and no reason.
func TestNeverRanRule(t *testing.T) {
	tasks := func() Options {
		f, err := os.Open("testdata/pai_task_table.csv")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return Options{Tasks: f, TasksName: "pai_task_table.csv"}
	}
	cases := []struct {
		format, file string
		opt          func() Options
		id, status   string
	}{
		{"philly", "cluster_job_log.json", func() Options { return Options{} }, "application_1506638472019_10239", "Killed"},
		{"helios", "cluster_log.csv", func() Options { return Options{} }, "8", "CANCELLED"},
		{"pai", "pai_job_table.csv", tasks, "77aa22bb33cc44dd55ee66ff", "Waiting"},
		{"alibaba2023", "openb_pod_list_default.csv", func() Options { return Options{} }, "openb-pod-0024", "Pending"},
	}
	for _, c := range cases {
		jobs, skipped := importFile(t, c.format, c.file, c.opt())
		never := 0
		for _, r := range skipped {
			if strings.HasPrefix(r, NeverRanPrefix) {
				never++
			}
		}
		if never != 1 {
			t.Errorf("%s: skipped %q; want one never-ran reason", c.format, skipped)
		}
		for _, j := range jobs {
			if j.ID == c.id {
				t.Errorf("%s: job %s never ran but was kept: %+v", c.format, c.id, j)
			}
		}
		o := c.opt()
		o.KeepNeverRan = true
		kept, skipped2 := importFile(t, c.format, c.file, o)
		if len(kept) != len(jobs)+1 || len(skipped2) != len(skipped)-1 {
			t.Errorf("%s keep: %d jobs (%d skipped); want %d (%d)", c.format, len(kept), len(skipped2), len(jobs)+1, len(skipped)-1)
		}
		found := false
		for _, j := range kept {
			if j.ID == c.id {
				found = true
				if j.Duration != -1 || j.Censored || j.Status != c.status {
					t.Errorf("%s keep: %+v; want duration -1, not censored, status %s", c.format, j, c.status)
				}
			}
		}
		if !found {
			t.Errorf("%s keep: job %s missing", c.format, c.id)
		}
	}
}

// Absurd values warn: a negative run time skips its row (with file, line
// and field), a job larger than the largest built-in cluster is kept and
// reported. Gavel's 9-field form read as if its columns were shifted once
// imported jobs of 89,580 GPUs without a word.
func TestAbsurdValuesWarn(t *testing.T) {
	cases := []struct {
		format, body string
		jobs         int
		reason       string
		line         int
		field        string
	}{
		{"pollux", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,a\n2017-10-09 07:01:55,-5,1,-5,a\n", 1, WarnNegative, 3, "duration"},
		{"helios", "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n1,u,v,8,1,1,COMPLETED,2020-04-01 00:00:10,2020-04-01 00:00:10,2020-04-01 00:00:00,-10,0\n", 0, WarnNegative, 2, "duration"},
		{"alibaba2023", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np,1,1,1,1000,,BE,Running,10,5,8\n", 0, WarnNegative, 2, "deletion_time"},
		{"philly", "[\n {\"jobid\": \"j1\", \"submitted_time\": \"2017-10-03 08:59:00\", \"attempts\": [{\"start_time\": \"2017-10-03 09:00:00\", \"end_time\": \"2017-10-03 08:00:00\", \"detail\": [{\"ip\": \"m1\", \"gpus\": [\"gpu0\"]}]}]}\n]", 0, WarnNegative, 2, "attempts[0].end_time"},
		{"gavel", "x\tc\t--n\t1\t100\t0\t189580\n", 1, WarnTooLarge, 1, "gpus"},
		{"pollux", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,131072,66.0,a\n", 1, WarnTooLarge, 2, "gpus"},
	}
	for _, c := range cases {
		f, _ := Lookup(c.format)
		var warned []Warning
		jobs, err := ReadAll(f, "in.x", strings.NewReader(c.body), Options{Warned: func(w Warning) { warned = append(warned, w) }})
		if err != nil {
			t.Errorf("%s: %v", c.format, err)
			continue
		}
		if len(jobs) != c.jobs || len(warned) != 1 {
			t.Errorf("%s: %d jobs, warnings %v; want %d jobs and one warning", c.format, len(jobs), warned, c.jobs)
			continue
		}
		if w := warned[0]; w.Reason != c.reason || w.File != "in.x" || w.Line != c.line || w.Field != c.field {
			t.Errorf("%s: warning %+v; want %q at in.x:%d field %s", c.format, w, c.reason, c.line, c.field)
		}
	}
}

// The embedded copy is the shared file, byte for byte (its published
// sha256), and imports to 82,247 jobs.
func TestBuiltinSourcePhillyPollux(t *testing.T) {
	f, _ := builtinData.Open("data/philly-pollux.csv.gz")
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, zr); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != "ebffb3dd1589bdf4e7bcd74496201c5ded1d557d498ee14f560463f37ec353da" {
		t.Errorf("embedded philly.csv sha256 %s differs from the published one", got)
	}
	jobs, err := Open("philly-pollux", "", Options{})
	if err != nil || len(jobs) != 82247 {
		t.Errorf("philly-pollux: %d jobs, %v; want 82247", len(jobs), err)
	}
}
