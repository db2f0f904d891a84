// Command arena-docs regenerates the command-line reference in docs/cli/
// from the cobra commands and the metric reference docs/metrics.md from
// the metric catalogue (make docs). TestReferenceCurrent in package cli and
// TestReferencePageCurrent in sim/metrics fail when the committed pages
// differ from what this writes. TestArchitectureRows here checks the package map of
// docs/architecture.md against the packages' imports.
package main

import (
	"fmt"
	"os"

	"github.com/arena-sim/arena/cli"
	"github.com/arena-sim/arena/policy"
	"github.com/arena-sim/arena/sim/metrics"
)

func main() {
	dir := cli.ReferenceDir
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	if err := cli.WriteReference(dir, policy.NewRegistry()); err != nil {
		fmt.Fprintln(os.Stderr, "arena-docs:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", dir)
	if len(os.Args) <= 1 {
		if err := os.WriteFile(metrics.ReferencePage, []byte(metrics.Reference()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "arena-docs:", err)
			os.Exit(1)
		}
		fmt.Println("wrote", metrics.ReferencePage)
	}
}
