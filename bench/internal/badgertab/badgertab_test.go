package badgertab

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// TestBuild: a table of 1000 cells is built, holds their bytes, and a Seek
// finds a cell with its version.
func TestBuild(t *testing.T) {
	var kvs []dataset.KV
	for i := range 1000 {
		kvs = append(kvs, dataset.KV{Key: binary.BigEndian.AppendUint32(nil, uint32(i)), Value: []byte("v"), Seq: 3})
	}
	opts := table.Options{BlockSize: 4 << 10, TableSize: 1 << 20, BloomFalsePositive: 0.01,
		Compression: options.Snappy, ChkMode: options.NoVerification, AllocPool: z.NewAllocatorPool(1)}
	tab, n, err := Build(kvs, opts)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 1000*5, "Build: table bytes")
	defer tab.DecrRef()
	it := tab.NewIterator(0)
	defer it.Close()
	it.Seek(y.KeyWithTs(kvs[500].Key, math.MaxUint64))
	require.True(t, it.Valid(), "Seek cell 500")
	require.Equal(t, kvs[500].Key, y.ParseKey(it.Key()), "Seek cell 500: key")
	require.Equal(t, uint64(3), y.ParseTs(it.Key()), "Seek cell 500: version")
}
