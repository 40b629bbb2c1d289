package inspect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// newStore writes a store of 3000 cells in blocks of 1 KiB (one segment,
// flushed by Close) to a new directory.
func newStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	o := kv.DefaultOptions(dir)
	o.BlockSize = 1 << 10
	s, err := kv.Open(o)
	require.NoError(t, err)
	b := s.NewBatch()
	for i := range 3000 {
		b.Put(fmt.Appendf(nil, "k%05d", i), fmt.Appendf(nil, "value %d", i%13))
	}
	require.NoError(t, s.Apply(b))
	require.NoError(t, s.DeleteRange([]byte("k00010"), []byte("k00020")))
	require.NoError(t, s.Close())
	return dir
}

func TestSegmentsAndBlocks(t *testing.T) {
	dir := newStore(t)
	s, err := Open(dir, nil)
	require.NoError(t, err)
	defer s.Close()
	assert.Equal(t, "kv", string(s.Prefix()))
	segs, err := s.Segments()
	require.NoError(t, err)
	var cells uint64
	var dels int
	n := 0
	for _, g := range segs {
		require.NoError(t, g.MetaErr)
		require.NotNil(t, g.Meta)
		assert.Equal(t, segment.MetaVersion, g.Meta.Version)
		assert.Len(t, g.Blocks, int(g.Meta.Blocks))
		assert.Empty(t, g.Extra)
		cells += g.Meta.Cells
		dels += len(g.Meta.Dels)
		settings, ok, err := g.Meta.BlockSettings()
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, blockenc.Columnar, settings.Encoding)
		assert.Equal(t, 1<<10, settings.BlockSize)
		for i, ref := range g.Blocks {
			b, err := s.Block(ref)
			require.NoError(t, err)
			require.NoError(t, blockenc.VerifyDict(b, g.Dict(i)), "segment %d block %d", g.ID, i)
			sk, err := blockenc.NewSeekerDict(b, g.Dict(i))
			require.NoError(t, err)
			require.True(t, sk.Last())
			assert.Equal(t, ref.Last, sk.Key(), "a block key ends with the block's last key")
			for ok := sk.First(); ok; ok = sk.Next() {
				n++
			}
		}
	}
	// The flush drops the 10 cells the DeleteRange covers (no snapshot
	// sees them) and keeps the tombstone.
	assert.Equal(t, uint64(2990), cells)
	assert.Equal(t, 2990, n)
	assert.Equal(t, 1, dels, "the DeleteRange")
	assert.Empty(t, s.WALFiles(), "Close flushed every write")
}

// TestGoldenMeta decodes kv's pinned metas (kv's doc, Segment meta,
// worked example) in every version.
func TestGoldenMeta(t *testing.T) {
	for v := 1; v <= segment.MetaVersion; v++ {
		b, err := os.ReadFile(filepath.Join("..", "internal", "segment", "testdata", fmt.Sprintf("meta-v%d.bin", v)))
		require.NoError(t, err)
		m, err := decodeMeta(b)
		require.NoError(t, err, "version %d", v)
		assert.Equal(t, v, m.Version)
		assert.Equal(t, []uint64{7, 300, 1, 300, 2, 1000, 800, 40000}, []uint64{m.ID, m.WALSeq, m.MinSeq, m.MaxSeq, m.Blocks, m.Cells, m.Keys, m.Bytes})
		assert.Equal(t, "apple", string(m.FirstKey))
		assert.Equal(t, "pear", string(m.LastKey))
		if v >= 2 {
			assert.Equal(t, []RangeDel{{Seq: 250, Start: []byte("b"), End: []byte("d")}}, m.Dels)
		}
		if v >= 4 {
			assert.Equal(t, uint64(5), m.Tombstones)
			// Version 5 names its dictionaries (length, CRC-32C), stored
			// under keys of their own.
			parts := []Part{{Blocks: 1, DictLen: 5, DictID: 0x8e9598f1}, {Blocks: 1, DictLen: 5, DictID: 0x9e28884f}}
			if v == 4 {
				parts[0].Dict, parts[1].Dict = []byte("|N|O|"), []byte("|A|R|")
			}
			assert.Equal(t, parts, m.Parts)
			s, ok, err := m.BlockSettings()
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, BlockSettings{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, CompressionLevel: 9,
				DedupeValues: true, IntValues: true, RestartInterval: 16, BlockSize: 16 << 10, DictSize: 64<<10 - 1}, s)
		}
		b[len(b)/2] ^= 1
		_, err = decodeMeta(b)
		assert.ErrorIs(t, err, ErrCorrupt, "version %d, a flipped byte", v)
	}
}

func FuzzDecodeMeta(f *testing.F) {
	for v := 1; v <= segment.MetaVersion; v++ {
		if b, err := os.ReadFile(filepath.Join("..", "internal", "segment", "testdata", fmt.Sprintf("meta-v%d.bin", v))); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMeta(b)
		if err != nil {
			require.True(t, errors.Is(err, ErrCorrupt) || errors.Is(err, ErrFormat), "%v", err)
			return
		}
		_, _, err = m.BlockSettings()
		if err != nil {
			require.True(t, errors.Is(err, ErrCorrupt) || errors.Is(err, ErrFormat), "%v", err)
		}
	})
}

// TestWAL reads kv's pinned WAL file (kv/internal/wal's doc) from the wal
// directory, and the same record from the engine, as a store in a shared
// DB keeps it (key layout 2: N 'w' seq chunk).
func TestWAL(t *testing.T) {
	dir := newStore(t)
	file, err := os.ReadFile("../internal/wal/testdata/walfile-v1.bin")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wal", "0000000000000009.log"), append(file, 1, 2), 0o644))
	rec, err := os.ReadFile("../internal/wal/testdata/wal-v2.bin")
	require.NoError(t, err)
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint64([]byte("kv\x00w"), 300), 0)
	require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Set(key, rec) }))
	require.NoError(t, db.Close())

	s, err := Open(dir, []byte("kv"))
	require.NoError(t, err)
	defer s.Close()
	want := WALRecord{Seq: 300, Bytes: len(rec), Ops: []Op{
		{Kind: blockenc.KindPut, Key: []byte("apple"), Value: []byte("red")},
		{Kind: blockenc.KindDelete, Key: []byte("pear")},
		{Kind: blockenc.KindDelete, Ranged: true, Key: []byte("b"), Value: []byte("d")},
	}}
	files := s.WALFiles()
	require.Len(t, files, 1)
	assert.Equal(t, WALFile{Name: filepath.Join("wal", "0000000000000009.log"), Size: len(file) + 2, Records: []WALRecord{want}, Torn: 2}, files[0])
	recs, errs := s.WALInEngine()
	assert.Empty(t, errs)
	assert.Equal(t, []WALRecord{want}, recs)
}

func TestOpenErrors(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "none"), nil)
	assert.ErrorIs(t, err, ErrNotStore)
	_, err = Open(t.TempDir(), nil)
	assert.ErrorIs(t, err, ErrNotStore)

	dir := newStore(t)
	_, err = Open(dir, []byte("other"))
	assert.ErrorIs(t, err, ErrNotStore)

	s, err := kv.Open(kv.DefaultOptions(dir))
	require.NoError(t, err)
	_, err = Open(dir, nil)
	require.NoError(t, s.Close())
	assert.ErrorIs(t, err, ErrLocked)

	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("\xffkvenc/store/kv"), []byte{1}) }))
	require.NoError(t, db.Close())
	_, err = Open(dir, nil)
	assert.ErrorIs(t, err, ErrFormat)
}
