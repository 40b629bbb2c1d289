package main

import (
	"context"
	"fmt"
	"time"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/tikvbench"
)

// tikvQuickCells bounds the lineitem cells of store -engine tikv with
// -quick (the mock commits some tens of thousands of keys per second).
const tikvQuickCells = 150_000

// runStoreTiKV compares kvenc's store on TiKV with one TiKV key per cell
// on the lineitem cells.
func runStoreTiKV(e *env) error {
	if !e.cfg.uses("lineitem") {
		fmt.Fprintln(e.stdout, "store-tikv: runs on lineitem, which -dataset leaves out")
		return nil
	}
	tikvbench.Quiet()
	set, err := e.lineitem()
	if err != nil {
		return err
	}
	n := len(set.Rows)
	if e.cfg.quick {
		n = min(n, tikvQuickCells)
	}
	cells := dataset.LineitemCells(set, n)
	o := tikvbench.Options{PD: e.cfg.pd, Cache: e.cfg.cache, Gets: 2000, Seeks: 1000, Concurrent: 20_000, Rounds: e.cfg.count, Seed: 1}
	if e.cfg.quick {
		o.Gets, o.Seeks, o.Concurrent = 1000, 500, 10_000
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := tikvbench.Run(ctx, cells, o)
	if err != nil {
		return err
	}
	for _, t := range []*report.Table{tikvTable(r, e.cfg.cache, o.Rounds), tikvGoals(r)} {
		if err := e.emit(t); err != nil {
			return err
		}
	}
	return nil
}

func tikvTable(r tikvbench.Result, cache int64, rounds int) *report.Table {
	t := report.NewTable("store_tikv", fmt.Sprintf("store on TiKV (%s): kvenc (kvtikv, defaults, %s block cache) vs one TiKV key per cell, %d lineitem cells", r.Cluster, sizeString(cache), r.Cells),
		"way", "keys", "MB stored", "load s", "get p50 us", "get p99 us", "scan ns/cell", "scan MB read", "seek+10 us", "8-writer puts/s")
	for _, w := range []tikvbench.Way{r.Kvenc, r.Plain} {
		t.Add(w.Name, report.Int(w.Keys), report.Float(float64(w.Bytes)/1e6, 2), report.Float(w.Load.Seconds(), 2),
			us(w.GetP50), us(w.GetP99), report.Float(w.Scan, 0), scanRead(w), us(w.Seek10), report.Float(w.PutsPerSec, 0))
	}
	k, p := r.Kvenc, r.Plain
	t.Add("kvenc / plain", report.Ratio(float64(k.Keys), float64(p.Keys)), report.Ratio(float64(k.Bytes), float64(p.Bytes)),
		report.Ratio(k.Load.Seconds(), p.Load.Seconds()), report.Ratio(float64(k.GetP50), float64(p.GetP50)), report.Ratio(float64(k.GetP99), float64(p.GetP99)),
		report.Ratio(k.Scan, p.Scan), report.Ratio(float64(k.ScanRead), float64(p.ScanRead)), report.Ratio(float64(k.Seek10), float64(p.Seek10)), report.Ratio(k.PutsPerSec, p.PutsPerSec))
	t.Note("keys, MB stored: the TiKV keys under each way's prefix after the load and the sum of their key and value lengths, read back (kvenc: blocks, segment metas and its registry entry, after Compact and Close).")
	t.Note("load: kvenc Apply of batches of 1000 cells, Flush, Compact and Close; plain: one transaction per 1000 cells.")
	t.Note("reads and writers: medians of %d rounds, kvenc's and the plain way's alternated; the first round's kvenc reads start from a cold cache (the Store reopened after the load).", max(rounds, 1))
	t.Note("reads: random Gets (plain: a snapshot Get of the latest value), a full scan (plain: one snapshot scan), SeekGE and 10 Nexts (plain: a snapshot scan of 11 keys).")
	t.Note("scan MB read: the bytes of the read responses TiKV sent during the full scan (keys and values with their framing; counted on the mock only).")
	t.Note("8-writer puts/s: 8 goroutines each writing 10 cells at a time, kvenc through Apply (WAL records group-committed into shared transactions), plain each in a transaction of its own.")
	if r.Cluster != "" && r.Cluster[0] == 'i' {
		t.Note("The in-process mock answers each request in microseconds, with no network: on a real cluster every TiKV read is a network round trip (~0.3-1 ms), which kvenc pays once per 16 KiB block and the plain way once per cell or scan batch.")
	}
	return t
}

// scanRead is w's scan MB read, "-" when not counted.
func scanRead(w tikvbench.Way) string {
	if w.ScanRead == 0 {
		return "-"
	}
	return report.Float(float64(w.ScanRead)/1e6, 2)
}

func us(d time.Duration) string { return report.Float(float64(d.Nanoseconds())/1e3, 1) }

func tikvGoals(r tikvbench.Result) *report.Table {
	t := report.NewTable("store_tikv_goals", "store on TiKV goals: kvenc against one key per cell", "goal", "ratio", "limit", "met")
	k, p := r.Kvenc, r.Plain
	add := func(goal string, v, limit float64, atLeast bool) {
		t.Add(append([]string{goal}, goalCells(v, limit, atLeast)...)...)
	}
	add("bytes stored <= 0.35x", float64(k.Bytes)/float64(p.Bytes), 0.35, false)
	add("keys <= 0.01x", float64(k.Keys)/float64(p.Keys), 0.01, false)
	add("load >= 3x faster", k.Load.Seconds()/p.Load.Seconds(), 1.0/3, false)
	add("scan >= 5x faster", k.Scan/p.Scan, 0.2, false)
	add("seek+10 <= 0.5x", float64(k.Seek10)/float64(p.Seek10), 0.5, false)
	add("get p50 <= 1.2x", float64(k.GetP50)/float64(p.GetP50), 1.2, false)
	add("8 writers >= 5x the puts/s", k.PutsPerSec/p.PutsPerSec, 5, true)
	t.Note("ratio: kvenc / plain; times and sizes are met at most at the limit, puts/s at least.")
	return t
}
