package badgertab

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"

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
	if err != nil || n < 1000*5 {
		t.Fatalf("Build: %d bytes, %v", n, err)
	}
	defer tab.DecrRef()
	it := tab.NewIterator(0)
	defer it.Close()
	it.Seek(y.KeyWithTs(kvs[500].Key, math.MaxUint64))
	if !it.Valid() || !bytes.Equal(y.ParseKey(it.Key()), kvs[500].Key) || y.ParseTs(it.Key()) != 3 {
		t.Fatalf("Seek cell 500: valid %v key %x", it.Valid(), it.Key())
	}
}
