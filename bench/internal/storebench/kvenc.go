package storebench

import (
	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/kv"
)

// kvencDB is kvenc's store with its default options but for the cache size.
type kvencDB struct{ s *kv.Store }

func openKvenc(dir string, cache int64) (DB, error) {
	o := kv.DefaultOptions(dir)
	o.CacheSize = cache
	s, err := kv.Open(o)
	if err != nil {
		return nil, err
	}
	return &kvencDB{s}, nil
}

func (d *kvencDB) Write(kvs []dataset.KV) error {
	b := d.s.NewBatch()
	for i, c := range kvs {
		b.Put(c.Key, c.Value)
		if b.Len() == loadBatch || i == len(kvs)-1 {
			if err := d.s.Apply(b); err != nil {
				return err
			}
			b.Reset()
		}
	}
	return nil
}

func (d *kvencDB) Flush() error   { return d.s.Flush() }
func (d *kvencDB) Compact() error { return d.s.Compact() }

// Get returns kv's own copy of the value; dst is not needed.
func (d *kvencDB) Get(_, key []byte) ([]byte, error) { return d.s.Get(key) }

func (d *kvencDB) Scan(reverse bool) (int, error) {
	it := d.s.NewIterator(kv.IterOptions{})
	n := 0
	ok := it.First()
	if reverse {
		ok = it.Last()
	}
	for ok {
		sink += len(it.Key()) + len(it.Value())
		n++
		if reverse {
			ok = it.Prev()
		} else {
			ok = it.Next()
		}
	}
	if err := it.Err(); err != nil {
		it.Close()
		return n, err
	}
	return n, it.Close()
}

func (d *kvencDB) SeekNext(key []byte, n int) (int, error) {
	it := d.s.NewIterator(kv.IterOptions{})
	k := 0
	for ok := it.SeekGE(key); ok && k < n; ok = it.Next() {
		sink += len(it.Key()) + len(it.Value())
		k++
	}
	if err := it.Err(); err != nil {
		it.Close()
		return k, err
	}
	return k, it.Close()
}

func (d *kvencDB) Close() error { return d.s.Close() }

// bytesWritten: kvenc writes its WAL files and, for the rest, through its
// Badger DB.
func (d *kvencDB) bytesWritten() int64 { return badgerBytesWritten() + d.s.Stats().WALBytes }
