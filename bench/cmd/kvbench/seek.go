package main

import (
	"fmt"
	"math"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/seekbench"
	"github.com/kvenc/kvenc/blockenc"
)

// seekBlockBytes is the raw size (keys + values + 8 bytes per seq) of the
// cells in one seek benchmark block.
const seekBlockBytes = 32 << 10

// seekRow is one subject's medians on one key set.
type seekRow struct {
	set, name         string
	cells, bytes      int
	random, asc, next float64 // ns/op, ns/op, ns/cell
	cell              float64 // ns/cell scanning through Seeker.Cell; NaN without one
	seekLT, prev      float64 // SeekLT ns/op, Last+Prev ns/cell; NaN without them
	allocs            float64 // the largest allocs/op of its seeks and scans
	pebble            *seekRow
}

func runSeek(e *env) error {
	var sets []string
	for _, s := range dataset.KeySets {
		if e.cfg.uses(s) {
			sets = append(sets, s)
		}
	}
	if len(sets) > 0 {
		if err := seekKeySets(e, sets); err != nil {
			return err
		}
	}
	if e.cfg.uses("lineitem") || e.cfg.uses("timeseries") {
		return seekRows(e)
	}
	if len(sets) == 0 {
		fmt.Fprintln(e.stdout, "seek: no data set selected (-dataset user, lineitem, random or timeseries)")
	}
	return nil
}

// seekKeySets reports block seeks on the key sets, and the lineitem
// column-layout tables when lineitem is one of them.
func seekKeySets(e *env, sets []string) error {
	var all [][]seekRow
	var lineitem *dataset.LineitemSet
	for _, set := range sets {
		var li []dataset.Lineitem
		if set == "lineitem" {
			rows, err := e.lineitem()
			if err != nil {
				return err
			}
			li, lineitem = rows.Rows, rows
		}
		kvs, err := dataset.KeySet(set, seekBlockBytes, li)
		if err != nil {
			return err
		}
		e.dataset("seek key set %s: %d cells, %d-byte keys, 8-byte values, seqs of 5-7 vlong bytes", set, len(kvs), len(kvs[0].Key))
		res, err := measureSeek(e, set, kvs)
		if err != nil {
			return err
		}
		all = append(all, res)
	}
	fmt.Fprintln(e.stdout)
	t := report.NewTable("seek", "seek: one block of ~32 KiB raw cells per key set, kvenc blockenc vs Pebble v2 rowblk (restart interval 16) and a one-block Badger v4 table",
		"keyset", "subject", "cells", "B/cell", "vs pebble", "SeekGE rand ns", "vs pebble", "SeekGE asc ns", "vs pebble", "Next ns/cell", "vs pebble", "Next via Cell ns/cell", "vs pebble",
		"SeekLT rand ns", "vs pebble", "Prev ns/cell", "vs pebble", "allocs/op")
	for _, res := range all {
		for _, r := range res {
			p := r.pebble
			t.Add(r.set, r.name, report.Int(int64(r.cells)),
				report.Float(float64(r.bytes)/float64(r.cells), 2), report.Ratio(float64(r.bytes), float64(p.bytes)),
				report.NS(r.random), report.Ratio(r.random, p.random),
				report.NS(r.asc), report.Ratio(r.asc, p.asc),
				report.NS(r.next), report.Ratio(r.next, p.next),
				report.NS(r.cell), report.Ratio(r.cell, p.next),
				report.NS(r.seekLT), report.Ratio(r.seekLT, p.seekLT),
				report.NS(r.prev), report.Ratio(r.prev, p.prev),
				report.Float(r.allocs, 0))
		}
	}
	t.Note("ratio columns: kvenc / pebble (below 1: kvenc smaller or faster). SeekGE targets are existing keys; asc = every key in order.")
	t.Note("Next reads each cell's key and value through Key() and Value(); Next via Cell through one Cell() per cell (c := s.Cell(); c.Key, c.Value); both ratios are against Pebble's Next.")
	t.Note("asc: kvenc's scanning seekers continue from the current cell when the target is ahead; Pebble's rowblk binary-searches every seek.")
	t.Note("SeekLT targets are existing keys but the first (SeekLT lands on the cell before); Prev is a Last+Prev pass over the block reading key and value, per cell. Badger's table is measured forward only.")
	t.Note("badger-table: Badger's block iterator is unexported; its table.Iterator re-reads the block on every Seek (no block cache); its bytes include the table's index and bloom filter.")
	if err := e.emit(t); err != nil {
		return err
	}
	if err := e.emit(seekGoals(all)); err != nil {
		return err
	}
	if lineitem != nil {
		if err := seekColumns(e, lineitem); err != nil {
			return err
		}
	}
	return seekPlots(e, sets, all)
}

func measureSeek(e *env, set string, kvs []dataset.KV) ([]seekRow, error) {
	subs, err := seekbench.Subjects(kvs)
	if err != nil {
		return nil, err
	}
	var ms []measure.Subject
	for _, s := range subs {
		ms = append(ms,
			measure.Subject{Name: s.Name + "/random", Fn: s.SeekRandom},
			measure.Subject{Name: s.Name + "/asc", Fn: s.SeekAscending},
			measure.Subject{Name: s.Name + "/next", Fn: s.Scan})
		if s.ScanCell != nil {
			ms = append(ms, measure.Subject{Name: s.Name + "/cell", Fn: s.ScanCell})
		}
		if s.SeekLTRandom != nil {
			ms = append(ms,
				measure.Subject{Name: s.Name + "/seeklt", Fn: s.SeekLTRandom},
				measure.Subject{Name: s.Name + "/prev", Fn: s.ScanReverse})
		}
	}
	bar := report.StderrProgress(len(ms) * e.cfg.count)
	res := measure.Rounds(ms, e.cfg.count, func(n string) { bar.Step("seek " + set + " " + n) })
	bar.Done()
	rows := make([]seekRow, len(subs))
	for i, s := range subs {
		r, a, n := res[s.Name+"/random"], res[s.Name+"/asc"], res[s.Name+"/next"]
		rows[i] = seekRow{set: set, name: s.Name, cells: s.Cells, bytes: s.Bytes,
			random: r.NsPerOp, asc: a.NsPerOp, next: n.NsPerOp / float64(s.Cells),
			cell: math.NaN(), seekLT: math.NaN(), prev: math.NaN(),
			allocs: math.Max(r.AllocsPerOp, math.Max(a.AllocsPerOp, n.AllocsPerOp))}
		if c, ok := res[s.Name+"/cell"]; ok {
			rows[i].cell = c.NsPerOp / float64(s.Cells)
			rows[i].allocs = math.Max(rows[i].allocs, c.AllocsPerOp)
		}
		if lt, ok := res[s.Name+"/seeklt"]; ok {
			pv := res[s.Name+"/prev"]
			rows[i].seekLT, rows[i].prev = lt.NsPerOp, pv.NsPerOp/float64(s.Cells)
			rows[i].allocs = math.Max(rows[i].allocs, math.Max(lt.AllocsPerOp, pv.AllocsPerOp))
		}
	}
	for i := range rows {
		rows[i].pebble = &rows[len(rows)-1]
	}
	return rows, nil
}

// findSeek returns the row of kvenc's encoding enc, or nil.
func findSeek(rows []seekRow, enc blockenc.Encoding) *seekRow {
	for i := range rows {
		if rows[i].name == seekbench.KvencName(enc) {
			return &rows[i]
		}
	}
	return nil
}
