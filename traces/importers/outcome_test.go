package importers

import (
	"os"
	"testing"

	"github.com/arena-sim/arena/traces/table"
)

// Every fixture row's outcome follows the documented mapping of its
// status (hand-written table below, from TRACES.md §1–§6; outside
// anchor: the traces' own state words). The fixtures hold every word the
// mapping names except TIMEOUT and NODE_FAIL, checked on Outcome itself.
// Fails on importers that leave the column empty.
func TestImportersFillOutcome(t *testing.T) {
	want := map[string]string{
		"philly/Pass": "", "philly/Failed": "failed", "philly/Killed": "killed",
		"helios/COMPLETED": "", "helios/FAILED": "failed", "helios/CANCELLED": "killed",
		"pai/Terminated": "", "pai/Failed": "failed", "pai/Running": "", "pai/Waiting": "",
		"alibaba2023/Running": "", "alibaba2023/Pending": "", "alibaba2023/Failed": "failed", "alibaba2023/Succeeded": "",
	}
	var rows []table.Job
	philly, _ := importFile(t, "philly", "cluster_job_log.json", Options{KeepNeverRan: true})
	helios, _ := importFile(t, "helios", "cluster_log.csv", Options{KeepNeverRan: true})
	alibaba, _ := importFile(t, "alibaba2023", "openb_pod_list_default.csv", Options{KeepNeverRan: true})
	tasks, _ := os.Open("testdata/pai_task_table.csv")
	defer tasks.Close()
	pai, _ := importFile(t, "pai", "pai_job_table.csv", Options{Tasks: tasks, TasksName: "pai_task_table.csv", KeepNeverRan: true})
	rows = append(append(append(append(rows, philly...), helios...), alibaba...), pai...)
	outcomes := map[string]int{}
	for _, j := range rows {
		w, ok := want[j.Source+"/"+j.Status]
		if !ok {
			t.Errorf("%s job %s: status %q not in the test's table", j.Source, j.ID, j.Status)
			continue
		}
		if j.Outcome != w {
			t.Errorf("%s job %s: status %s, outcome %q, want %q", j.Source, j.ID, j.Status, j.Outcome, w)
		}
		outcomes[j.Outcome]++
	}
	if outcomes["failed"] == 0 || outcomes["killed"] == 0 {
		t.Errorf("outcomes %v: the fixtures should hold failed and killed jobs", outcomes)
	}
	for status, w := range map[string]string{"TIMEOUT": "killed", "NODE_FAIL": "", "SUSPENDED": "", "cancelled": "killed"} {
		if got := Outcome("helios", status); got != w {
			t.Errorf("helios %s: %q, want %q", status, got, w)
		}
	}
	if got := Outcome("pollux", "Failed"); got != "" {
		t.Errorf("a format without final states gave %q", got)
	}
}

// The real Philly sample (Pollux's reduction, 82,247 jobs) has no status
// column, so no job gets an outcome: the column is only ever filled from
// what a trace records.
func TestPolluxRealHasNoOutcome(t *testing.T) {
	in, err := os.Open(sharedTrace(t, "philly-pollux/philly.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	jobs, err := ReadAll(formats[1], "philly.csv", in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.Outcome != "" || j.Status != "" {
			t.Fatalf("job %s: status %q outcome %q", j.ID, j.Status, j.Outcome)
		}
	}
}
