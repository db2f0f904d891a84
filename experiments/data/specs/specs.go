// Package specs holds the built-in experiment specs (the YAML files of this
// directory): the sections of the paper's evaluation that `arena reproduce`
// runs and `arena reproduce --print-spec` prints. It only embeds them: a
// //go:embed pattern cannot reach a parent directory, so the files stay
// here, where docs and examples name them (experiments/data/specs/), and
// package report parses them with package sweep's ParseSpec.
package specs

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Dir is the specs' directory in the repository, the file name prefix
// errors in a built-in spec are reported under.
const Dir = "experiments/data/specs/"

// Text returns the YAML of the built-in spec called name (its file name
// without .yaml).
func Text(name string) ([]byte, error) { return files.ReadFile(name + ".yaml") }

// Names lists the built-in specs, sorted.
func Names() []string {
	ents, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(out)
	return out
}
