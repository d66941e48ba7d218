//go:build unix

package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// baseConvention is the one rule for the ratio column, stated in the
// header of every table.
const baseConvention = "Ratio: a row's value over its measure's base row in this run. The base is the Go way " +
	"whenever the measure has one (goroutines, Go's net, net/http, time.Sleep or time.AfterFunc, go-redis on " +
	"goroutines; iter.Pull where no goroutine row is measured; never a floor row), else the stackless row (the loop's wheel for " +
	"timer add + cancel). Below 1 is better than the base, except for req/s, tasks/s and × rows, where above 1 is."

// Families of models, for colours, bases and the verdict.
const (
	famStackless = "stackless"
	famStackful  = "stackful"
	famGo        = "Go"
	famPeer      = "peer"
	famLoop      = "the loop (both models)"
	famFloor     = "floor"
)

// family tells which model family a row's model belongs to.
func family(model string) string {
	m := strings.ToLower(model)
	for _, client := range []string{"resp ", "cohttp ", "go-redis "} { // "cohttp stackless", "go-redis goroutines"...
		m = strings.TrimPrefix(m, client)
	}
	switch {
	case strings.HasPrefix(m, "plain func"), strings.Contains(m, "(floor"):
		return famFloor
	case strings.HasPrefix(m, "stackless"):
		return famStackless
	case strings.HasPrefix(m, "stackful"):
		return famStackful
	case strings.HasPrefix(m, "gnet"), strings.HasPrefix(m, "fasthttp"),
		strings.HasPrefix(m, "netpoll"), strings.HasPrefix(m, "nbio"), strings.HasPrefix(m, "nbhttp"):
		return famPeer
	case strings.HasPrefix(m, "loop"):
		return famLoop
	}
	return famGo // goroutines, net/http, time.*, iter.Pull, go-redis on goroutines
}

// goBaseRank orders the Go rows that may be a measure's base: the
// goroutine-based way first, iter.Pull only without one.
func goBaseRank(model string) int {
	if strings.HasPrefix(model, "iter.Pull") {
		return 1
	}
	return 0
}

// chooseBases applies baseConvention: in every measure with a Go row, the
// first Go row of the best rank becomes the only base; other measures keep
// the base their group marked.
func chooseBases(rows []Row) {
	best := map[string]int{} // measure -> index of its Go base
	for i, r := range rows {
		if family(r.Model) != famGo || r.Skipped { // a floor is not a way to do it
			continue
		}
		k := r.Group + "\x00" + r.Measure
		if j, ok := best[k]; !ok || goBaseRank(r.Model) < goBaseRank(rows[j].Model) {
			best[k] = i
		}
	}
	for i := range rows {
		if j, ok := best[rows[i].Group+"\x00"+rows[i].Measure]; ok {
			rows[i].Base = i == j
		}
	}
}

// higherIsBetter reports the direction of a unit: throughput and scaling
// ratios grow, everything else (times, bytes, calls) shrinks.
func higherIsBetter(unit string) bool { return unit == "req/s" || unit == "tasks/s" || unit == "×" }

// headline names, per group, the measure its verdict line judges: the first
// measure of the group whose name contains it (else the group's first).
var headline = map[string]string{
	"switch": "switch round trip",
	"create": "create",
	"timers": "add + cancel",
	"chan":   "ping-pong round trip",
	"memory": "memory",
	"echo":   "server CPU per request",
	"http":   "server CPU per request",
	"scale":  "server CPU per request",
	"db":     "client CPU per GET",
}

// Noise thresholds: a difference counts as beyond the run's noise when the
// factor exceeds 1 by more than the larger spread of the two rows (their
// rounds' or windows' (max - min) / value), or by defaultNoise where
// neither has one; when the machine was overloaded, by overloadNoise at
// least (run-to-run differences of 10-30 % are usual then).
const (
	defaultNoise  = 0.10
	overloadNoise = 0.25
)

// A Verdict is one group's line: the measure judged, the best row, and how
// far ahead it is of the best row of each other model family.
type Verdict struct {
	Group   string   `json:"group"`
	Measure string   `json:"measure"`
	Winner  string   `json:"winner"`
	Value   float64  `json:"value"`
	Unit    string   `json:"unit"`
	Higher  bool     `json:"higher_is_better"`
	Margins []Margin `json:"margins"`
	// Backends marks the line that pits the loop's io_uring rows against
	// its epoll rows (backendVerdict) rather than model families.
	Backends bool `json:"backends,omitempty"`
}

