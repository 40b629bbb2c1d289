package storebench

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// TestMain lets RunChild start this test binary as its child.
func TestMain(m *testing.M) {
	if IsChild() {
		if err := ChildMain(os.Stdin, os.Stdout, os.Stderr); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// smallOptions are passes of a few dozen operations.
func smallOptions() Options {
	return Options{Cache: 1 << 20, Rounds: 2, Gets: 50, ZipfGets: 40, Seeks: 20,
		Duration: 5 * time.Millisecond, Sweeps: 2, Goroutines: []int{1, 2}}
}

// checkFilled asserts every number of a 2-round smallOptions run is there.
func checkFilled(t *testing.T, r Result, cells int) {
	t.Helper()
	require.NoError(t, r.Err, r.Engine)
	assert.Equal(t, cells, r.Cells, r.Engine)
	assert.Positive(t, r.DiskBytes, r.Engine)
	assert.Positive(t, r.Written, r.Engine)
	assert.Positive(t, r.Write, r.Engine)
	assert.Positive(t, r.Flush, r.Engine)
	assert.Positive(t, r.Compact, r.Engine)
	assert.Equal(t, r.Write+r.Flush+r.Compact, r.Load(), r.Engine)
	for name, v := range map[string]float64{"cold scan": r.ColdScan, "warm scan": r.WarmScan, "reverse scan": r.ReverseScan, "p50": r.GetP50,
		"zipf": r.Zipf, "zipf after scan": r.ZipfAfterScan, "seek": r.SeekNext} {
		assert.Positive(t, v, "%s %s", r.Engine, name)
	}
	assert.GreaterOrEqual(t, r.GetP99, r.GetP50, r.Engine)
	require.Len(t, r.Parallel, 2, r.Engine)
	assert.Positive(t, r.Parallel[0], r.Engine)
	assert.Positive(t, r.Parallel[1], r.Engine)
	require.Len(t, r.ParallelOthers, 2, r.Engine)
	for _, v := range r.ParallelOthers {
		if runtime.GOOS == "linux" {
			assert.GreaterOrEqual(t, v, 0.0, r.Engine)
		} else {
			assert.True(t, math.IsNaN(v), r.Engine)
		}
	}
	// Per round: the cold scan, the warm scan, the backward scan and the
	// scan between the zipfian passes.
	assert.Equal(t, 2*4, r.ScanCount, r.Engine)
	assert.Equal(t, 2*50, r.GetCount, r.Engine)
}

// TestEnginesOnSmallData loads a few hundred cells into every engine in
// this process and checks the harness' own checks pass and every number
// is filled in.
func TestEnginesOnSmallData(t *testing.T) {
	kvs := dataset.SeriesCells(200) // kvbench's tests run the other layouts
	for _, e := range Engines() {
		var steps []string
		r := Measure(e, t.TempDir(), kvs, smallOptions(), func(s string) { steps = append(steps, s) })
		checkFilled(t, r, len(kvs))
		assert.Equal(t, []string{e.Name + " load", e.Name + " reads", e.Name + " reads"}, steps)
		assert.Zero(t, r.PeakRSS, "measured only by the child")
	}
}

// TestRunChild measures engines in child processes (this test binary,
// through TestMain) and checks the result crosses over whole, with the
// child's peak RSS on Linux.
func TestRunChild(t *testing.T) {
	kvs := dataset.YCSBCells(300)
	data := filepath.Join(t.TempDir(), "cells")
	require.NoError(t, WriteData(data, kvs))
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, name := range []string{KvencName, BadgerName, PebbleName} {
		steps := 0
		r := RunChild(exe, name, data, t.TempDir(), smallOptions(), func(string) { steps++ }, io.Discard)
		checkFilled(t, r, len(kvs))
		assert.Equal(t, 3, steps, name)
		if runtime.GOOS == "linux" {
			assert.Positive(t, r.BaseRSS, name)
			assert.GreaterOrEqual(t, r.PeakRSS, r.BaseRSS, name)
		}
	}
	r := RunChild(exe, "nosuch", data, t.TempDir(), smallOptions(), func(string) {}, io.Discard)
	require.Error(t, r.Err)
	assert.Contains(t, r.Err.Error(), `unknown engine "nosuch"`)
	r = RunChild(exe, KvencName, filepath.Join(t.TempDir(), "missing"), t.TempDir(), smallOptions(), func(string) {}, io.Discard)
	require.Error(t, r.Err)
	assert.Contains(t, r.Err.Error(), "child process")
}

// TestRunChildReportsFailedCheck: an engine whose reads fail its checks
// in the child comes back as an error, never as numbers.
func TestRunChildReportsFailedCheck(t *testing.T) {
	kvs := dataset.YCSBCells(100)
	kvs = append(kvs, dataset.KV{Key: kvs[0].Key, Value: []byte("a second value for the same key")})
	data := filepath.Join(t.TempDir(), "cells")
	require.NoError(t, WriteData(data, kvs))
	exe, err := os.Executable()
	require.NoError(t, err)
	r := RunChild(exe, PebbleName, data, t.TempDir(), smallOptions(), func(string) {}, io.Discard)
	require.Error(t, r.Err)
	assert.Contains(t, r.Err.Error(), "scan returned 100 cells, loaded 101")
}

func TestDataRoundTrip(t *testing.T) {
	kvs := append(dataset.YCSBCells(50), dataset.KV{Key: []byte("k"), Value: []byte{}}, dataset.KV{Key: []byte{0}, Value: make([]byte, 300)})
	path := filepath.Join(t.TempDir(), "cells")
	require.NoError(t, WriteData(path, kvs))
	got, err := ReadData(path)
	require.NoError(t, err)
	require.Len(t, got, len(kvs))
	for i := range kvs {
		assert.Equal(t, kvs[i].Key, got[i].Key, i)
		assert.Equal(t, len(kvs[i].Value), len(got[i].Value), i)
		assert.Equal(t, string(kvs[i].Value), string(got[i].Value), i)
	}
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b[:len(b)-1], 0o644))
	_, err = ReadData(path)
	assert.ErrorContains(t, err, "bad value length")
}

