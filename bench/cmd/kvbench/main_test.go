package main

import (
	"bytes"
	"encoding/csv"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/colbench"
	"github.com/kvenc/kvenc/bench/internal/israce"
	"github.com/kvenc/kvenc/bench/internal/rowbench"
	"github.com/kvenc/kvenc/bench/internal/storebench"
	"github.com/kvenc/kvenc/bench/internal/ycsbbench"
	"github.com/kvenc/kvenc/blockenc"
)

// TestMain lets the store and diskfull subcommands start this test binary
// as the child process that measures one engine or fills one volume.
func TestMain(m *testing.M) {
	if isDiskfullChild() {
		if err := diskfullChild(); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	if storebench.IsChild() {
		if err := storebench.ChildMain(os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// tinyArgs make a run take seconds: 6,000-value time series, one round,
// each measurement a single iteration.
func tinyArgs(dir string, extra ...string) []string {
	return append([]string{"-quick", "-scale", "0.001", "-count", "1", "-benchtime", "1x", "-out", dir}, extra...)
}

func TestAllOnTinyData(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	results := filepath.Join(dir, "results", "RESULTS.md")
	require.NoError(t, os.Mkdir(filepath.Dir(results), 0o755))
	args := append([]string{"all"}, tinyArgs(dir, "-dataset", "timeseries,ycsb,user,random", "-results", results, "-alpfiles", "neon_air_pressure,poi_lat")...)
	require.NoError(t, run(args, &out, io.Discard), "run: %s", out.String())
	stdout := out.String()
	for _, want := range []string{
		"machine  linux/", "go       go1.", "dataset  seek key set user:", "dataset  time series:",
		"== seek:", "== seek goals", "== seek rows:", "dataset  seek rows timeseries:", "== ints: encoded bytes per value", "== ints: shapeshift chunk forms",
		"dataset  ALP samples: 2 files", "== floats: bits per value", "== floats: full decode", "== floats goals",
		"dataset  time series: the 2 ALP files", "== timeseries: kvenc's store vs Prometheus's TSDB", "== timeseries: where kvenc's bytes go", "== timeseries goals",
		"== store: kvenc", "every engine with a 8 MiB block cache", "== store load:", "== store Get throughput:", "== store goals", "dataset  store timeseries:", "dataset  store ycsb:", "== ycsb: go-ycsb core workloads",
	} {
		assert.True(t, strings.Contains(stdout, want), "stdout lacks %q", want)
	}
	assert.NotContains(t, stdout, "FAILED CHECK", "a codec failed its check")
	assert.NotContains(t, stdout, "dataset  store lineitem", "a codec failed its check")
	// name: first header, rows, numeric columns from this index on
	csvs := []struct {
		name, first string
		rows        int
		numericFrom int
	}{
		{"seek", "keyset", 2 * seekSubjects, 2},
		{"seek_goals", "keyset", 2 * 7, 2},
		{"seek_rows", "dataset", len(rowbench.Subjects), 2}, // timeseries only
		{"ints_size", "column", 4 + 1, 1},
		{"ints_decode", "column", 4 + 1, 1},
		{"ints_get", "column", 4 + 1, 1},
		{"ints_encode", "column", 4 + 1, 1},
		{"ints_forms", "column", 4 * 3, 2},
		{"ints_select", "codec", 7, 1},
		{"ints_all", "column", 4 * 7, 2},
		{"floats_size", "file", 2 + 2, 1},
		{"floats_decode", "file", 2 + 1, 1},
		{"floats_encode", "file", 2 + 1, 1},
		{"floats_forms", "file", 2, 2},
		{"floats_goals", "goal", 9, 1},
		{"floats_all", "file", 2 * 4, 2},
		{"timeseries", "engine", 2 + 1, 1},
		{"timeseries_bytes", "part", 8, 1},
		{"timeseries_goals", "goal", 4, 1},
		{"store", "dataset", 2 * len(storebench.Engines()), 2},
		{"store_load", "dataset", 2 * len(storebench.Engines()), 2},
		{"store_gets", "dataset", 2 * len(storebench.Engines()), 2},
		{"store_goals", "dataset", 2 * 16, 2},
		{"ycsb", "workload", 7 * len(ycsbGoroutines) * len(ycsbbench.Engines()), 1},
		{"ycsb_ops", "workload", -1, 2}, // a kind no engine ran in a phase has no row
		{"ycsb_puts", "engine", 2 * len(ycsbbench.Engines()), 2},
		{"ycsb_goals", "goal", 5*2*4 + 1, 1},
	}
	for _, c := range csvs {
		recs := readCSV(t, filepath.Join(dir, c.name+".csv"))
		if c.rows >= 0 && !assert.Len(t, recs, c.rows+1, "%s.csv: header %v", c.name, recs[0]) ||
			!assert.Equal(t, c.first, recs[0][0], "%s.csv: header", c.name) {
			continue
		}
		for _, rec := range recs[1:] {
			for i := c.numericFrom; i < len(rec); i++ {
				checkNumber(t, c.name, recs[0][i], rec[i])
			}
		}
	}
	plots := []string{"seek_ns", "seek_bytes", "seek_rows_bytes", "ints_size", "ints_select", "floats_size", "store_size", "store_scan", "ycsb_ops"}
	for _, name := range plots {
		checkPNG(t, filepath.Join(dir, name+".png"))
	}
	checkResults(t, results, stdout, plots)
	checkStoreCSV(t, dir)
	checkFloatsCSV(t, dir)
	checkTimeseriesCSV(t, dir)
}

// checkFloatsCSV: every codec has a size on both files, VictoriaMetrics is
// lossy on poi_lat only, and kvenc has chunk forms.
func checkFloatsCSV(t *testing.T, dir string) {
	t.Helper()
	recs := readCSV(t, filepath.Join(dir, "floats_size.csv"))
	require.Equal(t, []string{"file", "kvenc", "xor", "vm", "zstd", "alp", "vm exact"}, recs[0][:7])
	exact := map[string]string{}
	for _, rec := range recs[1:3] {
		exact[rec[0]] = rec[6]
		for i := 1; i <= 5; i++ {
			assert.NotEqual(t, "-", rec[i], "floats_size.csv %s: %s", rec[0], recs[0][i])
		}
	}
	assert.Equal(t, map[string]string{"neon_air_pressure": "yes", "poi_lat": "no"}, exact)
	for _, rec := range readCSV(t, filepath.Join(dir, "floats_forms.csv"))[1:] {
		assert.NotEmpty(t, rec[1], "floats_forms.csv %s", rec[0])
	}
}

// checkTimeseriesCSV: both engines have numbers.
func checkTimeseriesCSV(t *testing.T, dir string) {
	t.Helper()
	recs := readCSV(t, filepath.Join(dir, "timeseries.csv"))
	for _, rec := range recs[1:3] {
		for i, cell := range rec {
			assert.NotEqual(t, "-", cell, "timeseries.csv %s: %s", rec[0], recs[0][i])
		}
	}
	assert.Equal(t, []string{"kvenc", "prometheus"}, []string{recs[1][0], recs[2][0]})
}

// checkResults checks the -results page: the whole output in one code
// block and every plot, copied to docs/ beside it.
func checkResults(t *testing.T, path, stdout string, plots []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(b)
	assert.True(t, strings.HasPrefix(page, "# kvbench results\n"), "title")
	assert.Contains(t, page, "```\n"+stdout+"```\n", "the whole output in one block")
	for _, name := range plots {
		assert.Contains(t, page, "!["+name+"](docs/"+name+".png)")
		checkPNG(t, filepath.Join(filepath.Dir(path), "docs", name+".png"))
	}
	for _, word := range []string{"issue", "session", "before/after"} {
		assert.NotContains(t, strings.ToLower(page), word, "the output names what it measures, not the work's history")
	}
}

// checkStoreCSV checks the store tables hold a number in every cell that
// tiny data can fill, for every engine.
func checkStoreCSV(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{"store", "store_load", "store_gets"} {
		recs := readCSV(t, filepath.Join(dir, name+".csv"))
		var engines []string
		for _, rec := range recs[1:] {
			if rec[0] == "timeseries" {
				engines = append(engines, rec[1])
			}
			for i, cell := range rec[2:] {
				if recs[0][i+2] == "others' CPUs 4g" && runtime.GOOS != "linux" {
					continue // measured on Linux only
				}
				assert.NotEqual(t, "-", cell, "%s.csv %s %s: column %q", name, rec[0], rec[1], recs[0][i+2])
			}
		}
		var want []string
		for _, e := range storebench.Engines() {
			want = append(want, e.Name)
		}
		assert.Equal(t, want, engines, name)
	}
}

// seekSubjects is the number of rows per key set in seek.csv: one per
// blockenc encoding, then Badger's table and Pebble's rowblk.
var seekSubjects = len(blockenc.Encodings()) + 2

// checkNumber accepts numbers, ratios ("0.83x"), "-" (not measured),
// yes/no and form lists; anything else in a numeric column is a bug.
func checkNumber(t *testing.T, file, col, cell string) {
	t.Helper()
	_, err := strconv.ParseFloat(strings.TrimSuffix(cell, "x"), 64)
	ok := err == nil || cell == "-" || cell == "yes" || cell == "no" ||
		col == "forms" || col == "error" || col == "lossy" || col == "part" || col == "codec" || col == "target" || col == "engine" || col == "goal"
	assert.True(t, ok, "%s.csv column %q: %q is not a number", file, col, cell)
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err, path)
	require.NotEmpty(t, recs, path)
	return recs
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if !assert.NoError(t, err) {
		return
	}
	defer f.Close()
	img, err := png.Decode(f)
	if !assert.NoError(t, err, path) {
		return
	}
	b := img.Bounds()
	assert.GreaterOrEqual(t, b.Dx(), 300, "%s: %v is too small for a plot", path, b)
	assert.GreaterOrEqual(t, b.Dy(), 200, "%s: %v is too small for a plot", path, b)
}

// TestSeekLineitem runs the seek key set that needs dbgen (a 10 s set-up,
// minutes under -race, where it is skipped).
func TestSeekLineitem(t *testing.T) {
	if israce.Enabled || testing.Short() {
		t.Skip("dbgen set-up takes minutes under -race; make test runs this without -race")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run(append([]string{"seek"}, tinyArgs(dir, "-dataset", "lineitem")...), &out, io.Discard))
	if recs := readCSV(t, filepath.Join(dir, "seek.csv")); assert.Len(t, recs, 1+seekSubjects, "seek.csv") {
		assert.Equal(t, "lineitem", recs[1][0], "seek.csv: %v", recs)
	}
	cols, subjects := len(colbench.ColumnNames), len(colbench.Subjects)
	for _, c := range []struct {
		name        string
		rows        int
		numericFrom int
	}{
		{"seek_columns", cols, 1},
		{"seek_columns_time", cols * subjects, 2},
		{"seek_columns_goals", cols + 4 + 3, 2}, // vs Pebble zstd per column; vs FastDiff+LZ4Dict (3 low-cardinality) or the best row (comment); a scan goal per low-cardinality column
	} {
		recs := readCSV(t, filepath.Join(dir, c.name+".csv"))
		if c.rows >= 0 && !assert.Len(t, recs, c.rows+1, "%s.csv: header %v", c.name, recs[0]) ||
			!assert.Equal(t, "column", recs[0][0], "%s.csv: header", c.name) {
			continue
		}
		for _, rec := range recs[1:] {
			for i := c.numericFrom; i < len(rec); i++ {
				checkNumber(t, c.name, recs[0][i], rec[i])
			}
		}
	}
	checkPNG(t, filepath.Join(dir, "seek_columns_scan.png"))
	checkPNG(t, filepath.Join(dir, "seek_rows_bytes.png"))
	rows := readCSV(t, filepath.Join(dir, "seek_rows.csv"))
	require.Len(t, rows, 1+len(rowbench.Subjects), "seek_rows.csv")
	for i, rec := range rows[1:] {
		assert.Equal(t, "lineitem", rec[0], "seek_rows.csv row %d: %v", i+1, rec)
		assert.Equal(t, rowbench.Subjects[i].Name, rec[1], "seek_rows.csv row %d: %v", i+1, rec)
		assert.Equal(t, rows[1][2], rec[2], "seek_rows.csv row %d: %v", i+1, rec)
		for j := 2; j < len(rec); j++ {
			checkNumber(t, "seek_rows", rows[0][j], rec[j])
		}
		// Lineitem values vary in width: the IntValues subjects do not apply.
		assert.NotEqual(t, rowbench.Subjects[i].FixedOnly, rec[5] != "-", "seek_rows.csv: %s B/cell %q", rec[1], rec[5])
	}
	// Every subject of the time table has every number: the Pebble rows
	// repeat Pebble's warm measurement.
	for _, rec := range readCSV(t, filepath.Join(dir, "seek_columns_time.csv"))[1:] {
		for i, cell := range rec[2:] {
			assert.NotEqual(t, "-", cell, "seek_columns_time.csv: %s %s: no number in column %d", rec[0], rec[1], i+2)
		}
	}
}

// TestSeekCellScan checks the seek table times kvenc's scan through
// Seeker.Cell beside its Key/Value scan, with the ratio to Pebble's Next,
// and that the subjects without a Cell (Badger, Pebble) show "-".
func TestSeekCellScan(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, run(append([]string{"seek"}, tinyArgs(dir, "-dataset", "user")...), io.Discard, io.Discard))
	recs := readCSV(t, filepath.Join(dir, "seek.csv"))
	require.Len(t, recs, 1+seekSubjects)
	col := -1
	for i, h := range recs[0] {
		if h == "Next via Cell ns/cell" {
			col = i
		}
	}
	require.Positive(t, col, "seek.csv header %v", recs[0])
	require.Equal(t, "vs pebble", recs[0][col+1])
	require.Equal(t, "Next ns/cell", recs[0][col-2], "the Cell scan sits beside the Key/Value scan")
	for _, rec := range recs[1:] {
		name := rec[1]
		if !strings.HasPrefix(name, "kvenc-") {
			assert.Equal(t, []string{"-", "-"}, rec[col:col+2], name)
			continue
		}
		ns, err := strconv.ParseFloat(rec[col], 64)
		require.NoError(t, err, name)
		assert.Positive(t, ns, name)
		ratio, err := strconv.ParseFloat(strings.TrimSuffix(rec[col+1], "x"), 64)
		require.NoError(t, err, name)
		assert.Positive(t, ratio, name)
	}
	var goal []string
	for _, rec := range readCSV(t, filepath.Join(dir, "seek_goals.csv"))[1:] {
		if rec[1] == "RowIndex Next via Cell ns/cell <= pebble" {
			goal = rec
		}
	}
	require.NotNil(t, goal, "seek_goals.csv has the Cell scan goal")
	assert.Contains(t, []string{"yes", "no"}, goal[len(goal)-1])
	assert.NotEqual(t, "-", goal[2])
}

func TestCPUProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.prof")
	require.NoError(t, run(append([]string{"seek"}, tinyArgs(dir, "-dataset", "random", "-cpuprofile", prof)...), io.Discard, io.Discard))
	if fi, err := os.Stat(prof); assert.NoError(t, err, "profile") {
		assert.NotZero(t, fi.Size(), "profile size")
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"nosuch"},
		{"seek", "-dataset", "nosuch"},
		{"seek", "-scale", "2"},
		{"seek", "extra"},
	} {
		_, _, err := parseFlags(args, io.Discard)
		assert.Error(t, err, "parseFlags(%q)", args)
	}
	cfg, cmd, err := parseFlags([]string{"-count", "2", "ints", "-quick", "-dataset", "timeseries"}, io.Discard)
	assert.NoError(t, err)
	assert.Equal(t, "ints", cmd)
	assert.Equal(t, 2, cfg.count, "-count")
	assert.True(t, cfg.quick, "-quick")
	assert.Equal(t, "25ms", cfg.benchtime, "-benchtime with -quick")
	assert.True(t, cfg.uses("timeseries"), "-dataset timeseries")
	assert.False(t, cfg.uses("lineitem"), "-dataset timeseries")
}

