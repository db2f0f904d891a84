package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of arena's packages.
const module = "github.com/arena-sim/arena/"

// TestArchitectureRows checks the package map of docs/architecture.md
// against the code: every package of the module is in exactly one row,
// and each of its imports is of a lower row, or of its own row along an
// arrow the map draws. A package added, moved or importing upwards fails
// here until the page says so.
func TestArchitectureRows(t *testing.T) {
	row, arrows := architectureRows(t, "../../docs/architecture.md")
	imports := moduleImports(t, "../..")
	for pkg := range row {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("docs/architecture.md row %d names %s, which is not a package", row[pkg], pkg)
		}
	}
	for pkg, imps := range imports {
		r, ok := row[pkg]
		if !ok {
			t.Errorf("%s is in no row of docs/architecture.md's package map", pkg)
			continue
		}
		for _, imp := range imps {
			ri, ok := row[imp]
			switch {
			case !ok:
				// Reported as a package in no row.
			case ri < r, ri == r && !arrows[pkg+" "+imp]:
				t.Errorf("%s (row %d) imports %s (row %d); docs/architecture.md's map has imports only downwards and along its arrows", pkg, r, imp, ri)
			}
		}
	}
}

// architectureRows reads the first code block after the "Packages and
// their arrows" heading: lines "N  pkg, prefix/{a, b}  x ──► y, z", where
// x, y and z are packages of row N by their last path elements, and a
// line without a number continues the row above with more arrows.
func architectureRows(t *testing.T, path string) (map[string]int, map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, text, ok := strings.Cut(string(data), "## Packages and their arrows")
	if !ok {
		t.Fatalf("%s: no section \"Packages and their arrows\"", path)
	}
	_, text, _ = strings.Cut(text, "```\n")
	text, _, ok = strings.Cut(text, "```")
	if !ok {
		t.Fatalf("%s: the package map's code block is not closed", path)
	}
	row := map[string]int{}
	arrows := map[string]bool{}
	numbered := regexp.MustCompile(`^\s*(\d+)\s+(.*)$`)
	pkgs := regexp.MustCompile(`([\w./-]+)/\{([^}]*)\}|[\w./-]+`)
	cur := 0
	var inRow []string
	resolve := func(name string) string {
		for _, p := range inRow {
			if p == name || strings.HasSuffix(p, "/"+name) {
				return p
			}
		}
		t.Errorf("%s: row %d draws an arrow from or to %q, not one of its packages", path, cur, name)
		return name
	}
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		rest := line
		if m := numbered.FindStringSubmatch(line); m != nil {
			cur, _ = strconv.Atoi(m[1])
			inRow = nil
			names, tail, _ := strings.Cut(m[2], "   ")
			for _, m := range pkgs.FindAllStringSubmatch(names, -1) {
				if m[1] == "" {
					inRow = append(inRow, m[0])
					continue
				}
				for _, leaf := range strings.Split(m[2], ",") {
					inRow = append(inRow, m[1]+"/"+strings.TrimSpace(leaf))
				}
			}
			for _, p := range inRow {
				if prev, dup := row[p]; dup {
					t.Errorf("%s: %s is in rows %d and %d", path, p, prev, cur)
				}
				row[p] = cur
			}
			rest = tail
		}
		if rest = strings.TrimSpace(rest); rest == "" {
			continue
		}
		from, to, ok := strings.Cut(rest, "──►")
		if !ok || cur == 0 {
			t.Errorf("%s: package map line %q: want \"N  packages\" or an arrow \"a ──► b, c\"", path, line)
			continue
		}
		for _, dst := range strings.Split(to, ",") {
			arrows[resolve(strings.TrimSpace(from))+" "+resolve(strings.TrimSpace(dst))] = true
		}
	}
	if len(row) < 20 {
		t.Fatalf("%s: the package map has %d packages; the parser missed it", path, len(row))
	}
	return row, arrows
}

// moduleImports returns, for every package of the module under root (not
// the examples' own modules, not testdata), its imports of the module's
// packages in its non-test files.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples" || name == "python" || name == "docs"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if _, ok := out[pkg]; !ok {
			out[pkg] = nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p, ok := strings.CutPrefix(p, module); ok && !slices.Contains(out[pkg], p) {
				out[pkg] = append(out[pkg], p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
