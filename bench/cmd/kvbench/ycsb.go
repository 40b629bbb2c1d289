package main

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/ycsbbench"
)

// ycsbGoroutines are the client goroutine counts of every YCSB phase and
// of the Puts passes.
var ycsbGoroutines = []int{1, 4, 16}

// ycsbOptions sizes the YCSB run: scale x 1,000,000 records and operations
// per workload (a fifth with -quick), a tenth as many records in the
// durable load, every engine with -cache.
func ycsbOptions(c config) ycsbbench.Options {
	o := ycsbbench.Options{Records: int(c.scale * 1_000_000), Ops: int(c.scale * 1_000_000), Goroutines: ycsbGoroutines,
		Config: ycsbbench.Config{Cache: c.cache}}
	if c.quick {
		o.Records, o.Ops = o.Records/5, o.Ops/5
	}
	o.Records, o.Ops = max(o.Records, 100), max(o.Ops, 100)
	o.SyncRecords = max(o.Records/10, 100)
	return o
}

// putsDuration is one pass of Puts: 20 times -benchtime, from 100 ms to
// 2 s (10 ms with an iteration count as -benchtime).
func putsDuration(c config) time.Duration {
	if d, err := time.ParseDuration(c.benchtime); err == nil {
		return min(max(20*d, 100*time.Millisecond), 2*time.Second)
	}
	return 10 * time.Millisecond
}

// ycsbRun is what runYCSB measured of one engine.
type ycsbRun struct {
	results []ycsbbench.Result
	puts    []ycsbbench.PutsResult
}

func runYCSB(e *env) error {
	if !e.cfg.uses("ycsb") {
		fmt.Fprintln(e.stdout, "ycsb: dataset not selected (-dataset ycsb)")
		return nil
	}
	o, d := ycsbOptions(e.cfg), putsDuration(e.cfg)
	e.dataset("ycsb: %d records of 10 fields x 100 bytes, %d operations per workload (E: %d scans), %d records in the durable load, from %v client goroutines",
		o.Records, o.Ops, max(o.Ops/10, 1), o.SyncRecords, o.Goroutines)
	engines := ycsbbench.Engines()
	g := len(o.Goroutines)
	bar := report.StderrProgress(len(engines) * g * (4 + len(ycsbbench.Workloads)))
	// Engines take turns at each goroutine count, so that a change in the
	// machine's load falls on all of them alike.
	runs := map[string]*ycsbRun{}
	failed := map[string]error{}
	for _, eng := range engines {
		runs[eng.Name] = &ycsbRun{}
	}
	for _, g := range o.Goroutines {
		og := o
		og.Goroutines = []int{g}
		for _, eng := range engines {
			if failed[eng.Name] != nil {
				continue
			}
			r := runs[eng.Name]
			failed[eng.Name] = func() error {
				dir, err := e.tempDir()
				if err != nil {
					return err
				}
				defer e.removeTemp(dir)
				rs, err := ycsbbench.Run(eng, dir, og, func(n string) { bar.Step("ycsb " + n) })
				r.results = append(r.results, rs...)
				for _, sync := range []bool{false, true} {
					if err != nil {
						break
					}
					c := o.Config
					c.Sync = sync
					var ps []ycsbbench.PutsResult
					ps, err = ycsbbench.Puts(eng, dir, c, og.Goroutines, d)
					r.puts = append(r.puts, ps...)
					bar.Step(fmt.Sprintf("ycsb %s puts %dg", eng.Name, g))
				}
				return err
			}()
		}
	}
	ok := map[string]ycsbRun{}
	for _, eng := range engines {
		if err := failed[eng.Name]; err != nil {
			fmt.Fprintf(e.stdout, "ycsb: FAILED CHECK, no numbers for %s: %v\n", eng.Name, err)
			continue
		}
		ok[eng.Name] = *runs[eng.Name]
	}
	bar.Done()
	fmt.Fprintln(e.stdout)
	for _, t := range []*report.Table{
		ycsbTable(e.cfg, engines, ok), ycsbOpsTable(engines, ok), ycsbPutsTable(engines, ok, d), ycsbGoals(ok),
	} {
		if err := e.emit(t); err != nil {
			return err
		}
	}
	return ycsbPlot(e, engines, ok)
}