func TestCacheFlag(t *testing.T) {
	for _, c := range []struct {
		flag string
		want int64
	}{{"8MiB", 8 << 20}, {"1048576", 1 << 20}, {"64KiB", 64 << 10}, {"2GiB", 2 << 30}} {
		cfg, _, err := parseFlags([]string{"store", "-cache", c.flag}, io.Discard)
		require.NoError(t, err, c.flag)
		assert.Equal(t, c.want, cfg.cache, c.flag)
	}
	cfg, _, err := parseFlags([]string{"store", "-quick"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int64(8<<20), cfg.cache, "default")
	for _, bad := range []string{"", "0", "-1MiB", "8MB", "1.5MiB", "9999999999GiB"} {
		_, _, err := parseFlags([]string{"store", "-cache", bad}, io.Discard)
		assert.ErrorContains(t, err, "-cache", bad)
	}
	assert.Equal(t, "8 MiB", sizeString(8<<20))
	assert.Equal(t, "1000 B", sizeString(1000))
}

func TestStoreOptions(t *testing.T) {
	cfg, _, err := parseFlags([]string{"store", "-quick"}, io.Discard)
	require.NoError(t, err)
	o := storeOptions(cfg)
	assert.Equal(t, storebench.Options{Cache: 8 << 20, Rounds: 3, Gets: 5_000, ZipfGets: 5_000, Seeks: 2_500,
		Duration: 100 * time.Millisecond, Sweeps: 2, Goroutines: []int{1, 2, 4, 8}}, o)
	cfg, _, err = parseFlags([]string{"store"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 400*time.Millisecond, storeOptions(cfg).Duration, "twice the default -benchtime")
	cfg, _, err = parseFlags([]string{"store", "-benchtime", "1x", "-count", "1"}, io.Discard)
	require.NoError(t, err)
	o = storeOptions(cfg)
	assert.Equal(t, 10*time.Millisecond, o.Duration)
	assert.Equal(t, 20_000, o.Gets)
	assert.Equal(t, 1, o.Rounds)
}

// TestStoreGoalsTable: goals read the right engines and directions.
func TestStoreGoalsTable(t *testing.T) {
	r := func(name string, p50 float64, zipf float64, disk int64, par ...float64) storebench.Result {
		return storebench.Result{Engine: name, GetP50: p50, GetP99: 2 * p50, Zipf: zipf, ZipfAfterScan: zipf / 2,
			SeekNext: 1000, ColdScan: 100, WarmScan: 50, ReverseScan: 70, DiskBytes: disk, Write: time.Second, Parallel: par}
	}
	rs := []storebench.Result{
		r(storebench.KvencName, 10, 100, 30, 10, 15, 20, 20),
		r(storebench.BadgerName, 20, 100, 100),
		r(storebench.BadgerNoneName, 5, 50, 100),
		r(storebench.BadgerZstdName, 20, 50, 50),
		{Engine: storebench.PebbleName, Err: assert.AnError},
		r(storebench.PebbleZstdName, 20, 50, 40),
	}
	goals := storeGoals([]storeSet{{name: "d"}}, [][]storebench.Result{rs})
	got := map[string][]string{}
	for _, row := range goals.Rows {
		got[row[1]] = row[2:]
	}
	assert.Equal(t, []string{"0.500", "1.00", "yes"}, got["get p50 <= 1.0x badger"])
	assert.Equal(t, []string{"2.000", "1.50", "no"}, got["get p50 <= 1.5x badger-none"])
	assert.Equal(t, []string{"1.000", "1.00", "yes"}, got["zipf gets/s >= 1.0x badger"])
	assert.Equal(t, []string{"0.500", "0.90", "no"}, got["zipf gets/s after a scan >= 0.9x badger's"])
	assert.Equal(t, []string{"-", "1.00", "-"}, got["seek+10 <= 1.0x pebble"], "pebble failed: no number")
	assert.Equal(t, []string{"0.300", "0.35", "yes"}, got["disk <= 0.35x badger-none"])
	assert.Equal(t, []string{"0.750", "0.80", "yes"}, got["disk <= 0.8x pebble-zstd"])
	assert.Equal(t, []string{"2.000", "1.60", "yes"}, got["4-goroutine gets/s >= 1.6x kvenc's 1-goroutine"])
	assert.Equal(t, []string{"1.400", "1.50", "yes"}, got["reverse scan <= 1.5x kvenc's warm scan"])
	assert.Len(t, goals.Rows, 16)
}

// TestEnginesFlag: -engines picks store's engines (kvenc-set only when
// named or with -kvenc) and refuses unknown names.
func TestEnginesFlag(t *testing.T) {
	names := func(args ...string) []string {
		cfg, _, err := parseFlags(append([]string{"store"}, args...), io.Discard)
		require.NoError(t, err)
		var n []string
		for _, e := range storeEngines(cfg) {
			n = append(n, e.Name)
		}
		return n
	}
	assert.Equal(t, []string{"kvenc", "pebble-zstd"}, names("-engines", "pebble-zstd,kvenc"))
	assert.Equal(t, []string{"kvenc-set"}, names("-engines", "kvenc-set"))
	assert.NotContains(t, names(), "kvenc-set")
	assert.Contains(t, names("-kvenc", "CompactionLevel=12"), "kvenc-set")
	assert.Len(t, names(), len(storeEngineNames())-1)
	_, _, err := parseFlags([]string{"store", "-engines", "kvenc,leveldb"}, io.Discard)
	assert.Error(t, err)
}
