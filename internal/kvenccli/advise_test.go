package kvenccli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv"
)

// runCmd runs the command and returns its exit status, stdout and stderr.
func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run("kvenc", args, &out, &errb, nil)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	code, _, stderr := runCmd()
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "usage: kvenc")
	code, _, stderr = runCmd("frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "frobnicate"`)
	code, _, stderr = runCmd("advise")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give one of --csv FILE, --badger DIR or --store DIR")
	code, _, stderr = runCmd("advise", "--csv", "x.csv", "--key", "a")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `"a" is not a column number`)
	code, _, _ = runCmd("advise", "-h")
	assert.Equal(t, exitOK, code)
}

func TestParseKeySpec(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want []keyPart
		err  string
	}{
		{spec: "1", want: []keyPart{{col: 1}}},
		{spec: "0", want: []keyPart{{col: 0, width: 8}}},
		{spec: "1:u8,4:4", want: []keyPart{{col: 1, width: 8, unsigned: true}, {col: 4, width: 4}}},
		{spec: "", err: "--key is required"},
		{spec: "1:3", err: `width "3"`},
		{spec: "-1", err: "not a column number"},
	} {
		got, err := parseKeySpec(tc.spec)
		if tc.err != "" {
			require.ErrorIs(t, err, errUsage, tc.spec)
			assert.Contains(t, err.Error(), tc.err)
			continue
		}
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.want, got, tc.spec)
	}
}

// TestAppendIntOrder: the byte order of the key integers is their
// numeric order, and values that do not fit are refused.
func TestAppendIntOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, w := range []int{1, 2, 4, 8} {
		for _, unsigned := range []bool{false, true} {
			var vals []int64
			for range 200 {
				v := rng.Int64() >> (64 - 8*w)
				if unsigned {
					v = int64(rng.Uint64() >> (64 - 8*w + 1))
				}
				vals = append(vals, v)
			}
			for i := 1; i < len(vals); i++ {
				a, err := appendInt(nil, vals[i-1], w, unsigned)
				require.NoError(t, err)
				b, err := appendInt(nil, vals[i], w, unsigned)
				require.NoError(t, err)
				require.Len(t, a, w)
				want := 0
				if vals[i-1] < vals[i] {
					want = -1
				} else if vals[i-1] > vals[i] {
					want = 1
				}
				require.Equal(t, want, bytes.Compare(a, b), "w=%d unsigned=%v %d %d", w, unsigned, vals[i-1], vals[i])
			}
		}
	}
	_, err := appendInt(nil, 128, 1, false)
	assert.Error(t, err)
	_, err = appendInt(nil, 256, 1, true)
	assert.Error(t, err)
	_, err = appendInt(nil, -1, 4, true)
	assert.Error(t, err)
}

