package storebench

import (
	"expvar"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// badgerDB is raw Badger v4, one Badger key per cell, Badger's default
// options but for the compression, the block cache size and a silent
// logger.
type badgerDB struct{ db *badger.DB }

type badgerCompression int

const (
	badgerSnappy badgerCompression = iota // Badger's default
	badgerNone
	badgerZstd // ZSTD level 1, Badger's default level
)

func openBadger(c badgerCompression) func(dir string, cache int64) (DB, error) {
	return func(dir string, cache int64) (DB, error) {
		o := badger.DefaultOptions(dir).WithLogger(nil).WithBlockCacheSize(cache)
		switch c {
		case badgerNone:
			o = o.WithCompression(options.None)
		case badgerZstd:
			o = o.WithCompression(options.ZSTD).WithZSTDCompressionLevel(1)
		}
		db, err := badger.Open(o)
		if err != nil {
			return nil, err
		}
		return &badgerDB{db: db}, nil
	}
}

func (d *badgerDB) Write(kvs []dataset.KV) error {
	wb := d.db.NewWriteBatch()
	defer wb.Cancel()
	for _, c := range kvs {
		if err := wb.Set(c.Key, c.Value); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// Flush does nothing: Badger writes its memtable to disk at Close, which
// the harness times as part of the flush.
func (d *badgerDB) Flush() error { return nil }

// Compact compacts the LSM into one level.
func (d *badgerDB) Compact() error { return d.db.Flatten(1) }

func (d *badgerDB) Get(dst, key []byte) ([]byte, error) {
	err := d.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		dst, err = item.ValueCopy(dst[:0])
		return err
	})
	return dst, err
}

func (d *badgerDB) iterate(reverse bool, fn func(it *badger.Iterator) int) int {
	txn := d.db.NewTransaction(false)
	defer txn.Discard()
	o := badger.DefaultIteratorOptions
	o.PrefetchValues = false
	o.Reverse = reverse
	it := txn.NewIterator(o)
	defer it.Close()
	return fn(it)
}

// Scan reads every value with Item.Value; Badger's iterator has no error
// to report.
func (d *badgerDB) Scan(reverse bool) (int, error) {
	var err error
	n := d.iterate(reverse, func(it *badger.Iterator) int {
		n := 0
		for it.Rewind(); it.Valid() && err == nil; it.Next() {
			err = it.Item().Value(func(v []byte) error { sink += len(it.Item().Key()) + len(v); return nil })
			n++
		}
		return n
	})
	return n, err
}

func (d *badgerDB) SeekNext(key []byte, limit int) (int, error) {
	var err error
	n := d.iterate(false, func(it *badger.Iterator) int {
		n := 0
		for it.Seek(key); it.Valid() && n < limit && err == nil; it.Next() {
			err = it.Item().Value(func(v []byte) error { sink += len(it.Item().Key()) + len(v); return nil })
			n++
		}
		return n
	})
	return n, err
}

func (d *badgerDB) Close() error { return d.db.Close() }

func (d *badgerDB) bytesWritten() int64 { return badgerBytesWritten() }

// badgerBytesWritten is what Badger counts as written in this process:
// its memtable writes (the bytes its write-ahead log takes), value log
// writes and compaction output. Badger does not count the level 0 tables
// its memtable flushes write.
func badgerBytesWritten() int64 {
	var n int64
	for _, name := range []string{"badger_write_bytes_l0", "badger_write_bytes_vlog"} {
		if v, ok := expvar.Get(name).(*expvar.Int); ok {
			n += v.Value()
		}
	}
	if m, ok := expvar.Get("badger_write_bytes_compaction").(*expvar.Map); ok {
		m.Do(func(kv expvar.KeyValue) {
			if v, ok := kv.Value.(*expvar.Int); ok {
				n += v.Value()
			}
		})
	}
	return n
}
