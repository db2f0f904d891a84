package importers

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/traces"
	"github.com/arena-sim/arena/traces/table"
)

//go:embed data/philly-pollux.csv.gz
var builtinData embed.FS

// builtinSources are public traces compiled into the binary: name →
// (format, embedded file).
var builtinSources = map[string][2]string{
	"philly-pollux": {"pollux", "data/philly-pollux.csv.gz"},
}

// SourceNames lists the built-in traces a synthesis can start from: the
// public ones above and the artifact's (traces.BuiltinNames: philly,
// helios, pai, testbed, read with the arena importer).
func SourceNames() []string {
	out := traces.BuiltinNames()
	for k := range builtinSources {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Open resolves a synthesis source into canonical jobs: a built-in public
// trace name ("philly-pollux"), or a file — read with the importer format
// names, or, when format is "" or "table", as a canonical table (CSV or
// Parquet). A ".gz" file is decompressed. opt passes importer options.
func Open(src, format string, opt Options) ([]table.Job, error) {
	if b, ok := builtinSources[src]; ok && (format == "" || format == b[0]) {
		f, err := builtinData.Open(b[1])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		zr, err := Decompress(b[1], f)
		if err != nil {
			return nil, err
		}
		imp, _ := Lookup(b[0])
		return ReadAll(imp, src, zr, opt)
	}
	if jobs, ok, err := openArtifactBuiltin(src, format, opt); ok {
		return jobs, err
	}
	if format == "" || format == "table" {
		if table.IsParquet(src) {
			return table.ReadFile(src)
		}
	}
	f, err := os.Open(src)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(src, "/.") {
			return nil, fmt.Errorf("%s is neither a built-in trace (%s) nor a file", input.Clip(src), strings.Join(SourceNames(), ", "))
		}
		return nil, err
	}
	defer f.Close()
	r, err := Decompress(src, f)
	if err != nil {
		return nil, err
	}
	if format == "" || format == "table" {
		return table.ReadCSV(src, r)
	}
	imp, err := Lookup(format)
	if err != nil {
		return nil, err
	}
	return ReadAll(imp, src, r, opt)
}

// openArtifactBuiltin reads one of the artifact's built-in traces (philly,
// helios, pai, testbed) as canonical jobs, with that trace's iteration
// scale (testbed's is 1, the others' 5); ok is false for other names.
func openArtifactBuiltin(src, format string, opt Options) ([]table.Job, bool, error) {
	r, scale, ok, err := traces.OpenBuiltin(src)
	if !ok || err != nil {
		return nil, ok, err
	}
	if format != "" && format != "arena" && format != "table" {
		r.Close()
		return nil, true, fmt.Errorf("built-in trace %s is in the arena format, not %s: drop the format or give arena", src, format)
	}
	defer r.Close()
	imp, _ := Lookup("arena")
	jobs, err := ReadAll(imp, src, r, opt)
	for i := range jobs {
		jobs[i].IterationScale = scale
	}
	return jobs, true, err
}

// Decompress returns r, gunzipped when name ends in .gz. Both the file
// and what it decompresses to are under the input cap (input.InputCap):
// a gzip bomb stops there, and, streamed, never sits in memory whole.
func Decompress(name string, r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(input.NewReader(name, r, input.Options{BytesOnly: true}), 1<<20)
	if !strings.HasSuffix(name, ".gz") {
		return br, nil
	}
	magic, _ := br.Peek(2)
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return nil, fmt.Errorf("%s: named .gz but not gzip data", name)
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return input.NewReader(name+" (decompressed)", zr, input.Options{BytesOnly: true}), nil
}
