package wal

import (
	"bytes"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEngineRecords: records written in chunks come back whole and in
// seq order; those at or below walSeq are stale; a key under the WAL tag
// that is not a WAL key is foreign.
func TestEngineRecords(t *testing.T) {
	eng, err := badgereng.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	defer eng.Close()
	keys := layout.NewKeys([]byte("p"))
	scan := func(lower, upper []byte, f func(it engine.Iter) error) error {
		return engine.Scan(eng, lower, upper, f)
	}
	recs := map[uint64][]byte{
		3: []byte("three"),
		5: bytes.Repeat([]byte("five "), Chunk/4), // two chunks
		7: []byte("seven"),
	}
	var b engine.Batch
	for seq, rec := range recs {
		EngineBatch(&b, keys, seq, rec)
	}
	foreignKey := append(keys.Tag(layout.TagWAL), "x"...)
	b.Set(foreignKey, nil)
	require.NoError(t, eng.Write(&b))

	var foreign [][]byte
	got, stale, err := ReadEngine(keys, scan, 3, func(k []byte) { foreign = append(foreign, bytes.Clone(k)) })
	require.NoError(t, err)
	assert.Equal(t, []Rec{{Seq: 5, B: recs[5]}, {Seq: 7, B: recs[7]}}, got)
	assert.Equal(t, [][]byte{keys.WAL(3, 0)}, stale)
	assert.Equal(t, [][]byte{foreignKey}, foreign)

	del, err := EngineKeys(keys, scan, 4, 5)
	require.NoError(t, err)
	assert.Equal(t, [][]byte{keys.WAL(5, 0), keys.WAL(5, 1)}, del)
	del, err = EngineKeys(keys, scan, 5, 5)
	require.NoError(t, err)
	assert.Empty(t, del)

	// A chunk without chunk 0 before it.
	b.Reset()
	b.Delete(keys.WAL(5, 0))
	require.NoError(t, eng.Write(&b))
	_, _, err = ReadEngine(keys, scan, 3, func([]byte) {})
	require.ErrorIs(t, err, blockenc.ErrCorrupt)
}
