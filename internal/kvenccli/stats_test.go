package kvenccli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// golden compares out with testdata/name (-rewrite writes it), after
// replacing dir with DIR and masking the lines that hold on-disk sizes
// (Badger's own files vary from run to run).
func golden(t *testing.T, name, dir, out string) {
	t.Helper()
	out = strings.ReplaceAll(out, dir, "DIR")
	out = regexp.MustCompile(`(?m)^disk .*$`).ReplaceAllString(out, "disk       (sizes of the files on disk)")
	path := filepath.Join("testdata", name)
	if *rewrite {
		require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(want), out)
}

func TestGoldenStats(t *testing.T) {
	dir := testStore(t)
	code, out, stderr := runCmd("stats", dir, "--blocks")
	require.Equal(t, exitOK, code, stderr)
	golden(t, "stats.txt", dir, out)

	code, out, stderr = runCmd("verify", dir)
	require.Equal(t, exitOK, code, stderr)
	golden(t, "verify.txt", dir, out)

	code, out, stderr = runCmd("block", dir, "--segment", "2", "--block", "1")
	require.Equal(t, exitOK, code, stderr)
	golden(t, "block-segment2-block1.txt", dir, out)
	code, out, stderr = runCmd("block", dir, "--segment", "1", "--block", "0")
	require.Equal(t, exitOK, code, stderr)
	blocks, _ := storeKeys(t, dir)
	assert.Contains(t, out, "segment 1 block 0 (key \""+string(blocks[0][12:])+"\")")
	assert.Contains(t, out, "verify: ok")

	code, _, stderr = runCmd("block", dir, "--segment", "9", "--block", "0")
	assert.Equal(t, exitFound, code)
	assert.Contains(t, stderr, "the store has no segment 9")
	code, _, stderr = runCmd("block", dir, "--segment", "1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "give --segment and --block")
}

// TestStatsJSON: --json holds what the text says, and the counts are the
// store's: two segments of the cells testStore wrote, the WAL file's two
// records.
func TestStatsJSON(t *testing.T) {
	dir := testStore(t)
	code, out, stderr := runCmd("stats", dir, "--json")
	require.Equal(t, exitOK, code, stderr)
	var st storeStats
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	assert.Equal(t, "kv", st.Prefix)
	assert.Equal(t, 2, st.Segments)
	assert.Equal(t, uint64(2279), st.Cells) // see TestVerifyClean
	assert.Equal(t, 1, st.RangeTombstones)
	assert.Equal(t, map[string]int{"v6": 2}, st.MetaVersions)
	require.Len(t, st.WALFiles, 1)
	assert.Equal(t, walStats{Records: 2, Bytes: 72, Puts: 2, Deletes: 2, Ranges: 2, MinSeq: 300, MaxSeq: 300}, st.WALFiles[0].walStats)
	assert.Empty(t, st.BlockForms, "no --blocks")
	assert.Empty(t, st.Problems)
	var blocks int
	var bytes int64
	for _, s := range st.SegmentList {
		blocks += s.Blocks
		bytes += s.Bytes
	}
	assert.Equal(t, st.Blocks, blocks)
	assert.Equal(t, st.BlockBytes, bytes)
	assert.Equal(t, st.DiskBytes-st.LiveBytes, st.OtherBytes)

	_, text, _ := runCmd("stats", dir)
	assert.Contains(t, text, "segments   2: ")
}
