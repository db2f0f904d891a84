package outdir

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteHashedManifest: the manifest of a directory written with
// WriteHashed records each file's size and SHA-256 as a file written
// otherwise gets them (read back), so Verify accepts it; the sums are
// anchored on sha256.Sum256 of the bytes written, not on the code under
// test. A file changed after WriteHashed recorded it (another size) is
// read back instead of trusted.
func TestWriteHashedManifest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	big := strings.Repeat("0123456789abcdef", 1<<17) // 2 MiB: more than one buffer
	files := map[string]string{"a.txt": "hello\n", "big.bin": big, "empty": ""}
	err := ReplaceDir(dir, nil, func(tmp string) error {
		for name, data := range files {
			if err := WriteHashed(tmp, name, func(w io.Writer) error { _, err := io.WriteString(w, data); return err }); err != nil {
				return err
			}
		}
		// What the manifest will take for big.bin without reading it.
		bigSum := sha256.Sum256([]byte(big))
		if sum, ok := streamedSum(tmp, "big.bin", int64(len(big))); !ok || sum != hex.EncodeToString(bigSum[:]) {
			return fmt.Errorf("big.bin recorded as %q, %v; want %x", sum, ok, bigSum)
		}
		// Changed after it was recorded: the manifest must not trust the record.
		return os.WriteFile(filepath.Join(tmp, "a.txt"), []byte("changed\n"), 0o666)
	})
	if err != nil {
		t.Fatal(err)
	}
	files["a.txt"] = "changed\n"
	got, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	want := manifestHeader + "\n"
	for _, name := range []string{"a.txt", "big.bin", "empty"} {
		sum := sha256.Sum256([]byte(files[name]))
		want += fmt.Sprintf("%s\t%d\t%s\n", name, len(files[name]), hex.EncodeToString(sum[:]))
	}
	if string(got) != want {
		t.Errorf("manifest:\n%s\nwant:\n%s", got, want)
	}
	if err := Verify(dir); err != nil {
		t.Error(err)
	}
	streamed.Lock()
	n := len(streamed.sums)
	streamed.Unlock()
	if n != 0 {
		t.Errorf("%d directories' sums kept after the manifest was written", n)
	}
}
