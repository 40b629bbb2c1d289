package storebench

import (
	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

// badgerDB is raw Badger v4, one Badger key per cell, default options but
// for compression (none, or ZSTD level 1) and a silent logger.
type badgerDB struct {
	db  *badger.DB
	val []byte
}

func openBadger(zstd bool) func(dir string) (DB, error) {
	return func(dir string) (DB, error) {
		o := badger.DefaultOptions(dir).WithLogger(nil).WithCompression(options.None)
		if zstd {
			o = o.WithCompression(options.ZSTD).WithZSTDCompressionLevel(1)
		}
		db, err := badger.Open(o)
		if err != nil {
			return nil, err
		}
		return &badgerDB{db: db}, nil
	}
}

func (d *badgerDB) Load(kvs []dataset.KV) error {
	wb := d.db.NewWriteBatch()
	defer wb.Cancel()
	for _, c := range kvs {
		if err := wb.Set(c.Key, c.Value); err != nil {
			return err
		}
	}
	return wb.Flush()
}

// Settle compacts the LSM into one level; the memtable reaches disk at
// Close, which the harness does before measuring the directory.
func (d *badgerDB) Settle() error { return d.db.Flatten(1) }

func (d *badgerDB) Get(key []byte) ([]byte, error) {
	err := d.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		d.val, err = item.ValueCopy(d.val[:0])
		return err
	})
	return d.val, err
}

func (d *badgerDB) iterate(fn func(it *badger.Iterator) int) int {
	txn := d.db.NewTransaction(false)
	defer txn.Discard()
	o := badger.DefaultIteratorOptions
	o.PrefetchValues = false
	it := txn.NewIterator(o)
	defer it.Close()
	return fn(it)
}

// Scan reads every value with Item.Value; Badger's iterator has no error
// to report.
func (d *badgerDB) Scan() (int, error) {
	var err error
	n := d.iterate(func(it *badger.Iterator) int {
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
	n := d.iterate(func(it *badger.Iterator) int {
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
