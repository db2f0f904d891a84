package energy

import (
	"bytes"
	"embed"
	"slices"
)

//go:embed data/*.csv
var data embed.FS

// The built-in carbon-intensity series, by name: the file
// data/carbon-<name>.csv (a copy of examples/energy/'s, with its source in
// its header).
var builtinSeries = []string{"de-2020-06"}

// BuiltinModels are the Run.Energy values that name a built-in model
// rather than a file: DefaultName (constant US-average intensity) and one
// per built-in series (the default model with that hourly intensity).
func BuiltinModels() []string { return append([]string{DefaultName}, builtinSeries...) }

// IsBuiltin reports whether name is a built-in model (not a file).
func IsBuiltin(name string) bool { return slices.Contains(BuiltinModels(), name) }

// Series returns the built-in series name, or reads the file at path name.
func Series(name string) (Intensity, error) {
	if slices.Contains(builtinSeries, name) {
		file := "data/carbon-" + name + ".csv"
		b, err := data.ReadFile(file)
		if err != nil {
			return Intensity{}, err
		}
		in, err := readSeries(file, bytes.NewReader(b))
		in.Source = name
		return in, err
	}
	return ReadSeries(name)
}
