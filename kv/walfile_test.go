package kv

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appendFrame appends a WAL file frame holding rec to b.
func appendFrame(b, rec []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(b, uint32(len(rec))), rec...)
}

// docWALFile is the package doc's WAL file example: the header, then one
// frame holding docWALRecord.
func docWALFile() []byte { return appendFrame(walHeader(), docWALRecord()) }

func TestGoldenWALFile(t *testing.T) {
	b := docWALFile()
	require.Equal(t, unhex(t, "6b76656e6357414c 01 24000000"+docWAL), b[:len(b)-4], "WAL file against the package doc")
	checkGolden(t, "walfile-v1.bin", b)
	recs, err := decodeWALFile(b)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, uint64(300), recs[0].seq)
	assert.Equal(t, docWALRecord(), recs[0].b)
}

// walFileOf returns a WAL file of records of seqs, one Put each.
func walFileOf(seqs ...uint64) []byte {
	b := walHeader()
	for _, seq := range seqs {
		b = appendFrame(b, appendWAL(nil, seq, []op{{key: fmt.Appendf(nil, "k%d", seq), value: []byte("v"), kind: blockenc.KindPut}}))
	}
	return b
}

// TestWALFileTorn: a file cut anywhere in its last frame (or header) reads
// as the frames before the cut; a bad byte in a frame that is not the last
// one, or in the header, is ErrCorrupt.
func TestWALFileTorn(t *testing.T) {
	whole := walFileOf(5, 3, 9)
	two := len(walFileOf(5, 3))
	for cut := 0; cut < len(whole); cut++ {
		recs, err := decodeWALFile(whole[:cut])
		require.NoError(t, err, "cut at %d", cut)
		want := 0
		switch {
		case cut >= two:
			want = 2
		case cut >= len(walFileOf(5)):
			want = 1
		}
		require.Len(t, recs, want, "cut at %d", cut)
	}
	// A bad last record is a torn write; the same record before another
	// one is corruption.
	last := append([]byte(nil), whole...)
	last[len(last)-1] ^= 1
	recs, err := decodeWALFile(last)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	for _, off := range []int{walHeaderLen + 6, two - 1} {
		bad := append([]byte(nil), whole...)
		bad[off] ^= 1
		_, err := decodeWALFile(bad)
		requireCorrupt(t, err)
	}
	for _, off := range []int{0, len(walMagic)} {
		bad := append([]byte(nil), whole...)
		bad[off] ^= 1
		_, err := decodeWALFile(bad)
		requireCorrupt(t, err)
	}
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
	assert.Zero(t, countKeys(t, s, s.keys.tag(tagWAL)), "WAL records in Badger")
	files, err := filepath.Glob(filepath.Join(dir, walDir, "*"+walSuffix))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	assert.Equal(t, fi.Size(), s.Stats().WALBytes, "Stats.WALBytes")
	require.NoError(t, s.Flush())
	files, err = filepath.Glob(filepath.Join(dir, walDir, "*"+walSuffix))
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
	wdir := filepath.Join(dir, walDir)
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
	files, err := filepath.Glob(filepath.Join(wdir, "*"+walSuffix))
	require.NoError(t, err)
	assert.Len(t, files, 3, "the replayed files and the new write's")
	assert.Equal(t, "0000000000000013.log", filepath.Base(files[2]), "the new file's number")
	require.NoError(t, s.Flush())
	files, err = filepath.Glob(filepath.Join(wdir, "*"+walSuffix))
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
	b[walHeaderLen+walFrameLen+1] ^= 0x40 // the first record's seq
	require.NoError(t, os.WriteFile(filepath.Join(dir, walDir, "0000000000000001.log"), b, 0o644))
	_, err := Open(o)
	requireCorrupt(t, err)
}

// FuzzDecodeWALFile: arbitrary bytes decode to an error wrapping
// ErrCorrupt or to records that each decode.
func FuzzDecodeWALFile(f *testing.F) {
	f.Add(docWALFile())
	f.Add(walFileOf(1, 2, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := decodeWALFile(b)
		if err != nil {
			requireCorrupt(t, err)
			return
		}
		for _, r := range recs {
			seq, _, err := decodeWAL(r.b)
			require.NoError(t, err)
			require.Equal(t, r.seq, seq)
		}
	})
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
