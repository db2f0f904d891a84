// Command arena-docs regenerates the command-line reference in docs/cli/
// from the cobra commands (make docs). TestReferenceCurrent in package cli
// fails when the committed pages differ from what this writes.
package main

import (
	"fmt"
	"os"

	"github.com/arena-sim/arena/cli"
	"github.com/arena-sim/arena/policy"
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
}
