package sim

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// DigestDivergence describes the first round where two per-round digests
// (DigestCSV form) differ.
type DigestDivergence struct {
	Round      int
	Column     string
	Want, Got  string
	Rounds     int // rounds compared
	Identical  bool
	DiffRounds int // rounds with any difference
}

func (d DigestDivergence) String() string {
	if d.Identical {
		return fmt.Sprintf("identical over %d rounds", d.Rounds)
	}
	return fmt.Sprintf("first departs at round %d, column %s: reference %q, ours %q (%d of %d rounds differ)",
		d.Round, d.Column, d.Want, d.Got, d.DiffRounds, d.Rounds)
}

// CompareDigests compares a reference digest with ours, row by row.
func CompareDigests(reference, ours []byte) (DigestDivergence, error) {
	ref, err := csv.NewReader(bytes.NewReader(reference)).ReadAll()
	if err != nil {
		return DigestDivergence{}, fmt.Errorf("reference digest: %w", err)
	}
	got, err := csv.NewReader(bytes.NewReader(ours)).ReadAll()
	if err != nil {
		return DigestDivergence{}, fmt.Errorf("our digest: %w", err)
	}
	if len(ref) == 0 || len(got) == 0 {
		return DigestDivergence{}, fmt.Errorf("empty digest")
	}
	head := ref[0]
	d := DigestDivergence{Identical: true, Round: -1}
	n := min(len(ref), len(got))
	for i := 1; i < n; i++ {
		d.Rounds++
		rowDiff := false
		for c := range head {
			var w, g string
			if c < len(ref[i]) {
				w = ref[i][c]
			}
			if c < len(got[i]) {
				g = got[i][c]
			}
			if w != g {
				rowDiff = true
				if d.Identical {
					d.Identical = false
					d.Round, d.Column, d.Want, d.Got = i-1, head[c], w, g
				}
			}
		}
		if rowDiff {
			d.DiffRounds++
		}
	}
	if len(ref) != len(got) && d.Identical {
		d.Identical = false
		d.Round, d.Column = n-1, "rows"
		d.Want, d.Got = fmt.Sprint(len(ref)-1), fmt.Sprint(len(got)-1)
	}
	return d, nil
}

// DigestCSV renders the per-round digest in the artifact reference form:
// round,running,pending,idle_<type>...,ended.
func (r *Result) DigestCSV() []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := []string{"round", "running", "pending"}
	for _, t := range r.Types {
		head = append(head, "idle_"+t)
	}
	w.Write(append(head, "ended"))
	for _, d := range r.Digest {
		row := []string{strconv.Itoa(d.Round), strconv.Itoa(d.Running), strconv.Itoa(d.Pending)}
		for _, n := range d.Idle {
			row = append(row, strconv.Itoa(n))
		}
		w.Write(append(row, strings.Join(d.Ended, ";")))
	}
	w.Flush()
	return buf.Bytes()
}
