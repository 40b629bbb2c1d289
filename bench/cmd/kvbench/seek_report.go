package main

import (
	"math"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/colbench"
	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/seekbench"
	"github.com/kvenc/kvenc/blockenc"
)

// seekGoals checks issue 3's goals on every key set.
func seekGoals(all [][]seekRow) *report.Table {
	t := report.NewTable("seek_goals", "seek goals (issue 3)", "keyset", "goal", "kvenc", "other", "ratio", "met")
	add := func(set, goal string, a, b float64, prec int) {
		met := "no"
		if a <= b {
			met = "yes"
		}
		f := func(v float64) string { return report.Float(v, prec) }
		t.Add(set, goal, f(a), f(b), report.Ratio(a, b), met)
	}
	for _, rows := range all {
		ri, fd, p := findSeek(rows, blockenc.RowIndex), findSeek(rows, blockenc.FastDiff), rows[len(rows)-1]
		if ri == nil || fd == nil || p.name != seekbench.PebbleName {
			continue
		}
		set := p.set
		add(set, "RowIndex SeekGE rand ns <= pebble", ri.random, p.random, 1)
		smallest := math.Inf(1)
		for _, r := range rows {
			// Issue 3's goal is about the five row encodings; Columnar
			// (issue 9) lays cells out by column and is reported beside.
			if strings.HasPrefix(r.name, "kvenc-") && r.name != seekbench.KvencName(blockenc.Columnar) {
				smallest = math.Min(smallest, float64(r.bytes)/float64(r.cells))
			}
		}
		add(set, "FastDiff B/cell = smallest row encoding", float64(fd.bytes)/float64(fd.cells), smallest, 2)
		add(set, "FastDiff B/cell <= pebble", float64(fd.bytes)/float64(fd.cells), float64(p.bytes)/float64(p.cells), 2)
		add(set, "RowIndex Next ns/cell <= pebble", ri.next, p.next, 2)
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

// seekColumns reports issue 9's size comparison: lineitem columns in the
// column layout, kvenc vs Pebble rowblk with Snappy and zstd.
func seekColumns(e *env, set *dataset.LineitemSet) error {
	rows := 0 // all
	if e.cfg.quick {
		rows = 100_000
	}
	res, err := colbench.Measure(colbench.LineitemColumns(set, rows))
	if err != nil {
		return err
	}
	headers := []string{"column", "cells", "blocks"}
	for _, s := range colbench.Subjects {
		headers = append(headers, s+" B/cell")
	}
	t := report.NewTable("seek_columns", "seek columns: lineitem column layout (issue 9), bytes per cell over ~32 KiB raw blocks, one block run per column", headers...)
	g := report.NewTable("seek_columns_goals", "seek columns goals (issue 9)", "column", "goal", "kvenc", "other", "ratio", "met")
	for _, r := range res {
		row := []string{r.Column, report.Int(int64(r.Cells)), report.Int(int64(r.Blocks))}
		for s := range colbench.Subjects {
			row = append(row, report.Float(r.PerCell(s), 2))
		}
		t.Add(row...)
		a, b := r.PerCell(colbench.ColumnarLZ4), r.PerCell(colbench.PebbleZstd)
		met := "no"
		if a < b {
			met = "yes"
		}
		g.Add(r.Column, "Columnar smaller than Pebble zstd", report.Float(a, 2), report.Float(b, 2), report.Ratio(a, b), met)
	}
	t.Note("key: column name + 8-byte BE orderkey + 4-byte BE linenumber; value: the column's text (l_shipdate as YYYY-MM-DD). Pebble: rowblk, restart interval 16, finished block compressed whole.")
	t.Note("kvenc: Columnar with LZ4, FastDiff, FastDiff with LZ4Dict; every kvenc block is decoded back to its cells before it is counted.")
	if err := e.emit(t); err != nil {
		return err
	}
	return e.emit(g)
}
