package pq

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/input/pq/pqtest"
)

// childEnv marks the child process TestCraftedPages runs its reads in.
const childEnv = "ARENA_PQ_CRAFTED_PAGES_CHILD"

// childAddressSpace is the address space the child may grow by: what the
// runtime needs to run the tests, not what a lying page header asks for.
const childAddressSpace = 1 << 30

// TestCraftedPages is the class "Parquet page headers trusted" (issue
// 36): parquet-go allocates from each page header (a buffer of the
// compressed size, one of the uncompressed size, offsets for the values)
// and from what a codec inflates to. Each crafted file — a page header
// claiming 2 GiB, a page past its chunk, zstd, snappy and lz4 bombs, a
// garbage header, a header with a 2 GiB string, a page of 2^31 values —
// must be refused with an error naming the file, by every way pq reads
// (ReadAll, ReadRows, EachRow), allocating little. The reads run in a
// child process whose address space may grow by 1 GiB only, so a file
// that gets past the checks ends the child in "fatal error: out of
// memory" and fails this test, instead of taking the machine's memory.
func TestCraftedPages(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(exe, "-test.run=^TestCraftedPages$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestCraftedPages")) {
			if len(out) > 8000 {
				out = append(out[:8000], "\n[… clipped]"...)
			}
			t.Fatalf("the crafted-page reads under a %d MiB address-space limit: %v\n%s", childAddressSpace>>20, err, out)
		}
		t.Logf("child:\n%s", out)
		return
	}
	limitAddressSpace(t, childAddressSpace)
	bases := map[string][]byte{
		"uncompressed": validFile(t, 2000),
		"zstd":         validFileWith(t, 2000, parquet.Compression(&parquet.Zstd)),
		"dictionary":   dictFile(t, 2000),
	}
	dir := t.TempDir()
	for bname, base := range bases {
		for col := 0; col < 3; col++ {
			cases, err := pqtest.Hostile(base, col)
			if err != nil {
				t.Fatalf("%s column %d: %v", bname, col, err)
			}
			for _, c := range cases {
				name := bname + "/column " + string(rune('0'+col)) + "/" + c.Name
				t.Run(name, func(t *testing.T) {
					path := filepath.Join(dir, "crafted.parquet")
					if err := os.WriteFile(path, c.File, 0o644); err != nil {
						t.Fatal(err)
					}
					for _, how := range []struct {
						name string
						read func() error
					}{
						{"ReadRows", func() error { _, err := read(c.File); return err }},
						{"ReadAll", func() error { _, err := ReadAll[row](path); return err }},
						{"EachRow", func() error {
							f, err := Open(path)
							if err != nil {
								return err
							}
							defer f.Close()
							return f.EachRow(func(parquet.Row) error { return nil })
						}},
					} {
						var before, after runtime.MemStats
						runtime.ReadMemStats(&before)
						err := how.read()
						runtime.ReadMemStats(&after)
						if err == nil {
							t.Fatalf("%s read a %d-byte crafted file without an error", how.name, len(c.File))
						}
						var lim *input.LimitError
						if !errors.Is(err, ErrCorrupt) && !errors.As(err, &lim) {
							t.Errorf("%s: %v: want ErrCorrupt or a LimitError", how.name, err)
						}
						if want := map[string]string{"ReadRows": "t.parquet"}[how.name]; want == "" && !strings.Contains(err.Error(), path) || want != "" && !strings.Contains(err.Error(), want) {
							t.Errorf("%s: %q does not name the file", how.name, err)
						}
						if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
							t.Errorf("%s allocated %d MiB reading a %d-byte file", how.name, got>>20, len(c.File))
						}
						if how.name == "ReadRows" {
							t.Logf("%d bytes: %v", len(c.File), err)
						}
					}
				})
			}
		}
	}
}

// drow is row with dictionary-encoded columns (a dictionary page first).
type drow struct {
	ID string  `parquet:"id,dict"`
	X  float64 `parquet:"x,dict"`
	N  int64   `parquet:"n,dict"`
}

func dictFile(t testing.TB, n int, opts ...parquet.WriterOption) []byte {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[drow](&buf, opts...)
	for i := 0; i < n; i++ {
		if _, err := w.Write([]drow{{ID: "job-" + string(rune('a'+i%26)), X: float64(i % 7), N: int64(i % 5)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// nested has an optional and a repeated column.
type nested struct {
	ID   string   `parquet:"id"`
	Opt  *int64   `parquet:"opt,optional"`
	Tags []string `parquet:"tags,list"`
}

// TestValidPagesAccepted: the page walk accepts what parquet-go writes with
// every codec, both data page versions, dictionaries, several pages a
// chunk, several row groups, optional and repeated columns — and reads
// every row back.
func TestValidPagesAccepted(t *testing.T) {
	codecs := map[string]parquet.WriterOption{
		"uncompressed": parquet.Compression(&parquet.Uncompressed),
		"snappy":       parquet.Compression(&parquet.Snappy),
		"gzip":         parquet.Compression(&parquet.Gzip),
		"brotli":       parquet.Compression(&parquet.Brotli),
		"zstd":         parquet.Compression(&parquet.Zstd),
		"lz4raw":       parquet.Compression(&parquet.Lz4Raw),
	}
	for cname, codec := range codecs {
		for _, v := range []int{1, 2} {
			opts := []parquet.WriterOption{codec, parquet.DataPageVersion(v), parquet.PageBufferSize(4 << 10), parquet.MaxRowsPerRowGroup(3000)}
			name := fmt.Sprintf("%s/v%d", cname, v)
			check := func(what string, b []byte, n int) {
				t.Helper()
				pf, err := OpenReaderAt(name, bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatalf("%s %s: %v", name, what, err)
				}
				if len(pf.RowGroups()) < 2 {
					t.Errorf("%s %s: %d row groups, want several", name, what, len(pf.RowGroups()))
				}
				if pages, err := pqtest.Pages(b, 0); err != nil || len(pages) < 2 {
					t.Errorf("%s %s: %d pages in the first chunk (%v), want several", name, what, len(pages), err)
				}
				got := 0
				if err := EachRow(name, pf, func(parquet.Row) error { got++; return nil }); err != nil || got != n {
					t.Fatalf("%s %s: %d rows, %v", name, what, got, err)
				}
			}
			check("plain", validFileWith(t, 10000, opts...), 10000)
			check("dictionary", dictFile(t, 10000, opts...), 10000)
			if cname == "lz4raw" {
				// parquet-go v0.32.0 does not read back its own lz4raw
				// pages of this schema ("invalid number of mini block"),
				// with or without pq's checks.
				continue
			}
			var buf bytes.Buffer
			w := parquet.NewGenericWriter[nested](&buf, opts...)
			for i := 0; i < 5000; i++ {
				r := nested{ID: fmt.Sprint(i), Tags: []string{"a", "b", fmt.Sprint(i % 3)}[:i%4]}
				if i%3 == 0 {
					x := int64(i)
					r.Opt = &x
				}
				w.Write([]nested{r})
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			check("nested", buf.Bytes(), 5000)
		}
	}
}
