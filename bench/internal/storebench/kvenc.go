package storebench

import (
	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/kv"
)

// kvencDB is kvenc's store with its default options.
type kvencDB struct{ s *kv.Store }

func openKvenc(dir string) (DB, error) {
	s, err := kv.Open(kv.DefaultOptions(dir))
	if err != nil {
		return nil, err
	}
	return &kvencDB{s}, nil
}

func (d *kvencDB) Load(kvs []dataset.KV) error {
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

func (d *kvencDB) Settle() error {
	if err := d.s.Flush(); err != nil {
		return err
	}
	return d.s.Compact()
}

func (d *kvencDB) Get(key []byte) ([]byte, error) { return d.s.Get(key) }

func (d *kvencDB) Scan() (int, error) {
	it := d.s.NewIterator(kv.IterOptions{})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		sink += len(it.Key()) + len(it.Value())
		n++
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

// loadBatch is the number of cells per write batch, for every engine.
const loadBatch = 1000

// sink keeps the compiler from dropping reads.
var sink int
