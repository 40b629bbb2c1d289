package main

import (
	"fmt"
	"math"
	"time"

	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/ycsbbench"
)

func runYCSB(e *env) error {
	if !e.cfg.uses("ycsb") {
		fmt.Fprintln(e.stdout, "ycsb: dataset not selected (-dataset ycsb)")
		return nil
	}
	// One client thread: go-ycsb's workload shares its key and operation
	// generators between threads and writes their last value unsynchronised
	// (a data race under -race), so more threads are not measured.
	o := ycsbbench.Options{Records: int(e.cfg.scale * 1_000_000), Ops: int(e.cfg.scale * 1_000_000), Threads: 1}
	if e.cfg.quick {
		o.Records, o.Ops = o.Records/5, o.Ops/5
	}
	o.Records, o.Ops = max(o.Records, 100), max(o.Ops, 100)
	e.dataset("ycsb: %d records of 10 fields x 100 bytes, %d operations per workload (E: %d scans), %d client thread", o.Records, o.Ops, o.Ops/10, o.Threads)
	engines := ycsbbench.Engines()
	bar := report.StderrProgress(len(engines) * (1 + len(ycsbbench.Workloads)))
	results := map[string][]ycsbbench.Result{}
	for _, eng := range engines {
		dir, err := e.tempDir()
		if err != nil {
			return err
		}
		rs, err := ycsbbench.Run(eng, dir, o, func(n string) { bar.Step("ycsb " + n) })
		e.removeTemp(dir)
		if err != nil {
			fmt.Fprintf(e.stdout, "ycsb: FAILED CHECK, no numbers for %s: %v\n", eng.Name, err)
			continue
		}
		results[eng.Name] = rs
	}
	bar.Done()
	fmt.Fprintln(e.stdout)
	t := report.NewTable("ycsb", "ycsb: go-ycsb core workloads (zipfian; D latest; E scans up to 100), kvenc vs raw Badger v4",
		"workload", "engine", "ops", "ops/s", "kvenc/this ops/s", "p50 us", "p99 us", "kvenc/this p50", "not found")
	phases := append([]string{"load"}, workloadNames()...)
	kv := results[engines[0].Name]
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	for i, ph := range phases {
		for _, eng := range engines {
			rs, ok := results[eng.Name]
			if !ok {
				continue
			}
			r := rs[i]
			ratioOps, ratioP50 := "-", "-"
			if kv != nil {
				ratioOps = report.Ratio(kv[i].OpsPerSec, r.OpsPerSec)
				ratioP50 = report.Ratio(us(kv[i].P50), us(r.P50))
			}
			t.Add(ph, eng.Name, report.Int(int64(r.Ops)), report.Float(r.OpsPerSec, 0), ratioOps,
				report.Float(us(r.P50), 1), report.Float(us(r.P99), 1), ratioP50, report.Int(int64(r.NotFound)))
		}
	}
	t.Note("kvenc/this ops/s above 1: kvenc has more throughput; p50 below 1: kvenc is faster.")
	t.Note("not found: ops on records that do not exist (go-ycsb draws zipfian keys up to one past the last record), counted as upstream YCSB's READ-FAILED.")
	if err := e.emit(t); err != nil {
		return err
	}
	return ycsbPlot(e, engines, phases, results)
}

func workloadNames() []string {
	var out []string
	for _, w := range ycsbbench.Workloads {
		out = append(out, w.Name)
	}
	return out
}

func ycsbPlot(e *env, engines []ycsbbench.Engine, phases []string, results map[string][]ycsbbench.Result) error {
	b := report.Bars{Title: "YCSB throughput", YLabel: "ops/s", Categories: phases}
	for _, eng := range engines {
		b.Series = append(b.Series, eng.Name)
		vals := make([]float64, len(phases))
		for i := range vals {
			vals[i] = math.NaN()
			if rs, ok := results[eng.Name]; ok {
				vals[i] = rs[i].OpsPerSec
			}
		}
		b.Values = append(b.Values, vals)
	}
	return report.SaveBars(e.outPath("ycsb_ops.png"), b)
}
