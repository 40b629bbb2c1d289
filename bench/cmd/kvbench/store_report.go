package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/storebench"
)

// storeMetric reads one number from a result (NaN if it failed or was not
// measured).
func storeMetric(r storebench.Result, f func(storebench.Result) float64) float64 {
	if r.Err != nil || r.Engine == "" { // failed, or not measured (-engines)
		return math.NaN()
	}
	return f(r)
}

// parallelOps is the Gets/s from storeGoroutines[i] goroutines.
func parallelOps(i int) func(storebench.Result) float64 {
	return nth(func(r storebench.Result) []float64 { return r.Parallel }, i)
}

// nth is element i of the slice f returns, or NaN when it is shorter.
func nth(f func(storebench.Result) []float64, i int) func(storebench.Result) float64 {
	return func(r storebench.Result) float64 {
		if v := f(r); i < len(v) {
			return v[i]
		}
		return math.NaN()
	}
}

func mb(n int64) float64 {
	if n <= 0 {
		return math.NaN()
	}
	return float64(n) / 1e6
}

var (
	diskMB     = func(r storebench.Result) float64 { return mb(r.DiskBytes) }
	coldScanNs = func(r storebench.Result) float64 { return r.ColdScan }
	warmScanNs = func(r storebench.Result) float64 { return r.WarmScan }
	backScanNs = func(r storebench.Result) float64 { return measured(r.ReverseScan) }
	getP50     = func(r storebench.Result) float64 { return r.GetP50 / 1e3 }
	getP99     = func(r storebench.Result) float64 { return r.GetP99 / 1e3 }
	seekUs     = func(r storebench.Result) float64 { return r.SeekNext / 1e3 }
	loadSec    = func(r storebench.Result) float64 { return r.Load().Seconds() }
	loadCPUSec = func(r storebench.Result) float64 { return measured(r.LoadCPU.Seconds()) }
	zipfOps    = func(r storebench.Result) float64 { return r.Zipf }
	zipfAfter  = func(r storebench.Result) float64 { return r.ZipfAfterScan }
	peakRSSMB  = func(r storebench.Result) float64 { return mb(r.PeakRSS) }
	peakAnonMB = func(r storebench.Result) float64 { return mb(r.PeakAnon) }
	get1, get4 = parallelOps(0), parallelOps(2)
	// others4 is the CPUs other processes kept busy during the 4 g passes.
	others4 = nth(func(r storebench.Result) []float64 { return r.ParallelOthers }, 2)
)

// measured is v, or NaN when v is 0 (not measured).
func measured(v float64) float64 {
	if v == 0 {
		return math.NaN()
	}
	return v
}

// byEngine indexes one dataset's results by engine name.
func byEngine(rs []storebench.Result) map[string]storebench.Result {
	m := map[string]storebench.Result{}
	for _, r := range rs {
		m[r.Engine] = r
	}
	return m
}

