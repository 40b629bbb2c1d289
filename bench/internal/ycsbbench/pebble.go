package ycsbbench

import (
	"errors"

	"github.com/cockroachdb/pebble/v2"

	"github.com/kvenc/kvenc/bench/internal/quiet"
)

// pebbleStore is Pebble v2 with its default options (Snappy) but for the
// block cache; every write is a one-key batch committed with Sync or
// NoSync as Config says.
type pebbleStore struct {
	db    *pebble.DB
	cache *pebble.Cache
	wo    *pebble.WriteOptions
}

func openPebble(dir string, c Config) (Store, error) {
	cache := pebble.NewCache(c.Cache)
	db, err := pebble.Open(dir, &pebble.Options{Logger: quiet.Logger{Prefix: "pebble: "}, Cache: cache})
	if err != nil {
		cache.Unref()
		return nil, err
	}
	wo := pebble.NoSync
	if c.Sync {
		wo = pebble.Sync
	}
	return &pebbleStore{db: db, cache: cache, wo: wo}, nil
}

func (p *pebbleStore) Get(key []byte) ([]byte, error) {
	v, closer, err := p.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, errNotFound
	}
	if err != nil {
		return nil, err
	}
	v = append([]byte(nil), v...)
	return v, closer.Close()
}

func (p *pebbleStore) Put(key, value []byte) error { return p.db.Set(key, value, p.wo) }
func (p *pebbleStore) Delete(key []byte) error     { return p.db.Delete(key, p.wo) }

func (p *pebbleStore) Scan(start []byte, n int, fn func(key, value []byte) error) error {
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: start})
	if err != nil {
		return err
	}
	for ok := it.First(); ok && n > 0; ok = it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
		n--
	}
	if err := it.Error(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}

func (p *pebbleStore) Close() error {
	err := p.db.Close()
	p.cache.Unref()
	return err
}
