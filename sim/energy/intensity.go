package energy

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/arena-sim/arena/sim/input"
)

// Intensity is the grid's carbon intensity, g CO₂eq per kWh: Constant,
// or, when Hourly is set, Hourly[h] over hour h after the run's start,
// the series repeating past its end (a day's or a week's profile).
type Intensity struct {
	Constant float64
	Hourly   []float64
	// Source names where the series came from (its file), "" for a constant.
	Source string
}

// At is the intensity at t seconds after the run's start.
func (in Intensity) At(t float64) float64 {
	if len(in.Hourly) == 0 {
		return in.Constant
	}
	h := int(math.Floor(t / 3600))
	n := len(in.Hourly)
	return in.Hourly[((h%n)+n)%n]
}

// Integral is ∫ intensity dt over [a, b] seconds after the start, in
// g/kWh × seconds: energy at constant power P W over [a, b] emits
// P × Integral / 3.6e9 kg.
func (in Intensity) Integral(a, b float64) float64 {
	if b <= a {
		return 0
	}
	if len(in.Hourly) == 0 {
		return in.Constant * (b - a)
	}
	var s float64
	for t := a; t < b; {
		end := min(b, (math.Floor(t/3600)+1)*3600)
		s += in.At(t) * (end - t)
		t = end
	}
	return s
}

// Mean is the intensity's mean over a whole period of its series.
func (in Intensity) Mean() float64 {
	if len(in.Hourly) == 0 {
		return in.Constant
	}
	var s float64
	for _, v := range in.Hourly {
		s += v
	}
	return s / float64(len(in.Hourly))
}

// seriesHeader is a series file's header.
var seriesHeader = []string{"hour", "g_co2_per_kwh"}

// MaxSeriesHours caps a series file: ten years of hours.
const MaxSeriesHours = 10 * 366 * 24

// ReadSeries reads an hourly carbon-intensity series: CSV through the
// bounded reader, lines starting with # are comments, a header
// hour,g_co2_per_kwh, then one row per hour, hours 0, 1, 2, … in order,
// intensities ≥ 0.
func ReadSeries(path string) (Intensity, error) {
	br, c, err := input.Open(path, input.Options{Quoted: true})
	if err != nil {
		return Intensity{}, err
	}
	defer c.Close()
	return readSeries(path, br)
}

func readSeries(file string, r io.Reader) (Intensity, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	in := Intensity{Source: file}
	header := false
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var le *input.LimitError
			if errors.As(err, &le) {
				return Intensity{}, err
			}
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line, err = pe.Line, pe.Err
			}
			return Intensity{}, &input.Error{File: file, Line: line, Err: fmt.Errorf("not valid CSV: %w", err)}
		}
		line, _ := cr.FieldPos(0)
		if !header {
			if len(rec) != 2 || strings.TrimSpace(rec[0]) != seriesHeader[0] || strings.TrimSpace(rec[1]) != seriesHeader[1] {
				return Intensity{}, &input.Error{File: file, Line: line, Err: fmt.Errorf("want the header %s", strings.Join(seriesHeader, ","))}
			}
			header = true
			continue
		}
		if len(rec) != 2 {
			return Intensity{}, &input.Error{File: file, Line: line, Err: fmt.Errorf("want 2 fields (%s), got %d", strings.Join(seriesHeader, ","), len(rec))}
		}
		h, err := strconv.Atoi(strings.TrimSpace(rec[0]))
		if err != nil || h != len(in.Hourly) {
			return Intensity{}, &input.Error{File: file, Line: line, Field: "hour", Err: fmt.Errorf("want %d (hours in order from 0), got %s", len(in.Hourly), input.ShowValue(rec[0]))}
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return Intensity{}, &input.Error{File: file, Line: line, Field: "g_co2_per_kwh", Err: fmt.Errorf("want a number ≥ 0, got %s", input.ShowValue(rec[1]))}
		}
		if len(in.Hourly) >= MaxSeriesHours {
			return Intensity{}, &input.Error{File: file, Line: line, Err: fmt.Errorf("over %d hours", MaxSeriesHours)}
		}
		in.Hourly = append(in.Hourly, v)
	}
	if len(in.Hourly) == 0 {
		return Intensity{}, &input.Error{File: file, Err: fmt.Errorf("no hours: want the header %s and one row per hour", strings.Join(seriesHeader, ","))}
	}
	return in, nil
}
