package pq

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// limitAddressSpace lets this process's address space grow by n bytes
// from its size now (RLIMIT_AS): past it, an allocation fails, and the Go
// runtime ends with "fatal error: out of memory".
func limitAddressSpace(t *testing.T, n uint64) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := strconv.ParseUint(strings.Fields(string(b))[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	now := pages * uint64(os.Getpagesize())
	lim := syscall.Rlimit{Cur: now + n, Max: now + n}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		t.Fatalf("setrlimit: %v", err)
	}
	t.Logf("address space limited to %d MiB (%d MiB now)", (now+n)>>20, now>>20)
}
