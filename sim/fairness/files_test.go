package fairness

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The per-job and share tables read back as written (guard: the figures
// read what the run wrote), and a malformed row is an error naming file,
// line and field.
func TestFilesRoundTrip(t *testing.T) {
	r := &Report{Jobs: []Job{{ID: 3, Tenant: "vc,a", JCT: 7200.5, Alone: 3600, N: 2.25, Ideal: 3600, Rho: 2.0001388888888888}}}
	share := &Series{Times: []float64{0, 300}, Tenants: []string{"a", "b"}, GPUs: [][]float64{{1, 2}, {0, 4}}}
	files, err := r.Files(share)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	jobs, err := ReadJobs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jobs, r.Jobs) {
		t.Errorf("jobs read back %+v, want %+v", jobs, r.Jobs)
	}
	s, err := ReadShare(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, share) {
		t.Errorf("share read back %+v, want %+v", s, share)
	}
	bad := "id,tenant,jct_s,alone_s,contending,ideal_s,rho\n1,a,x,1,1,1,1\n"
	if err := os.WriteFile(filepath.Join(dir, JobsFileName), []byte(bad), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJobs(dir); err == nil || !strings.Contains(err.Error(), JobsFileName+":2: field jct_s") {
		t.Errorf("bad row: %v, want file:2: field jct_s", err)
	}
}
