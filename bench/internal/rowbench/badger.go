package rowbench

import (
	"bytes"
	"fmt"

	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
	"github.com/dgraph-io/ristretto/v2/z"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// badgerBytes builds one Badger table over cells with compression c and
// returns its size, after reading every cell back from it.
func badgerBytes(c options.CompressionType, cells []dataset.KV) (int, error) {
	// TableSize only sizes the builder's first arena (it grows) and
	// ReachedCapacity, which is not asked: the table holds every cell.
	opts := table.Options{
		BlockSize: BlockBytes, TableSize: 16 << 20, BloomFalsePositive: 0.01,
		Compression: c, ZSTDCompressionLevel: 1, ChkMode: options.NoVerification,
		AllocPool: z.NewAllocatorPool(1),
	}
	b := table.NewTableBuilder(opts)
	for _, kv := range cells {
		b.Add(y.KeyWithTs(kv.Key, kv.Seq), y.ValueStruct{Value: kv.Value}, 0)
	}
	data := b.Finish()
	b.Close()
	t, err := table.OpenInMemoryTable(data, 1, &opts)
	if err != nil {
		return 0, err
	}
	defer t.DecrRef()
	if t.CompressionType() != c {
		return 0, fmt.Errorf("table says compression %v", t.CompressionType())
	}
	it := t.NewIterator(0)
	defer it.Close()
	n := 0
	for it.Rewind(); it.Valid(); it.Next() {
		if n >= len(cells) || !bytes.Equal(y.ParseKey(it.Key()), cells[n].Key) || y.ParseTs(it.Key()) != cells[n].Seq ||
			!bytes.Equal(it.Value().Value, cells[n].Value) {
			return 0, fmt.Errorf("cell %d does not read back", n)
		}
		n++
	}
	if n != len(cells) {
		return 0, fmt.Errorf("read %d of %d cells back", n, len(cells))
	}
	return len(data), nil
}
