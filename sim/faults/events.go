package faults

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/arena-sim/arena/sim"
	"github.com/arena-sim/arena/sim/input"
	"github.com/arena-sim/arena/sim/input/pq"
)

// MaxFileBytes bounds an events file.
const MaxFileBytes = 256 << 20

// Columns of an events file. time, node (or its synonym pool) and event
// are required; notice and cause may be left out.
var (
	requiredColumns = []string{"time", "node", "event"}
	optionalColumns = []string{"notice", "cause", "price"}
)

// kindNames lists, in kind order, the names of the event kinds whose row
// has has, as English: "a", "a or b", "a, b or c" with join "or"; with
// join "," a plain list, "a, b, c".
func kindNames(has func(sim.ClusterEventKindInfo) bool, join string) string {
	var names []string
	for _, k := range sim.ClusterEventKinds() {
		if has(k.Info()) {
			names = append(names, k.String())
		}
	}
	if len(names) < 2 || join == "," {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + join + " " + names[len(names)-1]
}

func anyKind(sim.ClusterEventKindInfo) bool      { return true }
func noticeKind(k sim.ClusterEventKindInfo) bool { return k.Notice }
func downKind(k sim.ClusterEventKindInfo) bool   { return k.Down }
func upKind(k sim.ClusterEventKindInfo) bool     { return k.Up }
func joinsKind(k sim.ClusterEventKindInfo) bool  { return k.Joins }
func pricedKind(k sim.ClusterEventKindInfo) bool { return k.Joins || k.Up }

// MaxPrice bounds an event's price, $ per GPU-hour.
const MaxPrice = 1000

// row is one parsed line of an events file, before validation against
// the node states: nodes is one node, or every node of a pool.
type row struct {
	line   int
	time   float64
	nodes  []int
	kind   sim.ClusterEventKind
	notice float64
	cause  string
	price  float64
}

// ReadEventsFile reads an events file for cluster c: CSV, or Parquet for
// a .parquet name (docs/faults.md has the format). Every row is checked
// (ReadEventsCSV), then the sequence of each node (Validate).
func ReadEventsFile(path string, c *sim.Cluster) ([]sim.ClusterEvent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("faults: %w", err)
	}
	if st.Size() > MaxFileBytes {
		return nil, &input.Error{File: path, Err: fmt.Errorf("%d bytes; an events file is at most %d", st.Size(), MaxFileBytes)}
	}
	if strings.EqualFold(ext(path), ".parquet") {
		return readEventsParquet(path, f, st.Size(), c)
	}
	return ReadEventsCSV(path, io.LimitReader(f, MaxFileBytes), c)
}

func ext(path string) string {
	i := strings.LastIndexAny(path, "./\\")
	if i < 0 || path[i] != '.' {
		return ""
	}
	return path[i:]
}

// ReadEventsCSV reads the CSV form: a header naming the columns (time,
// node or pool, event; optionally notice, cause; no other), then one
// event per line; blank lines and lines starting with # are skipped.
// file names the input in errors, which are *input.Error with the line
// and the column.
func ReadEventsCSV(file string, r io.Reader, c *sim.Cluster) ([]sim.ClusterEvent, error) {
	// Through the one bounded reader: a line (or a quoted field spread
	// over lines) past input.LineCap fails before encoding/csv buffers it.
	cr := csv.NewReader(input.NewReader(file, r, input.Options{Quoted: true}))
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &input.Error{File: file, Line: 1, Err: errors.New("empty; want the header time,node,event,notice,cause")}
		}
		return nil, csvErr(file, err)
	}
	line, _ := cr.FieldPos(0)
	col, err := header(file, line, head)
	if err != nil {
		return nil, err
	}
	var rows []row
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(head) {
			return nil, &input.Error{File: file, Line: line, Err: fmt.Errorf("%d fields, the header has %d", len(rec), len(head))}
		}
		if len(rows) >= MaxEvents {
			return nil, &input.Error{File: file, Line: line, Err: fmt.Errorf("more than %d events", MaxEvents)}
		}
		get := func(name string) string {
			if i, ok := col[name]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		rw, err := parseRow(file, line, c, get)
		if err != nil {
			return nil, err
		}
		rows = append(rows, rw)
	}
	return validate(file, rows, c)
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &input.Error{File: file, Line: pe.Line, Err: pe.Err}
	}
	return &input.Error{File: file, Err: err}
}

