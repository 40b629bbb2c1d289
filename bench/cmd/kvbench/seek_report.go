package main

import (
	"math"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/colbench"
	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/rowbench"
	"github.com/kvenc/kvenc/bench/internal/seekbench"
	"github.com/kvenc/kvenc/blockenc"
)

// seekGoals checks the block seek goals on every key set: RowIndex seeks
// and scans as fast as Pebble's rowblk, FastDiff the smallest row encoding,
// RowIndex and Columnar Prev within 1.2x of Pebble's.
func seekGoals(all [][]seekRow) *report.Table {
	t := report.NewTable("seek_goals", "seek goals: RowIndex, FastDiff and Columnar blocks against Pebble rowblk", "keyset", "goal", "kvenc", "other", "ratio", "met")
	addWithin := func(set, goal string, a, b float64, prec int, factor float64) {
		met := "no"
		if a <= factor*b {
			met = "yes"
		}
		f := func(v float64) string { return report.Float(v, prec) }
		t.Add(set, goal, f(a), f(b), report.Ratio(a, b), met)
	}
	add := func(set, goal string, a, b float64, prec int) { addWithin(set, goal, a, b, prec, 1) }
	for _, rows := range all {
		ri, fd, p := findSeek(rows, blockenc.RowIndex), findSeek(rows, blockenc.FastDiff), rows[len(rows)-1]
		if ri == nil || fd == nil || p.name != seekbench.PebbleName {
			continue
		}
		set := p.set
		add(set, "RowIndex SeekGE rand ns <= pebble", ri.random, p.random, 1)
		smallest := math.Inf(1)
		for _, r := range rows {
			// The goal is about the five row encodings; Columnar lays
			// cells out by column and is reported beside.
			if strings.HasPrefix(r.name, "kvenc-") && r.name != seekbench.KvencName(blockenc.Columnar) {
				smallest = math.Min(smallest, float64(r.bytes)/float64(r.cells))
			}
		}
		add(set, "FastDiff B/cell = smallest row encoding", float64(fd.bytes)/float64(fd.cells), smallest, 2)
		add(set, "FastDiff B/cell <= pebble", float64(fd.bytes)/float64(fd.cells), float64(p.bytes)/float64(p.cells), 2)
		add(set, "RowIndex Next ns/cell <= pebble", ri.next, p.next, 2)
		add(set, "RowIndex Next via Cell ns/cell <= pebble", ri.cell, p.next, 2)
		addWithin(set, "RowIndex Prev ns/cell <= 1.2x pebble", ri.prev, p.prev, 2, 1.2)
		if col := findSeek(rows, blockenc.Columnar); col != nil {
			addWithin(set, "Columnar Prev ns/cell <= 1.2x pebble", col.prev, p.prev, 2, 1.2)
		}
	}
	t.Note("\"other\" is Pebble's number, or for \"smallest row encoding\" the smallest of kvenc's row encodings (None..RowIndex; Columnar is not a row encoding).")
	return t
}

// seekPlots draws SeekGE (random) ns and bytes per cell by subject, one bar
// per key set.
func seekPlots(e *env, sets []string, all [][]seekRow) error {
	var cats []string
	for _, r := range all[0] {
		cats = append(cats, r.name)
	}
	ns := make([][]float64, len(all))
	bpc := make([][]float64, len(all))
	for s, rows := range all {
		for _, r := range rows {
			ns[s] = append(ns[s], r.random)
			bpc[s] = append(bpc[s], float64(r.bytes)/float64(r.cells))
		}
	}
	if err := report.SaveBars(e.outPath("seek_ns.png"), report.Bars{
		Title: "SeekGE to random keys in one ~32 KiB block", YLabel: "ns/op",
		Categories: cats, Series: sets, Values: ns,
	}); err != nil {
		return err
	}
	return report.SaveBars(e.outPath("seek_bytes.png"), report.Bars{
		Title: "Encoded bytes per cell (8-byte values, 5-7-byte seqs)", YLabel: "bytes/cell",
		Categories: cats, Series: sets, Values: bpc,
	})
}

