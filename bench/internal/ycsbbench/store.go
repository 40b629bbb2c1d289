package ycsbbench

import (
	"errors"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/kvenc/kvenc/kv"
)

// Store is the little a YCSB record store needs from an engine.
type Store interface {
	// Get returns a copy of key's value, or errNotFound. Safe for
	// concurrent use, as every method.
	Get(key []byte) ([]byte, error)
	Put(key, value []byte) error
	Delete(key []byte) error
	// Scan calls fn for up to n cells from the first key >= start.
	Scan(start []byte, n int, fn func(key, value []byte) error) error
	Close() error
}

var errNotFound = errors.New("ycsbbench: record not found")

// Config is what every engine of a run gets alike.
type Config struct {
	// Cache is the block cache in bytes: kvenc CacheSize, Badger
	// BlockCacheSize, Pebble Cache.
	Cache int64
	// Sync makes every write durable before it returns: kvenc SyncWrites,
	// Badger SyncWrites, Pebble commits with pebble.Sync.
	Sync bool
}

// Engine opens a Store in a directory.
type Engine struct {
	Name string
	Open func(dir string, c Config) (Store, error)
}

// Engine names, in the order Engines returns them; the reports compare
// every engine against the kvenc engine KvencFor names.
const (
	KvencName         = "kvenc"
	KvencBufferedName = "kvenc-buffered"
	BadgerName        = "badger"
	PebbleName        = "pebble"
)

// Engines: kvenc's store (package kv, defaults), the same with its WAL
// buffered (kv.Options.WALBuffered, unless Config.Sync), raw Badger v4
// (one key per record, compression off: the records are random bytes)
// and Pebble v2 (defaults), every one with Config's cache and
// durability.
func Engines() []Engine {
	return []Engine{{KvencName, openKvenc}, {KvencBufferedName, openKvencBuffered}, {BadgerName, openBadger}, {PebbleName, openPebble}}
}

// KvencFor returns the kvenc engine that stands beside peer at the same
// durability without Config.Sync: kvenc-buffered for Pebble (a commit
// with Sync false returns once its record is in the log writer's buffer;
// a crash of the process may lose it), kvenc for the others (Badger's
// writes are in its memory-mapped memtable file when they return, and
// kvenc's in its WAL file: both survive a crash of the process).
func KvencFor(peer string) string {
	if peer == PebbleName || peer == KvencBufferedName {
		return KvencBufferedName
	}
	return KvencName
}

type kvencStore struct{ s *kv.Store }

func openKvenc(dir string, c Config) (Store, error) { return openKvencWith(dir, c, false) }

func openKvencBuffered(dir string, c Config) (Store, error) { return openKvencWith(dir, c, !c.Sync) }

func openKvencWith(dir string, c Config, buffered bool) (Store, error) {
	o := kv.DefaultOptions(dir)
	o.CacheSize, o.SyncWrites, o.WALBuffered = c.Cache, c.Sync, buffered
	s, err := kv.Open(o)
	if err != nil {
		return nil, err
	}
	return &kvencStore{s}, nil
}

func (k *kvencStore) Get(key []byte) ([]byte, error) {
	v, err := k.s.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil, errNotFound
	}
	return v, err
}

func (k *kvencStore) Put(key, value []byte) error { return k.s.Put(key, value) }
func (k *kvencStore) Delete(key []byte) error     { return k.s.Delete(key) }
func (k *kvencStore) Close() error                { return k.s.Close() }
func (k *kvencStore) walWrites() int64            { return k.s.Stats().WALWrites }

func (k *kvencStore) Scan(start []byte, n int, fn func(key, value []byte) error) error {
	it := k.s.NewIterator(kv.IterOptions{LowerBound: start})
	for ok := it.First(); ok && n > 0; ok = it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
		n--
	}
	if err := it.Err(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}

type badgerStore struct{ db *badger.DB }

func openBadger(dir string, c Config) (Store, error) {
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithCompression(options.None).
		WithBlockCacheSize(c.Cache).WithSyncWrites(c.Sync))
	if err != nil {
		return nil, err
	}
	return &badgerStore{db}, nil
}

// Get copies the value: YCSB threads call it concurrently.
func (b *badgerStore) Get(key []byte) ([]byte, error) {
	var v []byte
	err := b.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, errNotFound
	}
	return v, err
}

func (b *badgerStore) Put(key, value []byte) error {
	return b.db.Update(func(txn *badger.Txn) error { return txn.Set(key, value) })
}

func (b *badgerStore) Delete(key []byte) error {
	return b.db.Update(func(txn *badger.Txn) error { return txn.Delete(key) })
}

func (b *badgerStore) Scan(start []byte, n int, fn func(key, value []byte) error) error {
	return b.db.View(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.PrefetchValues = false
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Seek(start); it.Valid() && n > 0; it.Next() {
			item := it.Item()
			if err := item.Value(func(v []byte) error { return fn(item.Key(), v) }); err != nil {
				return err
			}
			n--
		}
		return nil
	})
}

func (b *badgerStore) Close() error { return b.db.Close() }