// header maps column names to positions; pool is node's synonym. An
// unknown column is refused (a misspelt "notcie" must not drop notices).
func header(file string, line int, head []string) (map[string]int, error) {
	col := map[string]int{}
	for i, h := range head {
		name := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if name == "pool" {
			name = "node"
		}
		if indexOf(requiredColumns, name) < 0 && indexOf(optionalColumns, name) < 0 {
			return nil, &input.Error{File: file, Line: line, Field: input.KeyName(h), Err: fmt.Errorf("unknown column; want time, node (or pool), event, notice, cause, price")}
		}
		if _, dup := col[name]; dup {
			return nil, &input.Error{File: file, Line: line, Field: name, Err: errors.New("column given twice")}
		}
		col[name] = i
	}
	for _, need := range requiredColumns {
		if _, ok := col[need]; !ok {
			return nil, &input.Error{File: file, Line: line, Field: need, Err: errors.New("missing column; want the header time,node,event[,notice,cause]")}
		}
	}
	return col, nil
}

// parseRow checks one row's cells. get returns a cell by column name
// ("" when the column is absent or the cell empty).
func parseRow(file string, line int, c *sim.Cluster, get func(string) string) (row, error) {
	r := row{line: line}
	bad := func(field, format string, args ...any) error {
		return &input.Error{File: file, Line: line, Field: field, Err: fmt.Errorf(format, args...)}
	}
	var err error
	if r.time, err = seconds(get("time")); err != nil {
		return r, bad("time", "%s: %v", input.ShowValue(get("time")), err)
	}
	k, ok := sim.ParseClusterEventKind(strings.ToLower(get("event")))
	if !ok {
		return r, bad("event", "%s: want one of %s", input.ShowValue(get("event")), kindNames(anyKind, ","))
	}
	r.kind = k
	kind := k.Info()
	if r.nodes, err = resolveNode(c, get("node")); err != nil {
		return r, bad("node", "%v", err)
	}
	if n := get("notice"); n != "" {
		if r.notice, err = seconds(n); err != nil {
			return r, bad("notice", "%s: %v", input.ShowValue(n), err)
		}
		if !kind.Notice && r.notice != 0 {
			return r, bad("notice", "%s: a %s event takes no notice (only %s do); leave it empty", input.ShowValue(n), k, kindNames(noticeKind, "and"))
		}
	}
	if p := get("price"); p != "" {
		if r.price, err = strconv.ParseFloat(p, 64); err != nil || !(r.price >= 0 && r.price <= MaxPrice) {
			return r, bad("price", "%s: want $ per GPU-hour in [0, %d]", input.ShowValue(p), MaxPrice)
		}
		if !pricedKind(kind) && r.price != 0 {
			return r, bad("price", "%s: a %s event takes no price (only %s do: the price of the capacity from then on); leave it empty", input.ShowValue(p), k, kindNames(pricedKind, "and"))
		}
	}
	r.cause = get("cause")
	switch {
	case r.cause == "":
		r.cause = kind.DefaultCause
	case !kind.Down:
		return r, bad("cause", "%s: a %s event takes no cause; leave it empty", input.ShowValue(r.cause), k)
	case !plainWord(r.cause, 40):
		return r, bad("cause", "%s: want a short word (letters, digits, . _ -)", input.ShowValue(r.cause))
	}
	return r, nil
}

// seconds reads a time or notice: finite seconds ≥ 0 and at most
// input.MaxTime, the bound on every time arena reads (input.Time).
func seconds(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("want finite seconds")
	}
	if err := input.Time(v); err != nil {
		return 0, fmt.Errorf("want finite seconds ≥ 0 and ≤ %g: %v", float64(input.MaxTime), err)
	}
	return v, nil
}

// PastWindow counts the events (in time order) at or after end: a run
// whose window ends there never applies them.
func PastWindow(events []sim.ClusterEvent, end sim.Time) int {
	return len(events) - sort.Search(len(events), func(i int) bool { return events[i].Time >= end })
}