// seekColumns reports lineitem columns in the column layout,
// kvenc vs Pebble rowblk with Snappy and zstd, by size (seek_columns) and
// by seek and scan time (seek_columns_time), with the goals.
func seekColumns(e *env, set *dataset.LineitemSet) error {
	rows := 0 // all
	if e.cfg.quick {
		rows = 100_000
	}
	cols := colbench.LineitemColumns(set, rows)
	e.dataset("seek columns lineitem: %d rows x %d columns, key column name + orderkey + linenumber, value the column's text; %d random existing keys per column for the seeks",
		len(cols[0].Cells), len(cols), colbench.NumTargets)
	enc, err := colbench.Encode(cols)
	if err != nil {
		return err
	}
	times := measureColumns(e, enc)
	headers := []string{"column", "cells", "blocks"}
	for _, s := range colbench.Subjects {
		headers = append(headers, s+" B/cell")
	}
	t := report.NewTable("seek_columns", "seek columns: lineitem column layout, bytes per cell over ~32 KiB raw blocks, one block run per column", headers...)
	tt := report.NewTable("seek_columns_time", "seek columns: the same blocks timed, medians, SeekGE to random existing keys, scans touch key and value",
		"column", "subject", "B/cell", "vs zstd", "SeekGE warm ns", "vs pebble", "SeekGE cold ns", "vs zstd",
		"Next warm ns/cell", "vs pebble", "scan cold ns/cell", "vs zstd")
	g := report.NewTable("seek_columns_goals", "seek columns goals: Columnar against Pebble zstd and the row encodings", "column", "goal", "kvenc", "other", "ratio", "met")
	var scanGoals, sizeGoals [][]string
	for i, en := range enc {
		r := en.Result()
		row := []string{r.Column, report.Int(int64(r.Cells)), report.Int(int64(r.Blocks))}
		for s := range colbench.Subjects {
			row = append(row, report.Float(r.PerCell(s), 2))
		}
		t.Add(row...)
		// Pebble's warm ops are measured once, under Pebble.
		warm := func(s int, op colbench.Op) float64 { return times.median(i, min(s, colbench.Pebble), op) }
		warmRatio := func(s int, op colbench.Op) float64 {
			return times.ratio(i, min(s, colbench.Pebble), colbench.Pebble, op)
		}
		cold := func(s int, op colbench.Op) float64 { return times.median(i, s, op) }
		z := colbench.PebbleZstd
		for s, name := range colbench.Subjects {
			tt.Add(r.Column, name,
				report.Float(r.PerCell(s), 2), report.Ratio(r.PerCell(s), r.PerCell(z)),
				report.NS(warm(s, colbench.SeekWarm)), report.Ratio(warmRatio(s, colbench.SeekWarm), 1),
				report.NS(cold(s, colbench.SeekCold)), report.Ratio(times.ratio(i, s, z, colbench.SeekCold), 1),
				report.Float(warm(s, colbench.NextWarm), 2), report.Ratio(warmRatio(s, colbench.NextWarm), 1),
				report.Float(cold(s, colbench.ScanCold), 2), report.Ratio(times.ratio(i, s, z, colbench.ScanCold), 1))
		}
		a, b := r.PerCell(colbench.ColumnarLZ4L6), r.PerCell(z)
		g.Add(r.Column, "Columnar+LZ4-6 smaller than Pebble zstd", report.Float(a, 2), report.Float(b, 2), report.Ratio(a, b), yesNo(a < b))
		if lowCardinality[r.Column] {
			a, b := r.PerCell(colbench.ColumnarLZ4), r.PerCell(colbench.FastDiffLZ4Dict)
			sizeGoals = append(sizeGoals, []string{r.Column, "Columnar+LZ4 >= 3x smaller than FastDiff+LZ4Dict",
				report.Float(a, 2), report.Float(b, 2), report.Ratio(a, b), yesNo(3*a <= b)})
		} else if r.Column == "l_comment" {
			a, b := r.PerCell(colbench.ColumnarLZ4), min(r.PerCell(colbench.FastDiff), r.PerCell(colbench.FastDiffLZ4Dict))
			sizeGoals = append(sizeGoals, []string{r.Column, "Columnar+LZ4 <= 1.05x the best row encoding",
				report.Float(a, 2), report.Float(b, 2), report.Ratio(a, b), yesNo(a <= 1.05*b)})
		}
		if lowCardinality[r.Column] {
			a, b := cold(colbench.ColumnarLZ4, colbench.ScanCold), cold(colbench.FastDiffLZ4Dict, colbench.ScanCold)
			ratio := times.ratio(i, colbench.ColumnarLZ4, colbench.FastDiffLZ4Dict, colbench.ScanCold)
			scanGoals = append(scanGoals, []string{r.Column, "Columnar scan >= 2x faster than FastDiff+LZ4Dict",
				report.Float(a, 2), report.Float(b, 2), report.Ratio(ratio, 1), yesNo(ratio <= 0.5)})
		}
	}
	for _, row := range append(sizeGoals, scanGoals...) {
		g.Add(row...)
	}
	t.Note("key: column name + 8-byte BE orderkey + 4-byte BE linenumber; value: the column's text (l_shipdate as YYYY-MM-DD). Pebble: rowblk, restart interval 16, finished block compressed whole by Pebble's own block compressors (zstd level 3); its sizes include the 5-byte block trailer (compression indicator, CRC-32C).")
	t.Note("kvenc: Columnar with LZ4 (at CompressionLevel 0, the fast parse, and 6, a hash-chain parse: what kv's compaction writes; the level changes only the bytes, decoding is the same LZ4), FastDiff, FastDiff with LZ4Dict; every block is read back and compared with its cells before it is counted.")
	tt.Note("warm: the block already read (kvenc: Seeker.Init done; Pebble: decompressed, rowblk iterator Init'd); the three Pebble rows share one warm measurement (the same decompressed block).")
	tt.Note("cold: each seek or each block of a scan first reads its block (kvenc: Seeker.Init, which checks the CRC-32C and decompresses LZ4; Pebble, as its block reader on a cache miss: check the trailer's CRC-32C, decompress, iterator Init); scans are per column over all its blocks, in ns per cell.")
	tt.Note("scans read Key and Value through the accessors (as seekbench does), not Seq; blockenc's BenchmarkColumnar reads Cell(), which measured the same within noise.")
	tt.Note("ratios: vs zstd = / pebble-rowblk+zstd's number (B/cell, cold), vs pebble = / Pebble's warm number; time ratios are medians of the ratios measured in the same round (the subjects of one op run side by side), so they need not equal the ratio of the medians shown.")
	tt.Note("%d random existing keys per column, the same for every subject.", colbench.NumTargets)
	g.Note("row encodings here: FastDiff and FastDiff+LZ4Dict (the smaller is the best row encoding).")
	g.Note("scan goal: cold scan ns/cell (Init of each block as it would be read cold, then Next over every cell), low-cardinality columns only; its ratio is the median over rounds of the two scans' ratio in the same round (not kvenc/other); met when it is at most 0.5.")
	for _, tab := range []*report.Table{t, tt, g} {
		if err := e.emit(tab); err != nil {
			return err
		}
	}
	// One bar per column, by subject: the cold scan.
	scan := make([][]float64, len(enc))
	var names []string
	for i, en := range enc {
		names = append(names, en.Column)
		for s := range colbench.Subjects {
			scan[i] = append(scan[i], times.median(i, s, colbench.ScanCold))
		}
	}
	return report.SaveBars(e.outPath("seek_columns_scan.png"), report.Bars{
		Title: "Cold scan of lineitem columns (read each ~32 KiB block, Next over it)", YLabel: "ns/cell",
		Categories: colbench.Subjects, Series: names, Values: scan,
	})
}

