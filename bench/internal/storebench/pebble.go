package storebench

import (
	"context"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/quiet"
)

// pebbleDB is Pebble v2 with its default options (Snappy) but for the
// block cache size, or with ZSTD on every level (which Pebble honours only
// at FormatNewest).
type pebbleDB struct {
	db      *pebble.DB
	cache   *pebble.Cache
	written int64 // at Close: WAL, flushed and compacted bytes
}

func openPebble(zstd bool) func(dir string, cache int64) (DB, error) {
	return func(dir string, cache int64) (DB, error) {
		c := pebble.NewCache(cache)
		o := &pebble.Options{Logger: quiet.Logger{Prefix: "pebble: "}, Cache: c}
		if zstd {
			o.FormatMajorVersion = pebble.FormatNewest
			for i := range o.Levels {
				o.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.ZstdCompression }
			}
		}
		db, err := pebble.Open(dir, o)
		if err != nil {
			c.Unref()
			return nil, err
		}
		return &pebbleDB{db: db, cache: c}, nil
	}
}

func (d *pebbleDB) Write(kvs []dataset.KV) error {
	b := d.db.NewBatch()
	for i, c := range kvs {
		if err := b.Set(c.Key, c.Value, nil); err != nil {
			return err
		}
		if b.Count() == loadBatch || i == len(kvs)-1 {
			if err := b.Commit(pebble.NoSync); err != nil {
				return err
			}
			b = d.db.NewBatch()
		}
	}
	return b.Close()
}

func (d *pebbleDB) Flush() error { return d.db.Flush() }

func (d *pebbleDB) Compact() error {
	return d.db.Compact(context.Background(), []byte{}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, true)
}

func (d *pebbleDB) Get(dst, key []byte) ([]byte, error) {
	v, closer, err := d.db.Get(key)
	if err != nil {
		return dst, err
	}
	dst = append(dst[:0], v...)
	return dst, closer.Close()
}

func (d *pebbleDB) Scan(reverse bool) (int, error) {
	it, err := d.db.NewIter(nil)
	if err != nil {
		return 0, err
	}
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
	if err := it.Error(); err != nil {
		it.Close()
		return n, err
	}
	return n, it.Close()
}

func (d *pebbleDB) SeekNext(key []byte, limit int) (int, error) {
	it, err := d.db.NewIter(nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for ok := it.SeekGE(key); ok && n < limit; ok = it.Next() {
		sink += len(it.Key()) + len(it.Value())
		n++
	}
	if err := it.Error(); err != nil {
		it.Close()
		return n, err
	}
	return n, it.Close()
}

func (d *pebbleDB) Close() error {
	t := d.db.Metrics().Total() // its flushed bytes include the WAL's
	d.written = int64(t.TableBytesFlushed + t.TableBytesCompacted + t.BlobBytesFlushed + t.BlobBytesCompacted)
	err := d.db.Close()
	d.cache.Unref()
	return err
}

func (d *pebbleDB) bytesWritten() int64 { return d.written }