// resolveNode reads the node column: a node index (0-based, the
// cluster's node order), TYPE/K (the K-th node, 0-based, of GPU type
// TYPE: clusters do not name nodes, so this is the name that survives
// pools being added or reordered) or TYPE (every node of that type: the
// whole pool).
func resolveNode(c *sim.Cluster, s string) ([]int, error) {
	if s == "" {
		return nil, errors.New("empty; want a node index, TYPE/K or a GPU type (a whole pool)")
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n >= len(c.Nodes) {
			return nil, fmt.Errorf("%d: no such node; cluster %s has nodes 0 to %d", n, c.Name, len(c.Nodes)-1)
		}
		return []int{n}, nil
	}
	gpu, k, hasK := strings.Cut(strings.ToLower(s), "/")
	nodes := c.NodesOfType(gpu)
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%s: not a node index, TYPE/K or GPU type of cluster %s (types %s)", input.ShowValue(s), c.Name, strings.Join(c.Types, ", "))
	}
	if !hasK {
		return nodes, nil
	}
	i, err := strconv.Atoi(k)
	if err != nil || i < 0 || i >= len(nodes) {
		return nil, fmt.Errorf("%s: cluster %s has %s nodes %s/0 to %s/%d", input.ShowValue(s), c.Name, gpu, gpu, gpu, len(nodes)-1)
	}
	return []int{nodes[i]}, nil
}

// nodeState is what validate tracks per node.
type nodeState int

const (
	stateUp nodeState = iota
	stateDraining
	stateDown
	stateAbsent
)

// validate orders rows by time (file order among equal times), expands
// pools and checks each node's sequence: down needs a node that is up or
// draining; up needs one that is down (a repair before its failure, or
// the up of a node that is up, is refused); drain and reclaim need a node
// that is up; add must be a node's first event (the node is absent until
// then). A drained or reclaimed node counts as down from the end of its
// notice.
func validate(file string, rows []row, c *sim.Cluster) ([]sim.ClusterEvent, error) {
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].time < rows[b].time })
	state := make([]nodeState, len(c.Nodes))
	since := make([]int, len(c.Nodes))      // the line that set the state
	downAt := make([]float64, len(c.Nodes)) // end of a drain's notice
	// A node whose first event (in time order) is add is absent until
	// then; every other node is up from the start.
	seen := make([]bool, len(c.Nodes))
	for _, r := range rows {
		for _, n := range r.nodes {
			if !seen[n] {
				seen[n] = true
				if r.kind == sim.NodeAdd {
					state[n] = stateAbsent
				}
			}
		}
	}
	var out []sim.ClusterEvent
	for _, r := range rows {
		for _, n := range r.nodes {
			if state[n] == stateDraining && r.time >= downAt[n] {
				state[n] = stateDown
			}
			bad := func(format string, args ...any) error {
				where := ""
				if since[n] > 0 {
					where = fmt.Sprintf(" (line %d)", since[n])
				}
				return &input.Error{File: file, Line: r.line, Field: "event", Err: fmt.Errorf("node %d at %vs: %s%s", n, r.time, fmt.Sprintf(format, args...), where)}
			}
			s := state[n]
			switch kind := r.kind.Info(); {
			case kind.Joins:
				if s != stateAbsent {
					return nil, bad("%s, but the node is already in the cluster (%s is only a node's first event)", r.kind, r.kind)
				}
				state[n] = stateUp
			case kind.Up:
				switch s {
				case stateUp:
					if since[n] == 0 {
						return nil, bad("%s, but the node is up (no %s before it: a repair before its failure?)", r.kind, kindNames(downKind, "or"))
					}
					return nil, bad("%s, but the node is up since its last %s", r.kind, kindNames(upKind, "or"))
				case stateDraining:
					return nil, bad("%s, but the node is draining until %vs", r.kind, downAt[n])
				case stateAbsent:
					return nil, bad("%s, but the node is not added yet (use %s)", r.kind, kindNames(joinsKind, "or"))
				}
				state[n] = stateUp
			case kind.Notice:
				if s != stateUp {
					return nil, bad("%s needs a node that is up; it is %s", r.kind, [...]string{"up", "draining", "down", "not added yet"}[s])
				}
				state[n], downAt[n] = stateDraining, r.time+r.notice
			case kind.Down:
				switch s {
				case stateDown:
					return nil, bad("%s, but the node is already down", r.kind)
				case stateAbsent:
					return nil, bad("%s, but the node is not added yet", r.kind)
				}
				state[n] = stateDown
			}
			since[n] = r.line
			if len(out) >= MaxEvents {
				return nil, &input.Error{File: file, Line: r.line, Err: fmt.Errorf("more than %d events (pools expanded)", MaxEvents)}
			}
			out = append(out, sim.ClusterEvent{Time: sim.Time(r.time), Node: n, Kind: r.kind, Notice: sim.Duration(r.notice), Cause: r.cause, Price: r.price})
		}
	}
	sortEvents(out)
	return out, nil
}

