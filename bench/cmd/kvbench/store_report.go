package main

import (
	"math"

	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/storebench"
)

// storeMetric reads one number from a result (NaN if it failed).
func storeMetric(r storebench.Result, f func(storebench.Result) float64) float64 {
	if r.Err != nil {
		return math.NaN()
	}
	return f(r)
}

var (
	diskMB  = func(r storebench.Result) float64 { return float64(r.DiskBytes) / 1e6 }
	scanNs  = func(r storebench.Result) float64 { return r.ScanPerCell }
	getP50  = func(r storebench.Result) float64 { return r.GetP50 / 1e3 }
	getP99  = func(r storebench.Result) float64 { return r.GetP99 / 1e3 }
	seekUs  = func(r storebench.Result) float64 { return r.SeekNext / 1e3 }
	loadSec = func(r storebench.Result) float64 { return r.Load.Seconds() }
)

func storeTable(sets []storeSet, all [][]storebench.Result) *report.Table {
	t := report.NewTable("store", "store: kvenc (package kv, defaults) vs raw Badger v4 (one key per cell) vs Pebble v2, after load + flush + compaction",
		"dataset", "engine", "cells", "load s", "disk MB", "kvenc/this", "scan ns/cell", "kvenc/this",
		"get p50 us", "get p99 us", "kvenc/this", "seek+10 us", "kvenc/this")
	for i, rs := range all {
		k := rs[0] // kvenc is first
		for _, r := range rs {
			ratio := func(f func(storebench.Result) float64) string {
				return report.Ratio(storeMetric(k, f), storeMetric(r, f))
			}
			t.Add(sets[i].name, r.Engine, report.Int(int64(r.Cells)),
				report.Float(storeMetric(r, loadSec), 2),
				report.Float(storeMetric(r, diskMB), 1), ratio(diskMB),
				report.NS(storeMetric(r, scanNs)), ratio(scanNs),
				report.Float(storeMetric(r, getP50), 2), report.Float(storeMetric(r, getP99), 2), ratio(getP50),
				report.Float(storeMetric(r, seekUs), 2), ratio(seekUs))
		}
	}
	t.Note("kvenc/this below 1: kvenc smaller or faster. Get latencies pooled over rounds; scan and seek+10 are medians of rounds.")
	t.Note("disk MB: every file in the engine's directory after Close, allocated blocks. Engines run one after another.")
	return t
}

// storeGoals checks the store goals: disk against Badger and the zstd
// peers, scan and Get against Badger.
func storeGoals(sets []storeSet, all [][]storebench.Result) *report.Table {
	t := report.NewTable("store_goals", "store goals: disk, scan and Get against the peers", "dataset", "goal", "kvenc/peer", "limit", "met")
	for i, rs := range all {
		byName := map[string]storebench.Result{}
		for _, r := range rs {
			byName[r.Engine] = r
		}
		k := byName[storebench.KvencName]
		add := func(goal, peer string, f func(storebench.Result) float64, limit float64) {
			v := storeMetric(k, f) / storeMetric(byName[peer], f)
			met := "no"
			if v <= limit {
				met = "yes"
			}
			if math.IsNaN(v) {
				met = "-"
			}
			t.Add(sets[i].name, goal, report.Float(v, 2), report.Float(limit, 2), met)
		}
		add("disk <= 0.5x badger", "badger", diskMB, 0.5)
		zlimit := 0.8
		if sets[i].name == "lineitem" {
			zlimit = 1 // row layout: no larger than the zstd peers
		}
		add("disk vs badger-zstd", "badger-zstd", diskMB, zlimit)
		add("disk vs pebble-zstd", "pebble-zstd", diskMB, zlimit)
		add("scan >= 4x faster than badger", "badger", scanNs, 0.25)
		add("get p50 <= 1.2x badger", "badger", getP50, 1.2)
	}
	return t
}

func storePlots(e *env, sets []storeSet, all [][]storebench.Result) error {
	size := report.Bars{Title: "Bytes on disk after load and compaction", YLabel: "MB"}
	scan := report.Bars{Title: "Full scan", YLabel: "ns/cell"}
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
			cv = append(cv, storeMetric(all[i][j], scanNs))
		}
		size.Values = append(size.Values, sv)
		scan.Values = append(scan.Values, cv)
	}
	if err := report.SaveBars(e.outPath("store_size.png"), size); err != nil {
		return err
	}
	return report.SaveBars(e.outPath("store_scan.png"), scan)
}