// storeTable is the headline table.
func storeTable(sets []storeSet, all [][]storebench.Result, cache int64) *report.Table {
	t := report.NewTable("store", fmt.Sprintf("store: kvenc (package kv, defaults) vs raw Badger v4 (one key per cell) vs Pebble v2, every engine with a %s block cache, after load + flush + compaction", sizeString(cache)),
		"dataset", "engine", "cells", "load s", "load CPU s", "disk MB", "kvenc/this", "cold scan ns/cell", "warm scan ns/cell", "kvenc/this",
		"reverse scan ns/cell", "kvenc/this", "get p50 us", "get p99 us", "kvenc/this", "seek+10 us", "kvenc/this", "peak RSS MB", "peak anon MB")
	for i, rs := range all {
		k := byEngine(rs)[storebench.KvencName]
		for _, r := range rs {
			ratio := func(f func(storebench.Result) float64) string {
				return report.Ratio(storeMetric(k, f), storeMetric(r, f))
			}
			t.Add(sets[i].name, r.Engine, report.Int(int64(r.Cells)),
				report.Float(storeMetric(r, loadSec), 2), report.Float(storeMetric(r, loadCPUSec), 2),
				report.Float(storeMetric(r, diskMB), 1), ratio(diskMB),
				report.NS(storeMetric(r, coldScanNs)), report.NS(storeMetric(r, warmScanNs)), ratio(warmScanNs),
				report.NS(storeMetric(r, backScanNs)), ratio(backScanNs),
				report.Float(storeMetric(r, getP50), 2), report.Float(storeMetric(r, getP99), 2), ratio(getP50),
				report.Float(storeMetric(r, seekUs), 2), ratio(seekUs),
				report.Float(storeMetric(r, peakRSSMB), 0), report.Float(storeMetric(r, peakAnonMB), 0))
		}
	}
	t.Note("kvenc/this below 1: kvenc smaller or faster. badger: Badger's defaults (Snappy, 4 KiB blocks); badger-none: no compression; badger-zstd: ZSTD level 1; pebble: Pebble's defaults (Snappy).")
	t.Note("Each engine runs in a child process of its own, one after another: load, close, then -count rounds of reopen and reads (OS page cache left warm).")
	t.Note("cold scan: the first full scan after each Open; warm scan: the scans after it; reverse scan: a warm full scan backward (Last, Prev; Badger: a Reverse iterator). Get: uniform random existing keys over the whole store, latencies pooled over rounds; scan and seek+10 are medians of rounds.")
	t.Note("peak RSS: the child's peak resident set (VmHWM) from just before the engine opens to the end; it includes what the child held before (the cells it checks reads against%s) and the mmapped table pages it touched. peak anon: the largest anonymous resident set (RssAnon: heap and stacks, without mmapped files' pages) sampled every 50 ms meanwhile.", baseRSS(sets, all))
	t.Note("disk MB: every file in the engine's directory after its last Close, allocated blocks.")
	return t
}

// baseRSS lists what each dataset's children held before the engine
// opened (the median over engines).
func baseRSS(sets []storeSet, all [][]storebench.Result) string {
	var b strings.Builder
	for i, rs := range all {
		var v []float64
		for _, r := range rs {
			if r.Err == nil && r.BaseRSS > 0 {
				v = append(v, mb(r.BaseRSS))
			}
		}
		if len(v) > 0 {
			fmt.Fprintf(&b, "; %s %.0f MB", sets[i].name, measure.MedianOf(v))
		}
	}
	return b.String()
}

// storeLoadTable splits the load into its phases.
func storeLoadTable(sets []storeSet, all [][]storebench.Result) *report.Table {
	t := report.NewTable("store_load", "store load: write batches, flush and full compaction, seconds",
		"dataset", "engine", "write s", "flush s", "compact s", "load s", "kvenc/this", "CPU s", "CPU/wall", "kvenc/this CPU", "raw MB/s", "write amp")
	for i, rs := range all {
		k := byEngine(rs)[storebench.KvencName]
		for _, r := range rs {
			sec := func(f func(storebench.Result) float64) string { return report.Float(storeMetric(r, f), 2) }
			t.Add(sets[i].name, r.Engine,
				sec(func(r storebench.Result) float64 { return r.Write.Seconds() }),
				sec(func(r storebench.Result) float64 { return r.Flush.Seconds() }),
				sec(func(r storebench.Result) float64 { return r.Compact.Seconds() }),
				sec(loadSec), report.Ratio(storeMetric(k, loadSec), storeMetric(r, loadSec)),
				sec(loadCPUSec), report.Float(storeMetric(r, loadCPUSec)/storeMetric(r, loadSec), 2),
				report.Ratio(storeMetric(k, loadCPUSec), storeMetric(r, loadCPUSec)),
				report.Float(float64(sets[i].raw)/1e6/storeMetric(r, loadSec), 1),
				report.Float(storeMetric(r, func(r storebench.Result) float64 { return float64(r.Written) / float64(sets[i].raw) }), 2))
		}
	}
	t.Note("write: batches of 1000 cells (Badger: one WriteBatch); flush: the engine's flush plus its Close (Badger writes its memtable at Close); compact: kvenc Compact, Badger Flatten(1), Pebble Compact over every key.")
	t.Note("CPU s: the processor time (user + system, getrusage) of the engine's process during the load, its background goroutines included; CPU/wall above 1: the load used more than one core.")
	t.Note("write amp: bytes the engine wrote during the load / raw bytes, as the engine counts them: Badger its memtable writes, value log and compaction output, not the level 0 tables its memtable flushes write; kvenc its WAL files and what its Badger writes (counted as Badger's); Pebble its WAL, flushes and compactions.")
	return t
}