// writeCSV writes n rows "id,name,count" with ids out of order and one
// repeated, and returns the path.
func writeCSV(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,city,count\n")
	rng := rand.New(rand.NewPCG(5, 6))
	cities := []string{"Basel", "Zurich", "Geneva", "Bern"}
	for i := range n {
		id := (i * 7919) % n
		fmt.Fprintf(&b, "%d,%s,%d\n", id, cities[rng.IntN(len(cities))], rng.IntN(1000))
	}
	fmt.Fprintf(&b, "%d,Lugano,1\n", n-1) // repeats the key n-1: the last row wins
	path := filepath.Join(t.TempDir(), "cells.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	return path
}

func TestReadCSV(t *testing.T) {
	path := writeCSV(t, 500)
	key, err := parseKeySpec("1:4")
	require.NoError(t, err)
	cells, err := readCSV(csvSource{path: path, header: true, key: key, limit: 1 << 20})
	require.NoError(t, err)
	require.Len(t, cells, 500)
	for i, c := range cells {
		want, _ := appendInt(nil, int64(i), 4, false)
		require.Equal(t, want, c.Key, "cell %d", i)
	}
	assert.Equal(t, "Lugano,1", string(cells[499].Value))
	assert.True(t, slices.IsSortedFunc(cells, blockenc.Compare))

	cells, err = readCSV(csvSource{path: path, header: true, key: key, value: 3, valueAs: "int", limit: 10})
	require.NoError(t, err)
	require.Len(t, cells, 10)
	for _, c := range cells {
		require.Len(t, c.Value, 8)
	}
	_, err = readCSV(csvSource{path: path, header: true, key: key, value: 2, valueAs: "int", limit: 10})
	assert.ErrorContains(t, err, "is not an integer")
}

// adviseNumbers parses advise's table: option name -> B/cell, get us.
func adviseNumbers(t *testing.T, out string) map[string][2]float64 {
	t.Helper()
	row := regexp.MustCompile(`(?m)^(\S.*?)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+\d+\s+[\d.]+\s+[\d.]+\s+\d+`)
	got := map[string][2]float64{}
	for _, m := range row.FindAllStringSubmatch(out, -1) {
		size, err := strconv.ParseFloat(m[3], 64)
		require.NoError(t, err)
		get, err := strconv.ParseFloat(m[4], 64)
		require.NoError(t, err)
		got[m[1]] = [2]float64{size, get}
	}
	return got
}

func TestAdviseCSV(t *testing.T) {
	path := writeCSV(t, 3000)
	code, out, stderr := runCmd("advise", "--csv", path, "--header", "--key", "1:4", "--quick", "--gets", "50", "--rounds", "1")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "sample: 3000 cells from "+path)
	rows := adviseNumbers(t, out)
	cs := candidates(true)
	require.Len(t, rows, len(cs), out)
	for _, c := range cs {
		require.Contains(t, rows, c.name())
	}
	// The smallest is the row with the fewest bytes per cell.
	m := regexp.MustCompile(`(?m)^smallest \(fewest bytes per cell\): (.*?), ([\d.]+) B/cell`).FindStringSubmatch(out)
	require.NotNil(t, m, out)
	for name, v := range rows {
		assert.GreaterOrEqual(t, v[0], rows[m[1]][0], name)
	}
	for _, g := range goals {
		assert.Contains(t, out, "\n"+g.name+" (")
	}
	assert.Contains(t, out, "o := kv.DefaultOptions(dir)")
}

// TestEncodeSegment: every candidate's blocks read back the cells in
// order, the block index holds each block's last key, and a segment
// dictionary is at most the size asked for.
func TestEncodeSegment(t *testing.T) {
	path := writeCSV(t, 2000)
	key, _ := parseKeySpec("1:4")
	cells, err := readCSV(csvSource{path: path, header: true, key: key, limit: 1 << 20})
	require.NoError(t, err)
	for _, c := range candidates(false) {
		if c.block.CompressionLevel == blockenc.MaxCompressionLevel {
			continue // the slowest parse writes the same format as level 9
		}
		seg, err := encodeSegment(cells, c)
		require.NoError(t, err, c.name())
		n := 0
		for b, blk := range seg.blocks {
			s, err := blockenc.NewSeekerDict(blk, seg.dict)
			require.NoError(t, err)
			for s.Next() {
				require.Equal(t, cells[n].Key, s.Key(), "%s block %d", c.name(), b)
				require.Equal(t, cells[n].Value, s.Value())
				n++
			}
			require.NoError(t, s.Err())
			require.Equal(t, seg.lastKeys[b], cells[n-1].Key)
		}
		require.Equal(t, len(cells), n, c.name())
		if c.dictSize > 0 && c.block.Compression == blockenc.LZ4Dict {
			require.NotNil(t, seg.dict, c.name())
			assert.LessOrEqual(t, len(seg.dict.Bytes()), c.dictSize)
		}
	}
}

// TestDefaultCandidate: advise's "kv default" is kv's defaults.
func TestDefaultCandidate(t *testing.T) {
	o := kv.DefaultOptions("")
	want := o.Block
	want.CompressionLevel = o.CompactionLevel
	assert.Equal(t, want, kvDefault.block)
	assert.Equal(t, o.BlockSize, kvDefault.blockSize)
	assert.Equal(t, o.DictSize, kvDefault.dictSize)
	assert.Contains(t, candidates(false), kvDefault)
	assert.Contains(t, candidates(true), kvDefault)
}

