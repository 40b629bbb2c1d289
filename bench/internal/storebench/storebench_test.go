package storebench

import (
	"io"
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
		Duration: 5 * time.Millisecond, Goroutines: []int{1, 2}}
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