// storeGetsTable reports Get throughput: zipfian around a scan, and
// uniform from several goroutines.
func storeGetsTable(sets []storeSet, all [][]storebench.Result) *report.Table {
	cols := []string{"dataset", "engine", "zipf kops/s", "after scan kops/s", "after/before", "kvenc/this ops"}
	for _, g := range storeGoroutines {
		cols = append(cols, fmt.Sprintf("%d g kops/s", g))
	}
	cols = append(cols, "4g/1g", "kvenc/this ops 4g", "others' CPUs 4g")
	t := report.NewTable("store_gets", fmt.Sprintf("store Get throughput: zipfian (s = %g, hot set spread over the key space) before and after a full scan; uniform random from 1 to 8 goroutines", storebench.ZipfSkew), cols...)
	kops := func(v float64) string { return report.Float(v/1e3, 1) }
	for i, rs := range all {
		k := byEngine(rs)[storebench.KvencName]
		for _, r := range rs {
			row := []string{sets[i].name, r.Engine,
				kops(storeMetric(r, zipfOps)), kops(storeMetric(r, zipfAfter)),
				report.Ratio(storeMetric(r, zipfAfter), storeMetric(r, zipfOps)),
				report.Ratio(storeMetric(k, zipfOps), storeMetric(r, zipfOps))}
			for j := range storeGoroutines {
				row = append(row, kops(storeMetric(r, parallelOps(j))))
			}
			row = append(row, report.Ratio(storeMetric(r, get4), storeMetric(r, get1)),
				report.Ratio(storeMetric(k, get4), storeMetric(r, get4)), report.Float(storeMetric(r, others4), 2))
			t.Add(row...)
		}
	}
	t.Note("kvenc/this ops above 1: kvenc faster. zipf: a warm-up pass fills the cache, then a timed pass; after scan: a timed pass right after a full scan. Medians of rounds.")
	t.Note("n g: uniform random Gets from n goroutines at once (GOMAXPROCS as in the header), in passes of a fixed time: per round a warm-up pass, then two passes per count in alternating order; total Gets/s of the passes during which other processes kept fewer than %.2f CPUs busy (of all passes if none was).", storebench.OthersLimit)
	t.Note("others' CPUs 4g: the CPUs other processes kept busy during the 4 g passes counted, on average; well above 0, the machine was shared while the engine ran and its n g numbers may be low.")
	return t
}

// goalCells are a goal row's ratio v, its limit and whether it is met:
// v at least the limit when atLeast, at most it otherwise ("-" when v was
// not measured). Three decimals: a ratio at the limit shows which side it
// is on.
func goalCells(v, limit float64, atLeast bool) []string {
	met := yesNo(v <= limit)
	if atLeast {
		met = yesNo(v >= limit)
	}
	if math.IsNaN(v) {
		met = "-"
	}
	return []string{report.Float(v, 3), report.Float(limit, 2), met}
}