// TestCandidateOptions: the kv.Options advise prints are what kv opens a
// store with, for every candidate, and they make the blocks measured.
func TestCandidateOptions(t *testing.T) {
	for _, c := range candidates(false) {
		o := c.kvOptions("")
		s, err := kv.Open(o)
		require.NoError(t, err, c.name())
		require.NoError(t, s.Put([]byte("k"), []byte("v")))
		require.NoError(t, s.Close())
		assert.Equal(t, c.block.Encoding, o.Block.Encoding)
		assert.Equal(t, c.block.Compression, o.Block.Compression)
		assert.Equal(t, c.blockSize, o.BlockSize)
		if c.block.Compression != blockenc.NoCompression {
			wantLevel := c.block.CompressionLevel
			if wantLevel == 0 {
				wantLevel = -1
			}
			assert.Equal(t, wantLevel, o.CompactionLevel, c.name())
		}
		if c.block.Compression == blockenc.LZ4Dict {
			assert.Equal(t, c.dictSize, o.DictSize, c.name())
		}
	}
	code := kvDefault.goCode()
	assert.Equal(t, `o := kv.DefaultOptions(dir)
o.Block = blockenc.Options{
	Encoding:        blockenc.Columnar,
	RestartInterval: 16,
	Compression:     blockenc.LZ4Dict,
	DedupeValues:    true,
	IntValues:       true,
}
o.BlockSize = 16 << 10
o.DictSize = 64<<10 - 1
o.CompactionLevel = 9
`, code)
}

// makeBadger writes n keys under prefix "p/" and n under "q/" to a new
// Badger directory.
func makeBadger(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	wb := db.NewWriteBatch()
	for i := range n {
		for _, p := range []string{"p/", "q/"} {
			k := binary.BigEndian.AppendUint32([]byte(p), uint32(i))
			require.NoError(t, wb.Set(k, []byte(fmt.Sprintf("value %d of %s", i%37, p))))
		}
	}
	require.NoError(t, wb.Flush())
	require.NoError(t, db.Close())
	return dir
}

func TestAdviseBadger(t *testing.T) {
	dir := makeBadger(t, 2000)
	code, out, stderr := runCmd("advise", "--badger", dir, "--prefix", "p/", "--quick", "--gets", "50", "--rounds", "1")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, fmt.Sprintf("sample: 2000 cells from %s prefix \"p/\"", dir))

	cells, err := readBadger(dir, []byte("q/"), 100)
	require.NoError(t, err)
	require.Len(t, cells, 100)
	assert.Equal(t, "q/\x00\x00\x00\x63", string(cells[99].Key))

	// A DB open in another process (here: another handle) is named so.
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	code, _, stderr = runCmd("advise", "--badger", dir, "--quick")
	require.NoError(t, db.Close())
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "is open in another process")

	code, _, stderr = runCmd("advise", "--badger", t.TempDir())
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "is not a Badger directory")
}

func TestAdviseStore(t *testing.T) {
	dir := testStore(t)
	code, out, stderr := runCmd("advise", "--store", dir, "--quick", "--gets", "50", "--rounds", "1")
	require.Equal(t, exitOK, code, stderr)
	// The flushed cells a read sees (the WAL's are not flushed): the
	// rows of testStoreLive.
	assert.Contains(t, out, fmt.Sprintf("sample: %d cells from kvenc store %s", len(testStoreLive())-1, dir))
	cells, err := readStore(dir, []byte("kv"), 3)
	require.NoError(t, err)
	require.Len(t, cells, 3)
	assert.Equal(t, "row000001", string(cells[0].Key))
}

func TestAdviseRefusesKvencStore(t *testing.T) {
	dir := t.TempDir()
	s, err := kv.Open(kv.DefaultOptions(dir))
	require.NoError(t, err)
	require.NoError(t, s.Put([]byte("a"), []byte("b")))
	require.NoError(t, s.Close())
	code, _, stderr := runCmd("advise", "--badger", dir)
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "is a kvenc store")
}
