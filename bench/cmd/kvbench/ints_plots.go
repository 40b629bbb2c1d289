package main

import (
	"math"

	"github.com/kvenc/kvenc/bench/internal/intsbench"
	"github.com/kvenc/kvenc/bench/internal/report"
)

// sizePlot: encoded bytes per value by column (groups) and codec (bars).
func sizePlot(e *env, rs resultIndex, cols []intsbench.Column, codecs []intsbench.Codec) error {
	b := report.Bars{Title: "Encoded size by column and codec", YLabel: "bytes/value"}
	for _, c := range cols {
		b.Categories = append(b.Categories, c.Name)
	}
	for _, codec := range codecs {
		b.Series = append(b.Series, codec.Name)
		var vals []float64
		for _, c := range cols {
			v := math.NaN()
			if r, ok := rs.get(c.Name, codec.Name); ok {
				v = float64(r.Bytes) / float64(r.Values)
			}
			vals = append(vals, v)
		}
		b.Values = append(b.Values, vals)
	}
	return report.SaveBars(e.outPath("ints_size.png"), b)
}

// selectColumn is the column the select-n plot uses when present.
const selectColumn = "extendedprice"

// selectPlot: time to read n sorted random rows vs n, for every codec.
func selectPlot(e *env, cols []intsbench.Column, codecs []intsbench.Codec) error {
	col := cols[0]
	for _, c := range cols {
		if c.Name == selectColumn {
			col = c
		}
	}
	bar := report.StderrProgress(len(codecs) * len(intsbench.SelectSizes(len(col.Values))) * e.cfg.count)
	curves, err := intsbench.SelectN(col.Values, codecs, e.cfg.count, func(n string) { bar.Step("ints select " + n) })
	bar.Done()
	if err != nil {
		return err
	}
	t := report.NewTable("ints_select", "ints: time to select n sorted random rows of "+col.Name+", us (zstd: full decode)", "codec")
	for _, n := range curves[0].Ns {
		t.Columns = append(t.Columns, "n="+report.Int(int64(n)))
	}
	l := report.Lines{Title: "Time to select n rows of " + col.Name, XLabel: "n rows (log)", YLabel: "us (log)", LogX: true, LogY: true}
	for _, c := range curves {
		row := []string{c.Codec}
		line := report.Line{Name: c.Codec}
		for i, n := range c.Ns {
			row = append(row, report.NS(c.NsOp[i]/1e3))
			line.X = append(line.X, float64(n))
			line.Y = append(line.Y, c.NsOp[i]/1e3)
		}
		t.Add(row...)
		l.Lines = append(l.Lines, line)
	}
	if err := e.emit(t); err != nil {
		return err
	}
	return report.SaveLines(e.outPath("ints_select.png"), l)
}