// storeGoals checks the store goals on every dataset: ratios kvenc / peer
// (or kvenc / kvenc for the goroutine scaling).
func storeGoals(sets []storeSet, all [][]storebench.Result) *report.Table {
	t := report.NewTable("store_goals", "store goals: kvenc against its peers with equal block caches", "dataset", "goal", "ratio", "limit", "met")
	for i, rs := range all {
		by := byEngine(rs)
		k := by[storebench.KvencName]
		add := func(goal string, v, limit float64, atLeast bool) {
			t.Add(append([]string{sets[i].name, goal}, goalCells(v, limit, atLeast)...)...)
		}
		vs := func(peer string, kf, pf func(storebench.Result) float64) float64 {
			return storeMetric(k, kf) / storeMetric(by[peer], pf)
		}
		b, bn, bz, p, pz := storebench.BadgerName, storebench.BadgerNoneName, storebench.BadgerZstdName, storebench.PebbleName, storebench.PebbleZstdName
		add("get p50 <= 1.0x badger", vs(b, getP50, getP50), 1, false)
		add("get p50 <= 1.5x badger-none", vs(bn, getP50, getP50), 1.5, false)
		add("get p50 < badger-zstd", vs(bz, getP50, getP50), 1, false)
		add("get p50 < pebble-zstd", vs(pz, getP50, getP50), 1, false)
		add("get p99 <= 1.5x badger", vs(b, getP99, getP99), 1.5, false)
		add("zipf gets/s >= 1.0x badger", vs(b, zipfOps, zipfOps), 1, true)
		add("zipf gets/s after a scan >= 0.9x badger's", vs(b, zipfAfter, zipfOps), 0.9, true)
		add("seek+10 <= 1.0x pebble", vs(p, seekUs, seekUs), 1, false)
		add("cold scan >= 4x faster than badger", vs(b, coldScanNs, coldScanNs), 0.25, false)
		add("warm scan >= 4x faster than badger", vs(b, warmScanNs, warmScanNs), 0.25, false)
		add("reverse scan <= 1.5x kvenc's warm scan", storeMetric(k, backScanNs)/storeMetric(k, warmScanNs), 1.5, false)
		add("load <= 1.0x badger", vs(b, loadSec, loadSec), 1, false)
		add("load <= 3x pebble", vs(p, loadSec, loadSec), 3, false)
		add("disk <= 0.35x badger-none", vs(bn, diskMB, diskMB), 0.35, false)
		add("disk <= 0.8x pebble-zstd", vs(pz, diskMB, diskMB), 0.8, false)
		add("4-goroutine gets/s >= 1.6x kvenc's 1-goroutine", storeMetric(k, get4)/storeMetric(k, get1), 1.6, true)
	}
	t.Note("ratio: kvenc / peer for times and sizes (met when at most the limit), for Gets/s (met when at least the limit); the zipf after-scan goal divides kvenc's after-scan rate by Badger's warm one; the reverse scan goal divides kvenc's reverse scan by its own warm scan.")
	return t
}

func storePlots(e *env, sets []storeSet, all [][]storebench.Result) error {
	size := report.Bars{Title: "Bytes on disk after load and compaction", YLabel: "MB"}
	scan := report.Bars{Title: "Full scan, warm", YLabel: "ns/cell"}
	for _, s := range sets {
		size.Categories = append(size.Categories, s.name)
		scan.Categories = append(scan.Categories, s.name)
	}
	for j, r := range all[0] {
		size.Series = append(size.Series, r.Engine)
		scan.Series = append(scan.Series, r.Engine)
		var sv, cv []float64
		for i := range sets {
			sv = append(sv, storeMetric(all[i][j], diskMB))
			cv = append(cv, storeMetric(all[i][j], warmScanNs))
		}
		size.Values = append(size.Values, sv)
		scan.Values = append(scan.Values, cv)
	}
	if err := report.SaveBars(e.outPath("store_size.png"), size); err != nil {
		return err
	}
	return report.SaveBars(e.outPath("store_scan.png"), scan)
}
