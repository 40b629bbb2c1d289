package main

import (
	"fmt"
	"math"

	"github.com/kvenc/kvenc/bench/internal/measure"
	"github.com/kvenc/kvenc/bench/internal/report"
	"github.com/kvenc/kvenc/bench/internal/tsbench"
	"github.com/kvenc/kvenc/kv"
)

// seriesDays is how many days of samples each series holds at -scale 1.
const seriesDays = 30

func runTimeseries(e *env) error {
	files, err := e.alpFiles()
	if err != nil {
		return err
	}
	n := max(2, int(e.cfg.scale*seriesDays*tsbench.PerDay))
	series := tsbench.Make(files, n)
	e.dataset("time series: the %d ALP files replayed as series of %d samples each (%.1f days, every 15 s with up to 1 s jitter), %d samples", len(series), n, float64(n)/tsbench.PerDay, tsbench.Samples(series))
	dir, err := e.tempDir()
	if err != nil {
		return err
	}
	defer e.removeTemp(dir)
	fmt.Fprintln(e.stdout)
	bar := report.StderrProgress(len(tsbench.Engines) * (n/1000 + len(tsbench.Spans)*e.cfg.count))
	results := tsbench.Run(dir, series, e.cfg.count, func(s string) { bar.Step("timeseries " + s) })
	bar.Done()
	bd, err := tsbench.MeasureBreakdown(series)
	if err != nil {
		return err
	}
	for _, r := range results {
		if r.Err != nil {
			fmt.Fprintf(e.stdout, "timeseries: FAILED CHECK, no numbers for it: %v\n", r.Err)
		}
	}
	kvr, prom := results[0], results[1]
	for _, t := range []*report.Table{tsTable(results), tsDiskTable(results), tsBytesTable(kvr, prom, bd), tsGoals(kvr, prom, bd)} {
		if err := e.emit(t); err != nil {
			return err
		}
	}
	return nil
}

// perSample is bytes per sample, NaN for a failed engine.
func perSample(r tsbench.Result, bytes int64) float64 {
	if r.Err != nil {
		return math.NaN()
	}
	return float64(bytes) / float64(r.Samples)
}

// blockBytes is Prometheus's bytes in blocks, or a kvenc directory's
// whole.
func blockBytes(r tsbench.Result) int64 {
	for _, p := range r.Disk {
		if p.Name == "blocks" {
			return p.Bytes
		}
	}
	return r.DiskBytes
}

func tsTable(results []tsbench.Result) *report.Table {
	t := report.NewTable("timeseries", "timeseries: kvenc's store vs Prometheus's TSDB, the same samples",
		"engine", "samples", "disk bytes", "B/sample", "B/sample compacted", "ingest samples/s", "compact s", "query 1h us", "query 1d us", "samples 1h", "samples 1d")
	vals := make([][]float64, len(results))
	for k, r := range results {
		v := []float64{perSample(r, r.DiskBytes), perSample(r, blockBytes(r)), math.NaN(), math.NaN()}
		if r.Err == nil {
			v[2], v[3] = float64(r.Samples)/r.Ingest.Seconds(), r.Compact.Seconds()
		}
		for i := range tsbench.Spans {
			v = append(v, r.Query[i]/1e3)
		}
		vals[k] = v
		row := []string{r.Engine, report.Int(int64(r.Samples)), report.Int(r.DiskBytes),
			report.Float(v[0], 2), report.Float(v[1], 2), report.Float(v[2], 0), report.Float(v[3], 2)}
		for i := range tsbench.Spans {
			row = append(row, report.NS(v[4+i]))
		}
		for i := range tsbench.Spans {
			row = append(row, report.Float(r.QuerySamples[i], 0))
		}
		t.Add(row...)
	}
	if len(results) == 2 {
		row := []string{"kvenc/prometheus", "-", report.Ratio(float64(results[0].DiskBytes), float64(results[1].DiskBytes))}
		for i := range vals[0] {
			row = append(row, report.Ratio(vals[0][i], vals[1][i]))
		}
		t.Add(append(row, "-", "-")...)
	}
	t.Note("B/sample: the whole directory after the last Close, timestamps and series keys included; compacted: Prometheus's blocks alone (its WAL left out), kvenc's whole directory.")
	t.Note("ingest: one batch per scrape (a sample of every series); compact: kvenc Flush+Compact, Prometheus CompactHead of the whole head into one block.")
	t.Note("queries: one series, a window of 1 hour or 1 day, median of -count rounds over %d windows each, the engine reopened after compaction.", tsbench.Queries)
	return t
}

