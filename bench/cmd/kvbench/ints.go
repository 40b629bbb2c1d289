package main

import (
	"fmt"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/intsbench"
	"github.com/kvenc/kvenc/bench/internal/report"
)

// Codec names the ints tables compare.
const (
	balanced = intsbench.ShapeshiftPrefix + "Balanced"
	lz4Pack  = "lz4-bytepack"
)

// peers are the baselines, in table order.
var peers = []string{lz4Pack, "uvarint", "zstd", "pebble-colblk"}

func runInts(e *env) error {
	var cols []intsbench.Column
	if e.cfg.uses("lineitem") {
		set, err := e.lineitem()
		if err != nil {
			return err
		}
		for c, name := range dataset.IntColumns {
			cols = append(cols, intsbench.Column{Name: name, Values: dataset.IntColumn(set.Rows, c)})
		}
	}
	if e.cfg.uses("timeseries") {
		n := e.seriesLen()
		for _, s := range dataset.TimeSeries(n) {
			cols = append(cols, intsbench.Column{Name: s.Name, Values: s.Values})
		}
		e.dataset("time series: 4 columns of %d values (timestamps, counter, gauge, sparse), fixed seeds", n)
	}
	if len(cols) == 0 {
		fmt.Fprintln(e.stdout, "ints: no dataset selected (-dataset lineitem or timeseries)")
		return nil
	}
	fmt.Fprintln(e.stdout)
	codecs := intsbench.Codecs()
	bar := report.StderrProgress(len(cols) * len(codecs) * 3 * e.cfg.count)
	results := intsbench.Measure(cols, codecs, e.cfg.count, func(n string) { bar.Step("ints " + n) })
	bar.Done()
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(e.stdout, "ints: FAILED CHECK, no numbers for it: %v\n", r.Err)
		}
	}
	rs := indexResults(results)
	tables := []*report.Table{
		metricTable(rs, cols, "ints_size", "ints: encoded bytes per value", func(r intsbench.Result) float64 { return float64(r.Bytes) / float64(r.Values) }, 2),
		metricTable(rs, cols, "ints_decode", "ints: full decode, ns per value", func(r intsbench.Result) float64 { return r.Decode }, 2),
		metricTable(rs, cols, "ints_get", "ints: random Get, ns per call (4096 sorted random rows per op)", func(r intsbench.Result) float64 { return r.Get }, 2),
		metricTable(rs, cols, "ints_encode", "ints: encode, ns per value", func(r intsbench.Result) float64 { return r.Encode }, 2),
		formsTable(rs, cols),
	}
	if e.cfg.uses("lineitem") {
		tables = append(tables, intsGoals(rs, cols[:len(dataset.IntColumns)]))
	}
	tables = append(tables, allResultsTable(results))
	for _, t := range tables {
		if t.Name == "ints_all" { // CSV only: the long form of the tables above
			if _, err := t.WriteCSV(e.cfg.out); err != nil {
				return err
			}
			continue
		}
		if err := e.emit(t); err != nil {
			return err
		}
	}
	if err := sizePlot(e, rs, cols, codecs); err != nil {
		return err
	}
	return selectPlot(e, cols, codecs)
}

// resultIndex finds a result by column and codec.
type resultIndex map[[2]string]intsbench.Result

func indexResults(results []intsbench.Result) resultIndex {
	rs := resultIndex{}
	for _, r := range results {
		rs[[2]string{r.Column, r.Codec}] = r
	}
	return rs
}

// get returns the result, or false if it is missing or failed its check.
func (rs resultIndex) get(col, codec string) (intsbench.Result, bool) {
	r, ok := rs[[2]string{col, codec}]
	return r, ok && r.Err == nil
}
