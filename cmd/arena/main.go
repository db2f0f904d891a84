// Command arena is the command-line interface of the arena GPU-cluster
// scheduling simulator with the built-in policies; package cli holds the
// commands, so a module with its own policies can build the same binary.
package main

import (
	"github.com/arena-sim/arena/cli"
	"github.com/arena-sim/arena/policy"
)

func main() { cli.Main(policy.NewRegistry()) }