// ycsbPhases are the phases in report order.
func ycsbPhases() []string {
	out := []string{ycsbbench.LoadPhase}
	for _, w := range ycsbbench.Workloads {
		out = append(out, w.Name)
	}
	return append(out, ycsbbench.SyncLoadPhase)
}

// find returns an engine's result of phase from g goroutines.
func (r ycsbRun) find(phase string, g int) (ycsbbench.Result, bool) {
	i := slices.IndexFunc(r.results, func(x ycsbbench.Result) bool { return x.Workload == phase && x.Goroutines == g })
	if i < 0 {
		return ycsbbench.Result{}, false
	}
	return r.results[i], true
}

// metric is f of an engine's result, NaN if it has none.
func (r ycsbRun) metric(phase string, g int, f func(ycsbbench.Result) float64) float64 {
	x, ok := r.find(phase, g)
	if !ok {
		return math.NaN()
	}
	return f(x)
}

func usOf(d time.Duration) float64 { return float64(d) / 1e3 }

var (
	ycsbOps = func(r ycsbbench.Result) float64 { return r.OpsPerSec }
	ycsbP99 = func(r ycsbbench.Result) float64 { return usOf(r.P99) }
)

func ycsbTable(c config, engines []ycsbbench.Engine, runs map[string]ycsbRun) *report.Table {
	t := report.NewTable("ycsb", fmt.Sprintf("ycsb: go-ycsb core workloads (zipfian; E scans up to 100) from 1, 4 and 16 client goroutines, kvenc vs raw Badger v4 vs Pebble v2, every engine with a %s block cache", sizeString(c.cache)),
		"workload", "goroutines", "engine", "ops", "ops/s", "kvenc/this ops/s", "p50 us", "p99 us", "kvenc/this p99", "not found")
	for _, ph := range ycsbPhases() {
		for _, g := range ycsbGoroutines {
			for _, eng := range engines {
				r, ok := runs[eng.Name].find(ph, g)
				if !ok {
					continue
				}
				kv := runs[ycsbbench.KvencFor(eng.Name)]
				t.Add(ph, report.Int(int64(g)), eng.Name, report.Int(int64(r.Ops)), report.Float(r.OpsPerSec, 0),
					report.Ratio(kv.metric(ph, g, ycsbOps), r.OpsPerSec),
					report.Float(usOf(r.P50), 1), report.Float(usOf(r.P99), 1),
					report.Ratio(kv.metric(ph, g, ycsbP99), usOf(r.P99)), report.Int(int64(r.NotFound)))
			}
		}
	}
	t.Note("kvenc/this: kvenc at this engine's durability over this engine: kvenc-buffered (kv.Options.WALBuffered: a write returns once its WAL record is queued in memory, a crash of the process may lose the last ones) over Pebble (commits with Sync false: the record is in the log writer's buffer), kvenc (a write returns once its WAL record is written: it survives a crash of the process) over Badger (a write is in its memory-mapped memtable file: it survives one too); a kvenc row compares with itself or kvenc-buffered with kvenc.")
	t.Note("kvenc/this ops/s above 1: kvenc has more throughput; p99 below 1: kvenc's slowest 1%% are faster. Latency of one operation as the client sees it (go-ycsb's key and value generation included, the same for every engine).")
	t.Note("Each goroutine count loads a fresh store, then runs the workloads in order on it. load sync: a fresh store with every insert durable before it returns (kvenc SyncWrites, kvenc-buffered too, Badger SyncWrites, Pebble commits with Sync); everything else without.")
	t.Note("Every client goroutine has a go-ycsb workload and generators of its own (go-ycsb's are not safe to share): a load splits the keys between clients as upstream YCSB splits them between client processes; E's inserts take distinct keys per client.")
	t.Note("not found: ops on records that do not exist (go-ycsb draws zipfian keys up to one past the last record), counted as upstream YCSB's READ-FAILED.")
	return t
}

