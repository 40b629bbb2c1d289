package kvenccli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/kv"
)

// testStoreLive is what a read of testStore's store sees, key by key,
// worked out from how testStore wrote it: rows 0..1999, then row n for n
// a multiple of 7 deleted (n also a multiple of 3) or "updated", the
// range [row000100, row000150) deleted, and the WAL's Put "apple".
func testStoreLive() []string {
	lines := []string{`"apple" = "red"`}
	for n := range 2000 {
		v := fmt.Sprintf("value %d of row %d|some text that repeats", n%17, n)
		switch {
		case n >= 100 && n < 150:
			continue
		case n%7 == 0 && n%3 == 0:
			continue
		case n%7 == 0:
			v = "updated"
		}
		lines = append(lines, fmt.Sprintf(`"row%06d" = %q`, n, v))
	}
	return lines
}

// equalLines fails at the first line that differs (the outputs are long).
func equalLines(t *testing.T, want, got []string) {
	t.Helper()
	for i := range min(len(want), len(got)) {
		require.Equal(t, want[i], got[i], "line %d", i)
	}
	require.Equal(t, len(want), len(got), "lines")
}

func dumpLines(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, stderr := runCmd(append([]string{"dump"}, args...)...)
	require.Equal(t, exitOK, code, stderr)
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

func TestDump(t *testing.T) {
	dir := testStore(t)
	want := testStoreLive()
	equalLines(t, want, dumpLines(t, dir))

	// What kv itself reads, on a copy it may write to (Open replays the
	// WAL file).
	s, err := kv.Open(kv.DefaultOptions(testStore(t)))
	require.NoError(t, err)
	var fromKV []string
	it := s.NewIterator(kv.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		fromKV = append(fromKV, fmt.Sprintf("%s = %s", quoteN(it.Key(), -1), quoteN(it.Value(), -1)))
	}
	require.NoError(t, it.Close())
	require.NoError(t, s.Close())
	equalLines(t, fromKV, want)

	rev := slices.Clone(want)
	slices.Reverse(rev)
	equalLines(t, rev, dumpLines(t, dir, "--reverse"))

	// Bounds: from inclusive, to exclusive, both directions.
	i := slices.Index(want, `"row000090" = "value 5 of row 90|some text that repeats"`)
	j := slices.Index(want, `"row000160" = "value 7 of row 160|some text that repeats"`)
	require.Positive(t, i)
	require.Positive(t, j)
	assert.Equal(t, want[i:j], dumpLines(t, dir, "--from", "row000090", "--to", "row000160"))
	sub := slices.Clone(want[i:j])
	slices.Reverse(sub)
	assert.Equal(t, sub, dumpLines(t, dir, "--from", "row000090", "--to", "row000160", "--reverse"))
	assert.Equal(t, want[:3], dumpLines(t, dir, "--limit", "3"))
	assert.Equal(t, want[i:j], dumpLines(t, dir, "--hex", "--from", "726f77303030303930", "--to", "726f77303030313630"))
	assert.Equal(t, rev[:2], dumpLines(t, dir, "--limit", "2", "--reverse"))
}

func TestDumpVersions(t *testing.T) {
	dir := testStore(t)
	lines := dumpLines(t, dir, "--versions")
	// The range tombstones first (the segment's, then the WAL record's,
	// twice), then every cell: 2279 in segments, the WAL's Put "apple"
	// and Delete "pear" (both records are seq 300: one of each).
	require.Len(t, lines, 3+2279+2)
	assert.Equal(t, `["b", "d") @300 DeleteRange`, lines[0])
	assert.Equal(t, `["b", "d") @300 DeleteRange`, lines[1])
	assert.Equal(t, `["row000100", "row000150") @11 DeleteRange`, lines[2])
	assert.Equal(t, `"apple" @300 Put = "red"`, lines[3])
	assert.Equal(t, `"pear" @300 Delete`, lines[4])
	assert.Equal(t, `"row000000" @11 Delete`, lines[5], "the newest version first")
	assert.Equal(t, `"row000000" @1 Put = "value 0 of row 0|some text that repeats"`, lines[6])
	rev := dumpLines(t, dir, "--versions", "--reverse")
	cells := slices.Clone(lines[3:])
	slices.Reverse(cells)
	equalLines(t, append(lines[:3:3], cells...), rev)

	code, out, stderr := runCmd("dump", dir, "--versions", "--format", "json", "--to", "b")
	require.Equal(t, exitOK, code, stderr)
	var objs []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		objs = append(objs, m)
	}
	require.Len(t, objs, 4)
	assert.Equal(t, map[string]any{"key": "apple", "value": "red", "seq": 300.0, "kind": "Put"}, objs[3])

	assert.Equal(t, []string{"6170706c65 = 726564"}, dumpLines(t, dir, "--format", "hex", "--to", "b"))
	code, _, stderr = runCmd("dump", dir, "--format", "xml")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--format "xml"`)
}
