// Command arena-custom is the whole arena command line with one more
// policy, "backfill", registered next to the built-in ones:
//
//	go build -o arena-custom .
//	./arena-custom policies
//	./arena-custom simulate --policy 'fcfs,backfill,backfill(order=smallest)' --rounds 500
package main

import (
	"fmt"
	"os"

	"github.com/arena-sim/arena/cli"
	"github.com/arena-sim/arena/policy"

	"example.com/custom-policy/backfill"
)

func main() {
	reg := policy.NewRegistry()
	if err := reg.Register(backfill.Entry()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cli.Main(reg)
}