// ycsbOpsTable gives the latency of each kind of operation, engines side
// by side.
func ycsbOpsTable(engines []ycsbbench.Engine, runs map[string]ycsbRun) *report.Table {
	cols := []string{"workload", "op", "goroutines"}
	for _, eng := range engines {
		cols = append(cols, eng.Name+" p50 us", eng.Name+" p99 us")
	}
	cols = append(cols, "kvenc/badger p99", "kvenc-buffered/pebble p99")
	t := report.NewTable("ycsb_ops", "ycsb latency per operation kind, microseconds", cols...)
	for _, ph := range ycsbPhases() {
		for _, g := range ycsbGoroutines {
			for op := range ycsbbench.OpReadModifyWrite + 1 {
				row := []string{ph, op.String(), report.Int(int64(g))}
				seen, p99s := false, map[string]float64{}
				for _, eng := range engines {
					p50, p99 := math.NaN(), math.NaN()
					if r, ok := runs[eng.Name].find(ph, g); ok {
						if i := slices.IndexFunc(r.ByOp, func(x ycsbbench.OpResult) bool { return x.Op == op }); i >= 0 {
							p50, p99, seen = usOf(r.ByOp[i].P50), usOf(r.ByOp[i].P99), true
						}
					}
					p99s[eng.Name] = p99
					row = append(row, report.Float(p50, 1), report.Float(p99, 1))
				}
				if !seen {
					continue
				}
				for _, peer := range []string{ycsbbench.BadgerName, ycsbbench.PebbleName} {
					row = append(row, report.Ratio(p99s[ycsbbench.KvencFor(peer)], p99s[peer]))
				}
				t.Add(row...)
			}
		}
	}
	t.Note("read-modify-write (F): a read, then an update of the record. An update reads the record, merges the new field into it and writes it back, as go-ycsb's own Badger and Pebble bindings do.")
	t.Note("kvenc/badger p99, kvenc-buffered/pebble p99: kvenc's p99 over the peer's at the same durability (see the ycsb table); below 1 kvenc is faster.")
	return t
}

// ycsbPutsTable gives the single-cell Puts/s, durable and not.
func ycsbPutsTable(engines []ycsbbench.Engine, runs map[string]ycsbRun, d time.Duration) *report.Table {
	cols := []string{"engine", "durability"}
	for _, g := range ycsbGoroutines {
		cols = append(cols, fmt.Sprintf("%d g puts/s", g))
	}
	last := ycsbGoroutines[len(ycsbGoroutines)-1]
	cols = append(cols, fmt.Sprintf("%dg/1g", last), fmt.Sprintf("kvenc/this %d g", last), fmt.Sprintf("puts per WAL write %d g", last))
	t := report.NewTable("ycsb_puts", fmt.Sprintf("single-cell Puts (random %d-byte keys, %d-byte values) from 1, 4 and 16 goroutines, %s per pass", ycsbbench.PutKeySize, ycsbbench.PutValueSize, d),
		cols...)
	for _, sync := range []bool{false, true} {
		for _, eng := range engines {
			row := []string{eng.Name, durability(sync)}
			for _, g := range ycsbGoroutines {
				row = append(row, report.Float(putsRate(runs[eng.Name], sync, g), 0))
			}
			perWrite := math.NaN()
			if p, ok := runs[eng.Name].putsAt(sync, last); ok && p.WALWrites > 0 {
				perWrite = float64(p.Puts) / float64(p.WALWrites)
			}
			row = append(row, report.Ratio(putsRate(runs[eng.Name], sync, last), putsRate(runs[eng.Name], sync, 1)),
				report.Ratio(putsRate(runs[ycsbbench.KvencFor(eng.Name)], sync, last), putsRate(runs[eng.Name], sync, last)),
				report.Float(perWrite, 1))
			t.Add(row...)
		}
	}
	t.Note("sync: every Put durable before it returns (kvenc SyncWrites, kvenc-buffered too, Badger SyncWrites, Pebble commits with Sync); none: without (kvenc-buffered: WALBuffered). kvenc: each Put is an Apply of a one-cell batch. Each pass writes into a fresh store.")
	t.Note("%dg/1g: the Puts/s of %d goroutines over one goroutine's; kvenc/this above 1: kvenc (kvenc-buffered against Pebble without sync, as in the ycsb table) has more throughput. puts per WAL write: kvenc's Puts over its WAL file writes (each one fsync with sync), the average group commit.", last, last)
	return t
}