// lowCardinality are the columns of the Columnar scan goal.
var lowCardinality = map[string]bool{"l_shipmode": true, "l_returnflag": true, "l_shipinstruct": true}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// colTimes are the column timings: runs[col][subject][op] holds one
// number per round (ns per op for seeks, ns per cell for scans), nil where
// not measured.
type colTimes struct{ runs [][][][]float64 }

// median is the median over rounds (NaN where not measured).
func (c colTimes) median(col, subject int, op colbench.Op) float64 {
	return measure.MedianOf(c.runs[col][subject][op])
}

// ratio is the median over rounds of a's number / b's, measured in the
// same round: steadier than a ratio of medians on a shared machine.
func (c colTimes) ratio(col, a, b int, op colbench.Op) float64 {
	ra, rb := c.runs[col][a][op], c.runs[col][b][op]
	var v []float64
	for r := range min(len(ra), len(rb)) {
		v = append(v, ra[r]/rb[r])
	}
	return measure.MedianOf(v)
}

// measureColumns times every column's subjects, interleaved round by round
// over all columns (within a column, the subjects of one op run next to
// each other).
func measureColumns(e *env, enc []*colbench.Encoded) colTimes {
	type timer struct {
		col  int
		tm   colbench.Timer
		name string
	}
	var ts []timer
	out := colTimes{runs: make([][][][]float64, len(enc))}
	for c, en := range enc {
		out.runs[c] = make([][][]float64, len(colbench.Subjects))
		for s := range out.runs[c] {
			out.runs[c][s] = make([][]float64, len(colbench.OpNames))
		}
		for _, tm := range en.Timers() {
			ts = append(ts, timer{c, tm, en.Column + " " + colbench.Subjects[tm.Subject] + " " + colbench.OpNames[tm.Op]})
		}
	}
	bar := report.StderrProgress(len(ts) * e.cfg.count)
	for range e.cfg.count {
		for _, t := range ts {
			v := measure.Run(t.tm.Fn).NsPerOp
			if t.tm.Op == colbench.NextWarm || t.tm.Op == colbench.ScanCold {
				v /= float64(enc[t.col].Cells)
			}
			r := &out.runs[t.col][t.tm.Subject][t.tm.Op]
			*r = append(*r, v)
			bar.Step("seek columns " + t.name)
		}
	}
	bar.Done()
	return out
}