// A Margin is the winner's lead over another family's best row.
type Margin struct {
	Model  string  `json:"model"`
	Factor float64 `json:"factor"` // ≥ 1: how many times better the winner is
	Noise  float64 `json:"noise"`  // the threshold used, as a fraction
	Beyond bool    `json:"beyond_noise"`
}

// verdicts judges each group of rep on its headline measure.
func verdicts(rep *report) []Verdict {
	overloaded := overload(rep.Machine) != ""
	var out []Verdict
	var groupsSeen []string
	byGroup := map[string][]Row{}
	for _, r := range rep.Rows {
		if _, ok := byGroup[r.Group]; !ok {
			groupsSeen = append(groupsSeen, r.Group)
		}
		byGroup[r.Group] = append(byGroup[r.Group], r)
	}
	for _, g := range groupsSeen {
		rows := byGroup[g]
		measure := rows[0].Measure
		for _, r := range rows {
			if want := headline[g]; want != "" && strings.Contains(r.Measure, want) {
				measure = r.Measure
				break
			}
		}
		var cands []Row
		for _, r := range rows {
			if r.Measure == measure && family(r.Model) != famFloor && r.Value > 0 {
				cands = append(cands, r)
			}
		}
		if len(cands) < 2 {
			continue
		}
		higher := higherIsBetter(cands[0].Unit)
		better := func(a, b Row) bool {
			if higher {
				return a.Value > b.Value
			}
			return a.Value < b.Value
		}
		win := cands[0]
		for _, r := range cands[1:] {
			if better(r, win) {
				win = r
			}
		}
		// The best row of every other family, in the order families appear.
		var fams []string
		bestOf := map[string]Row{}
		for _, r := range cands {
			f := family(r.Model)
			if f == family(win.Model) {
				continue
			}
			if b, ok := bestOf[f]; !ok || better(r, b) {
				if !ok {
					fams = append(fams, f)
				}
				bestOf[f] = r
			}
		}
		v := Verdict{Group: g, Measure: measure, Winner: win.Model, Value: win.Value, Unit: win.Unit, Higher: higher}
		for _, f := range fams {
			o := bestOf[f]
			factor := o.Value / win.Value
			if higher {
				factor = win.Value / o.Value
			}
			noise := max(win.Spread, o.Spread)
			if noise == 0 {
				noise = defaultNoise
			}
			if overloaded {
				noise = max(noise, overloadNoise)
			}
			v.Margins = append(v.Margins, Margin{Model: o.Model, Factor: factor, Noise: noise, Beyond: factor-1 > noise})
		}
		out = append(out, v)
		if bv, ok := backendVerdict(g, cands, better, overloaded); ok {
			out = append(out, bv)
		}
	}
	return out
}

// backendVerdict judges the loop's backends on a group's headline rows:
// the best io_uring row (named with uringName) against the best epoll row
// of the same models (the same names without it). ok is false without
// io_uring rows.
func backendVerdict(g string, cands []Row, better func(a, b Row) bool, overloaded bool) (v Verdict, ok bool) {
	byName := map[string]Row{}
	for _, r := range cands {
		byName[r.Model] = r
	}
	var bestU, bestE *Row
	for _, r := range cands {
		name, isU := strings.CutSuffix(r.Model, uringName)
		e, paired := byName[name]
		if !isU || !paired {
			continue
		}
		if bestU == nil || better(r, *bestU) {
			bestU = &r
		}
		if bestE == nil || better(e, *bestE) {
			bestE = &e
		}
	}
	if bestU == nil {
		return v, false
	}
	win, lose := *bestU, *bestE
	if better(lose, win) {
		win, lose = lose, win
	}
	higher := higherIsBetter(win.Unit)
	factor := lose.Value / win.Value
	if higher {
		factor = win.Value / lose.Value
	}
	noise := max(win.Spread, lose.Spread)
	if noise == 0 {
		noise = defaultNoise
	}
	if overloaded {
		noise = max(noise, overloadNoise)
	}
	return Verdict{Group: g + " backends (epoll or io_uring)", Measure: win.Measure, Winner: win.Model, Value: win.Value, Unit: win.Unit, Higher: higher, Backends: true,
		Margins: []Margin{{Model: lose.Model, Factor: factor, Noise: noise, Beyond: factor-1 > noise}}}, true
}