// Check validates a sequence of events on c as an events file's rows are
// validated (each node exists, times and notices finite and ≥ 0, a notice
// only on drain and reclaim, each node's sequence possible): for events
// built in code, and for the engine's invariant checks. Errors name the
// event's position (Line is the index + 1).
func Check(events []sim.ClusterEvent, c *sim.Cluster) error {
	rows := make([]row, len(events))
	for i, e := range events {
		bad := func(field, format string, args ...any) error {
			return &input.Error{File: "events", Line: i + 1, Field: field, Err: fmt.Errorf(format, args...)}
		}
		switch {
		case e.Node < 0 || e.Node >= len(c.Nodes):
			return bad("node", "%d: no such node; cluster %s has nodes 0 to %d", e.Node, c.Name, len(c.Nodes)-1)
		case !e.Kind.Valid():
			return bad("event", "%v: not an event kind", e.Kind)
		case !(e.Time >= 0) || math.IsInf(float64(e.Time), 0):
			return bad("time", "%v: want finite seconds ≥ 0", e.Time)
		case !(e.Notice >= 0) || math.IsInf(float64(e.Notice), 0):
			return bad("notice", "%v: want finite seconds ≥ 0", e.Notice)
		case e.Notice != 0 && !e.Kind.Info().Notice:
			return bad("notice", "a %s event takes no notice", e.Kind)
		case !(e.Price >= 0 && e.Price <= MaxPrice):
			return bad("price", "%v: want $ per GPU-hour in [0, %d]", e.Price, MaxPrice)
		case e.Price != 0 && !pricedKind(e.Kind.Info()):
			return bad("price", "a %s event takes no price", e.Kind)
		}
		rows[i] = row{line: i + 1, time: float64(e.Time), nodes: []int{e.Node}, kind: e.Kind, notice: float64(e.Notice), cause: e.Cause, price: e.Price}
	}
	_, err := validate("events", rows, c)
	return err
}

