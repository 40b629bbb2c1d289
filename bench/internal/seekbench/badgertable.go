package seekbench

import (
	"bytes"
	"math"
	"testing"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/kvenc/kvenc/bench/internal/badgertab"
	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// BadgerName is the subject name of Badger's table block.
const BadgerName = "badger-table"

// badgerSubject builds a Badger v4 table whose block size holds every
// cell, so the table is one block. Badger's block iterator is unexported:
// the seeks go through table.Iterator, which per Seek binary-searches the
// table index and re-reads the block (no block cache here, as in a table
// opened without one), so this measures a table seek, not a bare block
// seek. Keys carry Badger's 8-byte version suffix (the cell's seq).
func badgerSubject(kvs []dataset.KV, order [][]byte) (Subject, error) {
	opts := table.Options{BlockSize: 1 << 20, TableSize: 4 << 20, BloomFalsePositive: 0.01,
		Compression: options.None, ChkMode: options.NoVerification, AllocPool: z.NewAllocatorPool(8)}
	t, n, err := badgertab.Build(kvs, opts) // a scan reads every cell back
	if err != nil {
		return Subject{}, err
	}
	if err := checkBadger(t, kvs); err != nil {
		return Subject{}, err
	}
	return Subject{
		Name: BadgerName, Bytes: n, Cells: len(kvs),
		SeekRandom:    badgerSeek(t, order),
		SeekAscending: badgerSeek(t, ascending(kvs)),
		Scan:          badgerScan(t),
	}, nil
}

// seekKey is the newest version of key in Badger's key order.
func seekKey(key []byte) []byte { return y.KeyWithTs(key, math.MaxUint64) }

func checkBadger(t *table.Table, kvs []dataset.KV) error {
	it := t.NewIterator(0)
	defer it.Close()
	for i, kv := range kvs {
		it.Seek(seekKey(kv.Key))
		if !it.Valid() || !bytes.Equal(y.ParseKey(it.Key()), kv.Key) || !bytes.Equal(it.Value().Value, kv.Value) {
			return mismatch(BadgerName, "Seek", i, nil, kv.Key)
		}
	}
	return nil
}

func badgerSeek(t *table.Table, keys [][]byte) func(b *testing.B) {
	sk := make([][]byte, len(keys))
	for i, k := range keys {
		sk[i] = seekKey(k)
	}
	return func(b *testing.B) {
		it := t.NewIterator(0)
		defer it.Close()
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			it.Seek(sk[i%len(sk)])
			if !it.Valid() {
				b.Fatal("Seek found nothing")
			}
			sink += len(it.Value().Value)
		}
		sinkInt = sink
	}
}

func badgerScan(t *table.Table) func(b *testing.B) {
	return func(b *testing.B) {
		it := t.NewIterator(0)
		defer it.Close()
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for it.Rewind(); it.Valid(); it.Next() {
				sink += len(it.Key()) + len(it.Value().Value)
			}
		}
		sinkInt = sink
	}
}
