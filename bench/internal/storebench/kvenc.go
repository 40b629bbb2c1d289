package storebench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv"
)

// kvencDB is kvenc's store with its default options but for the cache size
// (and, for KvencSetName, the settings given).
type kvencDB struct{ s *kv.Store }

func openKvenc(dir string, cache int64) (DB, error) { return openKvencSet("")(dir, cache) }

// KvencSetEngine is kvenc's store with kv.Options settings applied to its
// defaults (see KvencSettings), reported as KvencSetName.
func KvencSetEngine(settings string) Engine {
	return Engine{KvencSetName, openKvencSet(settings)}
}

func openKvencSet(settings string) func(dir string, cache int64) (DB, error) {
	return func(dir string, cache int64) (DB, error) {
		o := kv.DefaultOptions(dir)
		o.CacheSize = cache
		if err := KvencSettings(&o, settings); err != nil {
			return nil, err
		}
		s, err := kv.Open(o)
		if err != nil {
			return nil, err
		}
		return &kvencDB{s}, nil
	}
}

// KvencSettings applies settings, "Field=value,..." of kv.Options
// (BlockSize, MemstoreSize, DictSize, CompactionLevel) and of its Block
// (Encoding, Compression, RestartInterval, CompressionLevel; encodings and
// compressions by their String names), to o.
func KvencSettings(o *kv.Options, settings string) error {
	if settings == "" {
		return nil
	}
	for _, kvs := range strings.Split(settings, ",") {
		name, val, ok := strings.Cut(kvs, "=")
		if !ok {
			return fmt.Errorf("kvenc setting %q: want Field=value", kvs)
		}
		switch name {
		case "Encoding":
			i := slicesIndex(blockenc.Encodings(), val)
			if i < 0 {
				return fmt.Errorf("kvenc setting %q: unknown encoding", kvs)
			}
			o.Block.Encoding = blockenc.Encodings()[i]
			continue
		case "Compression":
			i := slicesIndex(blockenc.Compressions(), val)
			if i < 0 {
				return fmt.Errorf("kvenc setting %q: unknown compression", kvs)
			}
			o.Block.Compression = blockenc.Compressions()[i]
			continue
		}
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Errorf("kvenc setting %q: %w", kvs, err)
		}
		switch name {
		case "BlockSize":
			o.BlockSize = n
		case "MemstoreSize":
			o.MemstoreSize = int64(n)
		case "DictSize":
			o.DictSize = n
		case "CompactionLevel":
			o.CompactionLevel = n
		case "RestartInterval":
			o.Block.RestartInterval = n
		case "CompressionLevel":
			o.Block.CompressionLevel = n
		default:
			return fmt.Errorf("kvenc setting %q: unknown field", kvs)
		}
	}
	return nil
}

// slicesIndex returns the index of the value of xs whose String is name.
func slicesIndex[T fmt.Stringer](xs []T, name string) int {
	for i, x := range xs {
		if x.String() == name {
			return i
		}
	}
	return -1
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