// readEventsParquet reads the Parquet form: the same columns, flat; time
// and notice numeric (notice optional, null = none), node a string or an
// integer, event and cause strings. Line in errors is the row number
// (1-based).
func readEventsParquet(path string, f io.ReaderAt, size int64, c *sim.Cluster) ([]sim.ClusterEvent, error) {
	// The one Parquet opener: its footer's counts and offsets are
	// checked before parquet-go believes them.
	pf, err := pq.OpenReaderAt(path, f, size)
	if err != nil {
		return nil, err
	}
	if pf.NumRows() > MaxEvents {
		return nil, &input.Error{File: path, Err: fmt.Errorf("%d rows; at most %d events", pf.NumRows(), MaxEvents)}
	}
	var names []string
	for _, fl := range pf.Schema().Fields() {
		if !fl.Leaf() {
			return nil, &input.Error{File: path, Field: input.KeyName(fl.Name()), Err: errors.New("a nested column; want flat columns time, node, event, notice, cause")}
		}
		names = append(names, fl.Name())
	}
	col, err := header(path, 0, names)
	if err != nil {
		return nil, err
	}
	// Rows through pq too: a corrupt page is an error, not a panic, and
	// the rows read must be the rows the footer declares.
	var rows []row
	cells := make([]string, len(names))
	line := 0
	err = pq.EachRow(path, pf, func(pr parquet.Row) error {
		line++
		clear(cells)
		for _, v := range pr {
			if i := v.Column(); i >= 0 && i < len(cells) {
				cells[i] = cellString(v)
			}
		}
		get := func(name string) string {
			if i, ok := col[name]; ok {
				return strings.TrimSpace(cells[i])
			}
			return ""
		}
		rw, err := parseRow(path, line, c, get)
		if err != nil {
			return err
		}
		rows = append(rows, rw)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return validate(path, rows, c)
}

// cellString renders a Parquet value as its CSV cell would read, so both
// forms go through one parser.
func cellString(v parquet.Value) string {
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32, parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	}
	return "" // null
}

// WriteEventsCSV writes events in the CSV form (node as its index), the
// file format Load reads back: a synthesised run's events can be saved,
// edited and replayed.
func WriteEventsCSV(w io.Writer, events []sim.ClusterEvent) error {
	cw := csv.NewWriter(w)
	head := []string{"time", "node", "event", "notice", "cause"}
	priced := anyPrice(events)
	if priced {
		head = append(head, "price")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, e := range events {
		notice := ""
		if e.Kind.Info().Notice {
			notice = strconv.FormatFloat(float64(e.Notice), 'f', -1, 64)
		}
		rec := []string{strconv.FormatFloat(float64(e.Time), 'f', -1, 64), strconv.Itoa(e.Node), e.Kind.String(), notice, e.Cause}
		if priced {
			price := ""
			if e.Price != 0 {
				price = strconv.FormatFloat(e.Price, 'f', -1, 64)
			}
			rec = append(rec, price)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// anyPrice reports whether an event carries a price: only then do the
// writers add the price column (files without prices keep their bytes).
func anyPrice(events []sim.ClusterEvent) bool {
	for _, e := range events {
		if e.Price != 0 {
			return true
		}
	}
	return false
}

// eventRow is one event of the Parquet form WriteEventsParquet writes.
type eventRow struct {
	Time   float64  `parquet:"time"`
	Node   int64    `parquet:"node"`
	Event  string   `parquet:"event"`
	Notice *float64 `parquet:"notice,optional"`
	Cause  string   `parquet:"cause"`
}

// pricedRow is eventRow with the price column (null where none).
type pricedRow struct {
	Time   float64  `parquet:"time"`
	Node   int64    `parquet:"node"`
	Event  string   `parquet:"event"`
	Notice *float64 `parquet:"notice,optional"`
	Cause  string   `parquet:"cause"`
	Price  *float64 `parquet:"price,optional"`
}

// WriteEventsParquet writes events in the Parquet form (node as its
// index, notice null where the kind takes none; a price column, null
// where none, when an event has a price), which ReadEventsFile reads back
// as the same events.
func WriteEventsParquet(w io.Writer, events []sim.ClusterEvent) error {
	if anyPrice(events) {
		return writeParquet(w, events, func(r eventRow, e sim.ClusterEvent) pricedRow {
			p := pricedRow{Time: r.Time, Node: r.Node, Event: r.Event, Notice: r.Notice, Cause: r.Cause}
			if e.Price != 0 {
				x := e.Price
				p.Price = &x
			}
			return p
		})
	}
	return writeParquet(w, events, func(r eventRow, _ sim.ClusterEvent) eventRow { return r })
}

func writeParquet[T any](w io.Writer, events []sim.ClusterEvent, conv func(eventRow, sim.ClusterEvent) T) error {
	pw := parquet.NewGenericWriter[T](w)
	rows := make([]T, 0, min(len(events), 4096))
	flush := func() error {
		_, err := pw.Write(rows)
		rows = rows[:0]
		return err
	}
	for _, e := range events {
		r := eventRow{Time: float64(e.Time), Node: int64(e.Node), Event: e.Kind.String(), Cause: e.Cause}
		if e.Kind.Info().Notice {
			n := float64(e.Notice)
			r.Notice = &n
		}
		if rows = append(rows, conv(r, e)); len(rows) == cap(rows) {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}
