// Package badgertab builds Badger v4 SSTables in memory for the
// benchmarks' comparisons, with badger/v4's own table builder.
package badgertab

import (
	"bytes"
	"fmt"

	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// Build builds one table over kvs (sorted by key, then seq descending)
// with opts, keys carrying Badger's 8-byte version (the cell's seq),
// opens it in memory and checks that a scan reads every cell back. It
// returns the table (the caller's reference: DecrRef it) and its bytes.
func Build(kvs []dataset.KV, opts table.Options) (*table.Table, int, error) {
	b := table.NewTableBuilder(opts)
	for _, kv := range kvs {
		b.Add(y.KeyWithTs(kv.Key, kv.Seq), y.ValueStruct{Value: kv.Value}, 0)
	}
	data := b.Finish()
	b.Close()
	t, err := table.OpenInMemoryTable(data, 1, &opts)
	if err != nil {
		return nil, 0, err
	}
	it := t.NewIterator(0)
	defer it.Close()
	n := 0
	for it.Rewind(); it.Valid(); it.Next() {
		if n >= len(kvs) || !bytes.Equal(y.ParseKey(it.Key()), kvs[n].Key) || y.ParseTs(it.Key()) != kvs[n].Seq ||
			!bytes.Equal(it.Value().Value, kvs[n].Value) {
			_ = t.DecrRef()
			return nil, 0, fmt.Errorf("badger table: cell %d does not read back", n)
		}
		n++
	}
	if n != len(kvs) {
		_ = t.DecrRef()
		return nil, 0, fmt.Errorf("badger table: read %d of %d cells back", n, len(kvs))
	}
	return t, len(data), nil
}
