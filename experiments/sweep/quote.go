package sweep

import (
	"encoding/json"
	"regexp"
	"strings"
)

// shellSafeRE matches words the shell takes literally.
var shellSafeRE = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// ShellQuote renders s as one POSIX shell word: unchanged when it holds
// only characters the shell takes literally, otherwise in single quotes
// (each single quote inside is closed, escaped and reopened: quote, backslash, quote, quote).
func ShellQuote(s string) string {
	if shellSafeRE.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// YAMLQuote renders s as a YAML double-quoted scalar (a JSON string is
// one), safe in any YAML value position.
func YAMLQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
