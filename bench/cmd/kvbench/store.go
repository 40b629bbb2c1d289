package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/storebench"
)

// storeSet is one dataset loaded into every engine.
type storeSet struct {
	name string
	kvs  []dataset.KV
	raw  int64 // raw cell bytes: keys, values and an 8-byte seq per cell
}

// storeGoroutines are the goroutine counts of the Get throughput passes.
var storeGoroutines = []int{1, 2, 4, 8}

func runStore(e *env) error {
	if e.cfg.engine == "tikv" {
		return runStoreTiKV(e)
	}
	sets, err := storeSets(e)
	if err != nil {
		return err
	}
	if len(sets) == 0 {
		fmt.Fprintln(e.stdout, "store: no dataset selected (-dataset lineitem, timeseries or ycsb)")
		return nil
	}
	o := storeOptions(e.cfg)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	engines := storeEngines(e.cfg)
	if len(engines) == 0 {
		fmt.Fprintln(e.stdout, "store: no engine selected")
		return nil
	}
	bar := report.StderrProgress(len(sets) * len(engines) * (1 + o.Rounds))
	var all [][]storebench.Result
	for _, s := range sets {
		tmp, err := e.tempDir()
		if err != nil {
			return err
		}
		data := filepath.Join(tmp, s.name+".cells")
		if err := storebench.WriteData(data, s.kvs); err != nil {
			return err
		}
		var rs []storebench.Result
		for _, eng := range engines {
			dir, err := e.tempDir()
			if err != nil {
				return err
			}
			so := o // at most one Get and one seek per cell: tiny data stays quick
			so.Gets, so.Seeks = min(o.Gets, len(s.kvs)), min(o.Seeks, len(s.kvs))
			so.ZipfGets = min(o.ZipfGets, 4*len(s.kvs))
			r := storebench.RunChild(exe, eng.Name, data, dir, so, func(n string) { bar.Step("store " + s.name + " " + n) }, os.Stderr)
			e.removeTemp(dir)
			if r.Err != nil {
				fmt.Fprintf(e.stdout, "store: FAILED CHECK, no numbers for it: %s on %s: %v\n", eng.Name, s.name, r.Err)
			}
			rs = append(rs, r)
		}
		e.removeTemp(tmp)
		all = append(all, rs)
	}
	bar.Done()
	fmt.Fprintln(e.stdout)
	for _, t := range []*report.Table{
		storeTable(sets, all, e.cfg.cache), storeLoadTable(sets, all), storeGetsTable(sets, all), storeGoals(sets, all),
	} {
		if err := e.emit(t); err != nil {
			return err
		}
	}
	return storePlots(e, sets, all)
}

// storeEngines are the engines -engines selects (default every local
// engine, and kvenc-set when -kvenc is given).
func storeEngines(c config) []storebench.Engine {
	var engines []storebench.Engine
	for _, eng := range append(storebench.Engines(), storebench.KvencSetEngine(c.kvenc)) {
		if slices.Contains(c.engines, eng.Name) || len(c.engines) == 0 && (eng.Name != storebench.KvencSetName || c.kvenc != "") {
			engines = append(engines, eng)
		}
	}
	return engines
}

// storeOptions sizes the read passes: per round 20,000 uniform Gets,
// 50,000 zipfian Gets per pass, 10,000 seeks and, per goroutine count, two
// passes of Gets of twice -benchtime each, at least 100 ms (the CPU
// accounting that tells a quiet pass counts in 10 ms ticks) and at most 1 s
// (with -quick 5,000 Gets, 5,000 zipfian Gets, 2,500 seeks and 100 ms
// passes; with an iteration count as -benchtime, 10 ms).
func storeOptions(c config) storebench.Options {
	o := storebench.Options{Cache: c.cache, Rounds: c.count, Gets: 20_000, ZipfGets: 50_000, Seeks: 10_000,
		Sweeps: 2, Goroutines: storeGoroutines, KvencSettings: c.kvenc, LoadProfile: c.cpuprofile}
	if c.quick {
		o.Gets, o.ZipfGets, o.Seeks = 5_000, 5_000, 2_500
	}
	o.Duration = 10 * time.Millisecond
	if d, err := time.ParseDuration(c.benchtime); err == nil {
		o.Duration = min(max(2*d, 100*time.Millisecond), time.Second)
	}
	return o
}

// storeSets builds the selected datasets: every lineitem row at -scale
// (the headline case, many times the cache), 600k time series cells and
// 300k YCSB-like records at the default scale (a quarter with -quick).
func storeSets(e *env) ([]storeSet, error) {
	n := int(e.cfg.scale * 6_000_000) // 600k cells at the default scale
	if e.cfg.quick {
		n /= 4
	}
	var sets []storeSet
	add := func(name string, kvs []dataset.KV, format string, args ...any) {
		s := storeSet{name: name, kvs: kvs, raw: rawBytes(kvs)}
		sets = append(sets, s)
		e.dataset("store "+name+": "+format+"; %.1f MB raw (keys, values, 8-byte seqs), %.1fx the %s cache", append(args,
			float64(s.raw)/1e6, float64(s.raw)/float64(e.cfg.cache), sizeString(e.cfg.cache))...)
	}
	if e.cfg.uses("lineitem") {
		set, err := e.lineitem()
		if err != nil {
			return nil, err
		}
		kvs := dataset.LineitemCells(set, len(set.Rows))
		add("lineitem", kvs, "%d rows, key orderkey|linenumber (12 B), value the other columns as text (%.0f B avg)", len(kvs), avgValue(kvs))
	}
	if e.cfg.uses("timeseries") {
		kvs := dataset.SeriesCells(max(n/3, 1))
		add("timeseries", kvs, "%d cells, key series|timestamp, 8-byte values", len(kvs))
	}
	if e.cfg.uses("ycsb") {
		kvs := dataset.YCSBCells(max(n/2, 1))
		add("ycsb", kvs, "%d records, 23-byte hashed keys, 100-byte random values", len(kvs))
	}
	return sets, nil
}

// rawBytes counts cells as blocks do: key, value and 8 bytes of seq.
func rawBytes(kvs []dataset.KV) int64 {
	var t int64
	for _, kv := range kvs {
		t += int64(len(kv.Key) + len(kv.Value) + 8)
	}
	return t
}

func avgValue(kvs []dataset.KV) float64 {
	t := 0
	for _, kv := range kvs {
		t += len(kv.Value)
	}
	return float64(t) / float64(max(len(kvs), 1))
}

// sizeString prints a byte count the way -cache takes it.
func sizeString(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n%u.mult == 0 {
			return fmt.Sprint(n/u.mult) + " " + u.suffix
		}
	}
	return fmt.Sprint(n) + " B"
}
