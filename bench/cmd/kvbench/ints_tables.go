package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/intsbench"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

var targets = []string{"Smaller", balanced[len(intsbench.ShapeshiftPrefix):], "Faster"}

// metricTable has a row per column: the metric for each shapeshift target
// and each peer, then shapeshift Balanced / peer for every peer. The last
// row totals sizes or averages times over the columns, weighted by values.
func metricTable(rs resultIndex, cols []intsbench.Column, name, title string, metric func(intsbench.Result) float64, prec int) *report.Table {
	heads := []string{"column"}
	var codecs []string
	for _, t := range targets {
		codecs = append(codecs, intsbench.ShapeshiftPrefix+t)
		heads = append(heads, "ss-"+t)
	}
	codecs = append(codecs, peers...)
	heads = append(heads, peers...)
	for _, p := range peers {
		heads = append(heads, "Bal/"+p)
	}
	t := report.NewTable(name, title, heads...)
	sums := make([]float64, len(codecs))
	total := 0
	for _, col := range cols {
		vals := make([]float64, len(codecs))
		for i, c := range codecs {
			vals[i] = math.NaN()
			if r, ok := rs.get(col.Name, c); ok {
				vals[i] = metric(r)
			}
			sums[i] += vals[i] * float64(len(col.Values))
		}
		total += len(col.Values)
		t.Add(metricRow(col.Name, vals, prec)...)
	}
	if len(cols) > 1 {
		for i := range sums {
			sums[i] /= float64(total)
		}
		t.Add(metricRow("ALL (by values)", sums, prec)...)
	}
	t.Note("ss-* = shapeshift per target; Bal/peer = shapeshift Balanced / peer (below 1: shapeshift smaller or faster); - = not available.")
	return t
}

func metricRow(name string, vals []float64, prec int) []string {
	row := []string{name}
	for _, v := range vals {
		row = append(row, report.Float(v, prec))
	}
	bal := vals[slices.Index(targets, "Balanced")]
	for _, p := range vals[len(targets):] {
		row = append(row, report.Ratio(bal, p))
	}
	return row
}

// formsTable lists every shapeshift column's chunk composition.
func formsTable(rs resultIndex, cols []intsbench.Column) *report.Table {
	t := report.NewTable("ints_forms", "ints: shapeshift chunk forms per column (chunks of 16384 values)", "column", "target", "chunks", "forms")
	for _, col := range cols {
		for _, tg := range targets {
			r, ok := rs.get(col.Name, intsbench.ShapeshiftPrefix+tg)
			if !ok {
				continue
			}
			n := 0
			var parts []string
			for f := shapeshift.Form(0); f.IsValid(); f++ {
				if k := r.Composition[f]; k > 0 {
					n += k
					parts = append(parts, fmt.Sprintf("%s:%d", f, k))
				}
			}
			t.Add(col.Name, tg, report.Int(int64(n)), strings.Join(parts, " "))
		}
	}
	return t
}

// allResultsTable is every result in long form (written as CSV only).
func allResultsTable(results []intsbench.Result) *report.Table {
	t := report.NewTable("ints_all", "", "column", "codec", "values", "bytes", "encode_ns_per_value", "decode_ns_per_value", "get_ns", "error")
	for _, r := range results {
		e := ""
		if r.Err != nil {
			e = r.Err.Error()
		}
		t.Add(r.Column, r.Codec, report.Int(int64(r.Values)), report.Int(int64(r.Bytes)),
			report.Float(r.Encode, 3), report.Float(r.Decode, 3), report.Float(r.Get, 3), e)
	}
	return t
}
