package main

import (
	"fmt"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/storebench"
)

// storeSet is one dataset loaded into every engine.
type storeSet struct {
	name string
	kvs  []dataset.KV
}

func runStore(e *env) error {
	sets, err := storeSets(e)
	if err != nil {
		return err
	}
	if len(sets) == 0 {
		fmt.Fprintln(e.stdout, "store: no dataset selected (-dataset lineitem, timeseries or ycsb)")
		return nil
	}
	o := storebench.Options{Rounds: e.cfg.count, Gets: 20_000, Seeks: 10_000}
	if e.cfg.quick {
		o.Gets, o.Seeks = 5_000, 2_000
	}
	engines := storebench.Engines()
	bar := report.StderrProgress(len(sets) * len(engines) * (1 + o.Rounds))
	var all [][]storebench.Result
	for _, s := range sets {
		var rs []storebench.Result
		for _, eng := range engines {
			dir, err := e.tempDir()
			if err != nil {
				return err
			}
			so := o // at most one Get and one seek per cell: tiny data stays quick
			so.Gets, so.Seeks = min(o.Gets, len(s.kvs)), min(o.Seeks, len(s.kvs))
			r := storebench.Measure(eng, dir, s.kvs, so, func(n string) { bar.Step("store " + s.name + " " + n) })
			e.removeTemp(dir)
			if r.Err != nil {
				fmt.Fprintf(e.stdout, "store: FAILED CHECK, no numbers for it: %s on %s: %v\n", eng.Name, s.name, r.Err)
			}
			rs = append(rs, r)
		}
		all = append(all, rs)
	}
	bar.Done()
	fmt.Fprintln(e.stdout)
	if err := e.emit(storeTable(sets, all)); err != nil {
		return err
	}
	if err := e.emit(storeGoals(sets, all)); err != nil {
		return err
	}
	return storePlots(e, sets, all)
}

// storeSets builds the selected datasets: every lineitem row at -scale,
// 600k time series cells and 300k YCSB-like records at the default scale.
// -quick uses a quarter of the cells.
func storeSets(e *env) ([]storeSet, error) {
	n := int(e.cfg.scale * 6_000_000) // 600k cells at the default scale
	if e.cfg.quick {
		n /= 4
	}
	var sets []storeSet
	if e.cfg.uses("lineitem") {
		set, err := e.lineitem()
		if err != nil {
			return nil, err
		}
		rows := len(set.Rows)
		if e.cfg.quick {
			rows /= 4
		}
		kvs := dataset.LineitemCells(set, max(rows, 1))
		sets = append(sets, storeSet{"lineitem", kvs})
		e.dataset("store lineitem: %d rows, key orderkey|linenumber (12 B), value the other columns as text (%.0f B avg)", len(kvs), avgValue(kvs))
	}
	if e.cfg.uses("timeseries") {
		kvs := dataset.SeriesCells(max(n/3, 1))
		sets = append(sets, storeSet{"timeseries", kvs})
		e.dataset("store timeseries: %d cells, key series|timestamp, 8-byte values", len(kvs))
	}
	if e.cfg.uses("ycsb") {
		kvs := dataset.YCSBCells(max(n/2, 1))
		sets = append(sets, storeSet{"ycsb", kvs})
		e.dataset("store ycsb: %d records, 23-byte hashed keys, 100-byte random values", len(kvs))
	}
	return sets, nil
}

func avgValue(kvs []dataset.KV) float64 {
	t := 0
	for _, kv := range kvs {
		t += len(kv.Value)
	}
	return float64(t) / float64(max(len(kvs), 1))
}