func durability(sync bool) string {
	if sync {
		return "sync"
	}
	return "none"
}

// putsAt is an engine's Puts pass from g goroutines.
func (r ycsbRun) putsAt(sync bool, g int) (ycsbbench.PutsResult, bool) {
	for _, p := range r.puts {
		if p.Sync == sync && p.Goroutines == g {
			return p, true
		}
	}
	return ycsbbench.PutsResult{}, false
}

// putsRate is an engine's Puts/s from g goroutines, NaN if not measured.
func putsRate(r ycsbRun, sync bool, g int) float64 {
	if p, ok := r.putsAt(sync, g); ok {
		return p.OpsPerSec
	}
	return math.NaN()
}

// ycsbGoals checks kvenc's YCSB goals against its peers.
func ycsbGoals(runs map[string]ycsbRun) *report.Table {
	t := report.NewTable("ycsb_goals", "ycsb goals: kvenc against its peers, same run", "goal", "ratio", "limit", "met")
	add := func(goal string, v, limit float64, atLeast bool) {
		t.Add(append([]string{goal}, goalCells(v, limit, atLeast)...)...)
	}
	kv := runs[ycsbbench.KvencName]
	peers := []string{ycsbbench.BadgerName, ycsbbench.PebbleName}
	for _, ph := range []string{ycsbbench.LoadPhase, "A", "B", "E", "F"} {
		limit := 1.0
		if ph == "E" {
			limit = 2
		}
		for _, g := range []int{4, 16} {
			for _, p := range peers {
				k := ycsbbench.KvencFor(p)
				add(fmt.Sprintf("%s %d g ops/s >= %gx %s (%s)", ph, g, limit, p, k), runs[k].metric(ph, g, ycsbOps)/runs[p].metric(ph, g, ycsbOps), limit, true)
			}
			for _, p := range peers {
				k := ycsbbench.KvencFor(p)
				add(fmt.Sprintf("%s %d g p99 <= 1.5x %s's (%s)", ph, g, p, k), runs[k].metric(ph, g, ycsbP99)/runs[p].metric(ph, g, ycsbP99), 1.5, false)
			}
		}
	}
	add("durable Puts 16 g >= 5x 1 g", putsRate(kv, true, 16)/putsRate(kv, true, 1), 5, true)
	t.Note("ratio: kvenc / peer for ops/s (met when at least the limit) and p99 (met when at most the limit), each peer against kvenc at its durability (in parentheses): Badger against kvenc (an acknowledged write survives a crash of the process in both), Pebble (Sync false) against kvenc-buffered (the last acknowledged writes may be lost in both); the durable Puts goal divides kvenc's Puts/s from 16 goroutines by its own from one.")
	return t
}

func ycsbPlot(e *env, engines []ycsbbench.Engine, runs map[string]ycsbRun) error {
	b := report.Bars{Title: "YCSB throughput", YLabel: "ops/s"}
	for _, ph := range ycsbPhases() {
		for _, g := range ycsbGoroutines {
			b.Categories = append(b.Categories, fmt.Sprintf("%s %dg", ph, g))
		}
	}
	for _, eng := range engines {
		b.Series = append(b.Series, eng.Name)
		var vals []float64
		for _, ph := range ycsbPhases() {
			for _, g := range ycsbGoroutines {
				vals = append(vals, runs[eng.Name].metric(ph, g, ycsbOps))
			}
		}
		b.Values = append(b.Values, vals)
	}
	return report.SaveBars(e.outPath("ycsb_ops.png"), b)
}
