package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/arena-sim/arena/policy/registry"
)

// ReferenceDir is where the flag reference lives, relative to the
// repository root: one Markdown page per command, generated from the cobra
// commands themselves so it cannot drift from --help (TestReferenceCurrent
// fails when it has).
const ReferenceDir = "docs/cli"

// WriteReference writes the Markdown reference of every command of the
// command line built with reg into dir (one file per command, named
// arena_<command>.md as cobra/doc names them), replacing the pages there.
// The pages carry no generation date, so regenerating an unchanged CLI
// changes no byte.
func WriteReference(dir string, reg *registry.Registry) error {
	root := New(reg)
	root.DisableAutoGenTag = true
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "arena*.md"))
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	disableAutoGen(root)
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		return fmt.Errorf("flag reference: %w", err)
	}
	return nil
}

func disableAutoGen(c *cobra.Command) {
	c.DisableAutoGenTag = true
	// The reference shows the defaults a user gets, never this machine's
	// paths or environment: no default may mention the home directory.
	for _, sub := range c.Commands() {
		disableAutoGen(sub)
	}
}

// referenceName is the page of a command path ("arena trace synth" →
// arena_trace_synth.md), as cobra/doc names it.
func referenceName(path string) string {
	return strings.ReplaceAll(path, " ", "_") + ".md"
}
