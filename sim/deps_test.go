package sim

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEngineImportsNoFileFormat guards the split of issue 23 (a guard
// against change, not an outside anchor): the engine package imports no
// YAML, JSON or Parquet library. Cluster specs are read by sim/clusterspec,
// overhead profiles by sim/overheadprofile, and results files written by
// sim/resultsdir, each importing sim for the types it produces or
// consumes. Before the split sim/cluster.go, sim/overhead.go and
// sim/results_io.go imported yaml.v3, encoding/json and parquet-go.
func TestEngineImportsNoFileFormat(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	banned := []string{"gopkg.in/yaml.v3", "encoding/json", "github.com/parquet-go/parquet-go"}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range banned {
				if path == b {
					t.Errorf("%s imports %s: parsing and writing files belong in sim/clusterspec, sim/overheadprofile or sim/resultsdir", f, path)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d files; the glob missed the package", checked)
	}
}
