package sim

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHugeSliceIsAdvised: an array from hugeSlice (the engine's Jobs at
// 40,000 jobs, 12.8 MB) is zeroed, has its length, and the kernel's map of
// the process marks the memory around its middle as advised for huge
// pages ("hg" in the mapping's VmFlags, /proc/self/smaps): fails if the
// advice is not given or given on another range. Anchor: the kernel's own
// account. Skipped where the kernel has no transparent huge pages.
func TestHugeSliceIsAdvised(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages")
	}
	s := hugeSlice[Job](40000)
	if len(s) != 40000 || s[123].Status != 0 || s[39999].Spec != nil {
		t.Fatalf("not a zeroed array of 40000 Jobs")
	}
	mid := uintptr(unsafe.Pointer(&s[20000]))
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := mapRange(line); ok {
			in = lo <= mid && mid < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line, " hg") {
				t.Fatalf("the mapping of the array is not advised for huge pages: %s", line)
			}
			return
		}
	}
	t.Fatal("the array's mapping is not in /proc/self/smaps")
}

// mapRange parses an smaps mapping header ("lo-hi perms ...").
func mapRange(line string) (lo, hi uintptr, ok bool) {
	r, _, found := strings.Cut(line, " ")
	a, b, dash := strings.Cut(r, "-")
	if !found || !dash {
		return 0, 0, false
	}
	x, err1 := strconv.ParseUint(a, 16, 64)
	y, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return uintptr(x), uintptr(y), true
}