// TestZipfSpread: the zipf rank -> cell map is a bijection, and the
// hottest ranks land far apart in the key space.
func TestZipfSpread(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 10, 12, 1000, 600_572} {
		s := spreadStride(n)
		require.Equal(t, uint64(1), gcd(s, max(n, 1)), "n=%d stride %d", n, s)
		if n > 1000 {
			continue
		}
		seen := make(map[uint64]bool)
		for r := range n {
			seen[r*s%n] = true
		}
		assert.Len(t, seen, int(n), "n=%d", n)
	}
	n := uint64(600_572)
	s := spreadStride(n)
	for r := range uint64(10) {
		d := int64((r+1)*s%n) - int64(r*s%n)
		assert.Greater(t, max(d, -d), int64(n/10), "ranks %d and %d", r, r+1)
	}
}

// TestPassRate: the rate is all Gets over all time of the quiet passes,
// or of every pass when none was quiet (or nothing is known of others).
func TestPassRate(t *testing.T) {
	ms := time.Millisecond
	quiet1 := pass{gets: 1000, elapsed: 100 * ms, others: 0.05}
	quiet2 := pass{gets: 3000, elapsed: 200 * ms, others: 0.2}
	busy := pass{gets: 500, elapsed: 100 * ms, others: 1}
	ops, others := passRate([]pass{quiet1, busy, quiet2})
	assert.InDelta(t, 4000/0.3, ops, 1e-6, "the busy pass is left out; a sum over time, not a median of rates")
	assert.InDelta(t, (0.05*0.1+0.2*0.2)/0.3, others, 1e-9)
	ops, others = passRate([]pass{busy, {gets: 900, elapsed: 100 * ms, others: 2}})
	assert.InDelta(t, 1400/0.2, ops, 1e-6, "no quiet pass: every pass counts")
	assert.InDelta(t, 1.5, others, 1e-9)
	unknown := pass{gets: 700, elapsed: 100 * ms, others: math.NaN()}
	ops, others = passRate([]pass{unknown, unknown})
	assert.InDelta(t, 7000, ops, 1e-6)
	assert.True(t, math.IsNaN(others))
	ops, others = passRate(nil)
	assert.True(t, math.IsNaN(ops))
	assert.True(t, math.IsNaN(others))
}

func TestOthersBusy(t *testing.T) {
	ms := time.Millisecond
	a := cpuSample{machine: 1000 * ms, self: 100 * ms, ok: true}
	b := cpuSample{machine: 1300 * ms, self: 200 * ms, ok: true}
	assert.InDelta(t, 2.0, othersBusy(a, b, 100*ms), 1e-9, "300 ms busy in 100 ms, 100 ms of it this process")
	b.machine = 1090 * ms // a coarse machine count below this process's own
	assert.Zero(t, othersBusy(a, b, 100*ms))
	assert.True(t, math.IsNaN(othersBusy(a, cpuSample{}, 100*ms)))
}

// TestSampleCPU: this process's CPU time shows in its own count and in
// the machine's, which counts in coarser ticks.
func TestSampleCPU(t *testing.T) {
	a := sampleCPU()
	if runtime.GOOS != "linux" {
		assert.False(t, a.ok)
		return
	}
	require.True(t, a.ok)
	// The machine's count may lag by up to a tick per CPU at each end;
	// burn 100 ms more than that, so that the check below needs the
	// machine's count to have moved.
	slack := 4 * clockTick * time.Duration(runtime.NumCPU())
	x := 0
	b := a
	for ; b.self-a.self < slack+100*time.Millisecond; b = sampleCPU() {
		require.True(t, b.ok)
		for i := range 100_000 {
			x += i
		}
	}
	assert.GreaterOrEqual(t, b.machine-a.machine, b.self-a.self-slack, "machine CPU against this process's (x %d)", x)
}

// mapDB is a DB over a map, for the read passes.
type mapDB struct {
	DB
	m map[string][]byte
}

func (d mapDB) Get(dst, key []byte) ([]byte, error) { return append(dst, d.m[string(key)]...), nil }

// TestParallelRound: every round adds o.Sweeps passes per goroutine count
// (the warm-up pass is not counted), each with Gets in it.
func TestParallelRound(t *testing.T) {
	kvs := dataset.YCSBCells(100)
	db := mapDB{m: map[string][]byte{}}
	for _, kv := range kvs {
		db.m[string(kv.Key)] = kv.Value
	}
	o := Options{Duration: time.Millisecond, Sweeps: 3, Goroutines: []int{1, 2, 4}}
	rd := newReader(kvs, o)
	for range 2 {
		require.NoError(t, rd.parallelRound(db))
	}
	for i := range o.Goroutines {
		require.Len(t, rd.parallel[i], 6, "goroutines %d", o.Goroutines[i])
		for _, p := range rd.parallel[i] {
			assert.GreaterOrEqual(t, p.gets, o.Goroutines[i], "every goroutine does at least one Get")
			assert.Positive(t, p.elapsed)
		}
	}
	for k := range db.m {
		db.m[k] = []byte("wrong")
	}
	err := newReader(kvs, o).parallelRound(db)
	assert.ErrorContains(t, err, "warm-up pass: get ")
	assert.ErrorContains(t, err, "wrong value")
}