// seekRows reports kvenc's row blocks against Pebble and Badger with
// their own compression, bytes per cell on lineitem rows and time series.
func seekRows(e *env) error {
	type data struct {
		name  string
		cells []dataset.KV
	}
	var sets []data
	if e.cfg.uses("lineitem") {
		li, err := e.lineitem()
		if err != nil {
			return err
		}
		rows := 0 // all
		if e.cfg.quick {
			rows = 100_000
		}
		cells := dataset.LineitemRowCells(li, rows)
		e.dataset("seek rows lineitem: %d rows, key orderkey+linenumber (12 bytes), binary row value (%.0f bytes on average)", len(cells), avgValue(cells))
		sets = append(sets, data{"lineitem", cells})
	}
	if e.cfg.uses("timeseries") {
		series := max(e.seriesLen()/3000, 2) // 200 at the default scale, blockenc's set
		cells := dataset.SeriesIDCells(series, 360)
		e.dataset("seek rows timeseries: %d series x 360 samples, key series id + BE timestamp (16 bytes), 8-byte counter or gauge", series)
		sets = append(sets, data{"timeseries", cells})
	}
	t := report.NewTable("seek_rows", "seek rows: bytes per cell of the same cells in 64 KiB raw blocks, kvenc vs Pebble v2 rowblk and Badger v4 tables with their own compression",
		"dataset", "subject", "cells", "blocks", "bytes", "B/cell", "vs pebble snappy", "vs pebble zstd", "vs badger snappy", "vs badger zstd")
	ps, pz := rowbench.Index("pebble-rowblk+snappy"), rowbench.Index("pebble-rowblk+zstd")
	bs, bz := rowbench.Index("badger-table+snappy"), rowbench.Index("badger-table+zstd")
	var names []string
	var bpc [][]float64
	for _, d := range sets {
		r, err := rowbench.Measure(d.name, d.cells)
		if err != nil {
			return err
		}
		pc := func(s int) float64 {
			if v := r.PerCell(s); v >= 0 {
				return v
			}
			return math.NaN()
		}
		names = append(names, d.name)
		bpc = append(bpc, nil)
		for s, sub := range rowbench.Subjects {
			bpc[len(bpc)-1] = append(bpc[len(bpc)-1], pc(s))
			blocks, bytes := report.Int(int64(r.Blocks)), report.Int(int64(r.Bytes[s]))
			if sub.Badger != nil {
				blocks = "-" // Badger cuts its own
			}
			if r.Bytes[s] < 0 {
				bytes = "-"
			}
			t.Add(d.name, sub.Name, report.Int(int64(r.Cells)), blocks, bytes, report.Float(pc(s), 2),
				report.Ratio(pc(s), pc(ps)), report.Ratio(pc(s), pc(pz)), report.Ratio(pc(s), pc(bs)), report.Ratio(pc(s), pc(bz)))
		}
	}
	t.Note("kvenc and Pebble encode the same cut (a block every 64 KiB of keys + values + 8 bytes per seq); every block is read back and compared with its cells before it is counted.")
	t.Note("Pebble: rowblk, restart interval 16, compressed whole by Pebble's own block compressors (zstd level 3; kept raw when it saves < 12%%), 5-byte block trailer (indicator, CRC-32C) counted.")
	t.Note("Badger: one SSTable over every cell from badger/v4's table builder, 64 KiB blocks, Snappy or ZSTD level 1 (Badger's default); bytes = the whole table (blocks, index, 1%% bloom filter, checksums); keys carry its 8-byte version.")
	t.Note("IntValues rows only where every value has one width (\"-\" on lineitem's variable rows). Ratios: this row's B/cell / the peer's.")
	if err := e.emit(t); err != nil {
		return err
	}
	var cats []string
	for _, s := range rowbench.Subjects {
		cats = append(cats, s.Name)
	}
	return report.SaveBars(e.outPath("seek_rows_bytes.png"), report.Bars{
		Title: "Bytes per cell, 64 KiB blocks: kvenc vs Pebble and Badger with their compression", YLabel: "bytes/cell",
		Categories: cats, Series: names, Values: bpc,
	})
}