func tsDiskTable(results []tsbench.Result) *report.Table {
	t := report.NewTable("timeseries_disk", "timeseries: bytes on disk by part", "engine", "part", "bytes", "B/sample")
	for _, r := range results {
		for _, p := range r.Disk {
			t.Add(r.Engine, p.Name, report.Int(p.Bytes), report.Float(perSample(r, p.Bytes), 3))
		}
	}
	return t
}

func tsBytesTable(kvr, prom tsbench.Result, bd tsbench.Breakdown) *report.Table {
	t := report.NewTable("timeseries_bytes", "timeseries: where kvenc's bytes go, bytes per sample", "part", "B/sample")
	add := func(name string, v float64) { t.Add(name, report.Float(v, 3)) }
	add("kvenc blocks (as compaction writes them)", bd.Blocks)
	add("  keys and block overhead", bd.KeysOnly)
	add("  values", bd.NoSeq-bd.KeysOnly)
	add("  seqs", bd.Blocks-bd.NoSeq)
	add("values as a float column per block", bd.FloatValues)
	add("kvenc store beyond its blocks (disk - blocks)", perSample(kvr, kvr.DiskBytes)-bd.Blocks)
	add("prometheus timestamps in XOR chunks", bd.PromTimestamps)
	add("prometheus blocks", perSample(prom, blockBytes(prom)))
	t.Note("blocks re-encoded with blockenc at kv's defaults (Columnar, LZ4Dict, level %d, %d-byte blocks, %d blocks) without a segment dictionary;", kv.DefaultCompactionLevel, kv.DefaultBlockSize, bd.BlockCount)
	t.Note("again with every seq 0 (seqs = the difference) and with every value the same (values = the difference);")
	t.Note("the float column: each block's values alone through shapeshift.EncodeFloat64 (default options), beside what the Columnar block keeps for them.")
	return t
}

// roundRatio is the median over rounds of a's query time over b's, for
// span i, taken in the same round; NaN if either failed.
func roundRatio(a, b tsbench.Result, i int) float64 {
	if a.Err != nil || b.Err != nil || len(a.QueryRounds[i]) != len(b.QueryRounds[i]) {
		return math.NaN()
	}
	r := make([]float64, len(a.QueryRounds[i]))
	for k := range r {
		r[k] = a.QueryRounds[i][k] / b.QueryRounds[i][k]
	}
	return measure.MedianOf(r)
}

func tsGoals(kvr, prom tsbench.Result, bd tsbench.Breakdown) *report.Table {
	t := newGoalTable("timeseries_goals", "timeseries goals: kvenc's store against Prometheus's TSDB")
	add := func(goal string, v, limit float64, ok bool) { t.add(goal, v, limit, ok, 3) }
	r := perSample(kvr, kvr.DiskBytes) / perSample(prom, blockBytes(prom))
	add("B/sample after compaction / prometheus blocks", r, 0.7, r <= 0.7)
	r = perSample(kvr, kvr.DiskBytes) / perSample(prom, prom.DiskBytes)
	add("B/sample after compaction / prometheus directory", r, 0.7, r <= 0.7)
	r = roundRatio(kvr, prom, 1)
	add("1-day query time / prometheus (median of rounds)", r, 1, r <= 1)
	add("keys+seqs B/sample - prometheus timestamps B/sample", bd.KeysOnly+bd.Blocks-bd.NoSeq-bd.PromTimestamps, 0, bd.KeysOnly+bd.Blocks-bd.NoSeq <= bd.PromTimestamps)
	return t.Table
}