// writeVerdicts writes the closing summary: one line per group.
func writeVerdicts(w io.Writer, vs []Verdict) {
	if len(vs) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Verdict, one line per group: the best row of the group's headline measure, and how many times better it is than the best row of each other model family (beyond or within this run's noise: the larger spread of the two rows' rounds or windows, 10 % where unknown, 25 % at least on an overloaded machine).")
	fmt.Fprintln(w)
	for _, v := range vs {
		dir := "lower is better"
		if v.Higher {
			dir = "higher is better"
		}
		var ms []string
		for _, m := range v.Margins {
			verdict := "within noise"
			if m.Beyond {
				verdict = "beyond noise"
			}
			ms = append(ms, fmt.Sprintf("%s× better than %s (%s, ±%.0f %%)", strconv.FormatFloat(m.Factor, 'f', 2, 64), m.Model, verdict, m.Noise*100))
		}
		others := strings.Join(ms, "; ")
		if len(ms) == 0 {
			others = "no other model family can be measured here"
		}
		fmt.Fprintf(w, "- **%s** (%s; %s): **%s**, %s %s; %s\n", v.Group, v.Measure, dir, v.Winner, formatValue(v.Value), v.Unit, others)
	}
}

// overall is the run's answer in one line: which model family is best in
// how many groups, by how much (the winner's lead over the next-best
// family on the group's headline measure, "~" when within noise), and in
// which groups.
func overall(vs []Verdict) string {
	type tally struct {
		family string
		leads  []string
	}
	var fams []*tally
	judged := 0
	for _, v := range vs {
		if v.Backends || len(v.Margins) == 0 {
			continue
		}
		judged++
		next := v.Margins[0]
		for _, m := range v.Margins[1:] {
			if m.Factor < next.Factor {
				next = m
			}
		}
		lead := fmt.Sprintf("%s %s×", v.Group, strconv.FormatFloat(next.Factor, 'f', 2, 64))
		if !next.Beyond {
			lead += " ~"
		}
		f := family(v.Winner)
		i := slices.IndexFunc(fams, func(t *tally) bool { return t.family == f })
		if i < 0 {
			fams = append(fams, &tally{family: f})
			i = len(fams) - 1
		}
		fams[i].leads = append(fams[i].leads, lead)
	}
	if judged == 0 {
		return "Overall: no group of this run measured two model families, so there is no winner to name."
	}
	slices.SortStableFunc(fams, func(a, b *tally) int { return len(b.leads) - len(a.leads) })
	var parts []string
	for i, t := range fams {
		n := fmt.Sprintf("%d", len(t.leads))
		if i == 0 {
			n = fmt.Sprintf("%d of %d groups", len(t.leads), judged)
		}
		parts = append(parts, fmt.Sprintf("%s in %s (%s)", t.family, n, strings.Join(t.leads, ", ")))
	}
	return "Overall: best is " + strings.Join(parts, "; ") +
		" — × is the lead over the next-best model family on the group's headline measure (the verdict lines), ~ within this run's noise."
}

// floorLimit is the plain call's time beyond which a run's absolute
// figures are not to be trusted: about 1 ns on an idle machine of this
// class, 18 ns was seen under heavy load.
const floorLimit = 3.0

// overload returns a warning when the load average at the start exceeded
// the machine's cores, "" otherwise.
func overload(m machine) string {
	f := strings.Fields(m.LoadAvg)
	if len(f) == 0 || m.CPUs <= 0 {
		return ""
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil || load <= float64(m.CPUs) {
		return ""
	}
	return fmt.Sprintf("the load average was %s at the start, above the %d cores: other jobs shared the CPU, so the figures are inflated and move between runs; compare ratios within this run only, and rerun on a quieter machine for absolute figures", f[0], m.CPUs)
}

// warnings lists what makes the run's figures suspect.
func warnings(rep *report) []string {
	var ws []string
	if w := overload(rep.Machine); w != "" {
		ws = append(ws, w)
	}
	for _, r := range rep.Rows {
		if strings.HasPrefix(r.Model, "plain func call") && r.Value > floorLimit { // not iter.Pull's "floor of stackful"
			ws = append(ws, fmt.Sprintf("a plain function call took %s %s (about 1 ns on an idle machine, warn above %.0f): the CPU was starved or throttled during the micro benchmarks, and their absolute figures are inflated", formatValue(r.Value), r.Unit, floorLimit))
		}
	}
	retried := 0
	for _, r := range rep.Rows {
		if strings.Contains(r.Note, "RETRIED") {
			retried++
		}
	}
	if retried > 0 {
		ws = append(ws, fmt.Sprintf("%d rows include a window that failed once and ran again (their note says RETRIED)", retried))
	}
	return ws
}
