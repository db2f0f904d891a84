package sim

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestClusterEventKindTable checks that every kind has a row and that each
// row is one the engine, the events file parser and the summaries can act
// on: a kind with no row, or a row whose properties contradict each other,
// would be misapplied silently.
func TestClusterEventKindTable(t *testing.T) {
	word := regexp.MustCompile(`^[a-z][a-z_]*$`)
	names := map[string]ClusterEventKind{}
	kinds := ClusterEventKinds()
	if len(kinds) != int(numClusterEventKinds) {
		t.Fatalf("ClusterEventKinds() has %d kinds, want %d", len(kinds), numClusterEventKinds)
	}
	for i, k := range kinds {
		row := k.Info()
		if int(k) != i || !k.Valid() {
			t.Errorf("kind %d: ClusterEventKinds()[%d] = %d (valid %v)", i, i, k, k.Valid())
		}
		if row.Name == "" {
			t.Errorf("kind %d has no row in clusterEventKinds", k)
			continue
		}
		if !word.MatchString(row.Name) {
			t.Errorf("kind %d: name %q is not a lower-case word (events files spell it)", k, row.Name)
		}
		if prev, dup := names[row.Name]; dup {
			t.Errorf("kinds %d and %d are both named %q", prev, k, row.Name)
		}
		names[row.Name] = k
		if got, ok := ParseClusterEventKind(row.Name); !ok || got != k || k.String() != row.Name {
			t.Errorf("kind %d: ParseClusterEventKind(%q) = %d, %v; String %q", k, row.Name, got, ok, k.String())
		}
		if row.Down == row.Up {
			t.Errorf("%s: Down %v, Up %v; a kind takes its node down or brings it up", row.Name, row.Down, row.Up)
		}
		if row.Notice && !row.Down {
			t.Errorf("%s: a notice is the time before the node goes down; the kind must be Down", row.Name)
		}
		noticeState := row.NoticeState == NodeDraining || row.NoticeState == NodeReclaiming
		if row.Notice != noticeState {
			t.Errorf("%s: Notice %v with NoticeState %v; a kind with notice drains (draining or reclaiming), no other sets it", row.Name, row.Notice, row.NoticeState)
		}
		if row.Joins && !row.Up {
			t.Errorf("%s: Joins but not Up; a joining node is available after the event", row.Name)
		}
		if row.Down != (row.DefaultCause != "") {
			t.Errorf("%s: DefaultCause %q; a Down kind needs one (lost work is counted by cause), an Up kind takes none", row.Name, row.DefaultCause)
		}
	}
	for _, bad := range []ClusterEventKind{-1, numClusterEventKinds} {
		if bad.Valid() || bad.Info() != (ClusterEventKindInfo{}) || bad.String() != fmt.Sprintf("ClusterEventKind(%d)", int(bad)) {
			t.Errorf("kind %d: Valid %v, Info %+v, String %q", bad, bad.Valid(), bad.Info(), bad.String())
		}
	}
	if _, ok := ParseClusterEventKind("DOWN"); ok {
		t.Error(`ParseClusterEventKind("DOWN") succeeded; names are exact (the parser lower-cases the cell)`)
	}
}

// TestClusterEventKindsBeforeSentinel checks, in the source, that the kinds
// are declared in one const block that ends with numClusterEventKinds: a
// kind declared after it, or elsewhere, would have no row and no test
// would see it.
func TestClusterEventKindsBeforeSentinel(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			typed := false
			for _, s := range g.Specs {
				if id, ok := s.(*ast.ValueSpec).Type.(*ast.Ident); ok && id.Name == "ClusterEventKind" {
					typed = true
				}
			}
			if !typed {
				continue
			}
			blocks++
			last := g.Specs[len(g.Specs)-1].(*ast.ValueSpec)
			if last.Names[len(last.Names)-1].Name != "numClusterEventKinds" {
				t.Errorf("%s: a ClusterEventKind const block ends with %s, not numClusterEventKinds", fset.Position(last.Pos()), last.Names[0].Name)
			}
		}
	}
	if blocks != 1 {
		t.Errorf("%d const blocks declare ClusterEventKind values, want 1", blocks)
	}
}
