package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/wal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walFileOf returns a WAL file of records of seqs, one Put each.
func walFileOf(seqs ...uint64) []byte {
	b := wal.Header()
	for _, seq := range seqs {
		b = wal.AppendFrame(b, wal.Append(nil, seq, []wal.Op{{Key: fmt.Appendf(nil, "k%d", seq), Value: []byte("v"), Kind: blockenc.KindPut}}))
	}
	return b
}

// TestWALFilesOnly: a Store on a directory writes its WAL records to one
// file per memstore and none to Badger; a flush removes the file.
func TestWALFilesOnly(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, testOptions(dir))
	defer s.Close()
	m := model{}
	putEach(t, s, m, 50, "key%04d", "value %d")
	assert.Equal(t, 50, countWALRecords(t, s))
	assert.Zero(t, countKeys(t, s, s.keys.Tag(layout.TagWAL)), "WAL records in Badger")
	files, err := filepath.Glob(filepath.Join(dir, wal.Dir, "*"+wal.Suffix))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	assert.Equal(t, fi.Size(), s.Stats().WALBytes, "Stats.WALBytes")
	require.NoError(t, s.Flush())
	files, err = filepath.Glob(filepath.Join(dir, wal.Dir, "*"+wal.Suffix))
	require.NoError(t, err)
	assert.Empty(t, files, "WAL files after Flush")
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	require.Equal(t, m.rangeOf(nil, nil), got)
}

// TestWALFileReplay: Open replays the records of WAL files above the last
// flushed seq, whatever their order in and across files, leaves out a
// torn last frame and removes files holding only flushed records; the
// files go once the replayed memstores are flushed.
func TestWALFileReplay(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	s := mustOpen(t, o)
	require.NoError(t, s.Put([]byte("k1"), []byte("flushed")))
	require.NoError(t, s.Close()) // seq 1 is in a segment
	wdir := filepath.Join(dir, wal.Dir)
	old := walFileOf(1)
	torn := walFileOf(7, 4)
	torn = torn[:len(torn)-3]
	require.NoError(t, os.WriteFile(filepath.Join(wdir, "0000000000000010.log"), old, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wdir, "0000000000000011.log"), walFileOf(3, 2), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wdir, "0000000000000012.log"), torn, 0o644))

	s = mustOpen(t, o)
	defer s.Close()
	for _, seq := range []uint64{2, 3, 7} {
		v, err := s.Get(fmt.Appendf(nil, "k%d", seq))
		require.NoError(t, err, "seq %d", seq)
		assert.Equal(t, "v", string(v))
	}
	_, err := s.Get([]byte("k4"))
	require.ErrorIs(t, err, ErrNotFound, "the torn record")
	v, err := s.Get([]byte("k1"))
	require.NoError(t, err)
	assert.Equal(t, "flushed", string(v), "a record at or below walSeq is not replayed")
	_, err = os.Stat(filepath.Join(wdir, "0000000000000010.log"))
	require.ErrorIs(t, err, os.ErrNotExist, "a file of flushed records")
	require.NoError(t, s.Put([]byte("new"), []byte("x")))
	files, err := filepath.Glob(filepath.Join(wdir, "*"+wal.Suffix))
	require.NoError(t, err)
	assert.Len(t, files, 3, "the replayed files and the new write's")
	assert.Equal(t, "0000000000000013.log", filepath.Base(files[2]), "the new file's number")
	require.NoError(t, s.Flush())
	files, err = filepath.Glob(filepath.Join(wdir, "*"+wal.Suffix))
	require.NoError(t, err)
	assert.Empty(t, files, "WAL files after the replayed memstores flushed")
}

// TestWALFileCorrupt: a WAL file with a bad frame before its last fails
// Open with ErrCorrupt.
func TestWALFileCorrupt(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	s := mustOpen(t, o)
	require.NoError(t, s.Close())
	b := walFileOf(5, 6)
	b[len(wal.Header())+wal.FrameLen+1] ^= 0x40 // the first record's seq
	require.NoError(t, os.WriteFile(filepath.Join(dir, wal.Dir, "0000000000000001.log"), b, 0o644))
	_, err := Open(o)
	requireCorrupt(t, err)
}

// TestWALFileSyncWrites: with SyncWrites every record is in the file when
// its write returns, and the Store reopens with it.
func TestWALFileSyncWrites(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.SyncWrites = true
	s := mustOpen(t, o)
	m := model{}
	putEach(t, s, m, 20, "key%04d", "value %d")
	assert.Equal(t, 20, countWALRecords(t, s))
	require.NoError(t, s.Close())
	s = mustOpen(t, o)
	defer s.Close()
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	require.Equal(t, m.rangeOf(nil, nil), got)
}
