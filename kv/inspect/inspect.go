// Package inspect reads a kvenc store without writing to it, for tools
// that describe, check and dump one (the kvenc command): its registry
// entry, its segments' metas and blocks, and the WAL records not yet in a
// segment, in a WAL file or in the engine. It decodes them with kv's own
// decoders, so it reads what kv reads and refuses what kv refuses.
//
// A Store opens a Badger directory read-only (Open: a directory another
// process has open is refused by Badger's lock) or any engine (OpenEngine).
// Formats are those of package kv's doc: key layout 2, segment metas 1 to
// 4, WAL records 1 and 2, WAL files 1.
package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/layout"
)

// Errors.
var (
	// ErrNotStore: the directory or engine holds no kvenc store (under
	// the prefix asked for).
	ErrNotStore = errors.New("inspect: not a kvenc store")
	// ErrLocked: another process has the Badger directory open.
	ErrLocked = errors.New("inspect: the store is open in another process")
	// ErrFormat wraps kv.ErrFormat: a format version this kvenc does not
	// know (the registry's key layout, a meta, a WAL record or file).
	ErrFormat = kv.ErrFormat
	// ErrCorrupt is kv.ErrCorrupt: bytes that do not decode.
	ErrCorrupt = kv.ErrCorrupt
)

// KeyLayout is the key layout version this package reads (the first byte
// of a registry entry).
const KeyLayout = layout.Version

// Store is a read-only view of one kvenc store. It is not safe for
// concurrent use.
type Store struct {
	eng    engine.Engine
	db     *badger.DB // Open's, closed by Close
	dir    string     // Open's directory: its wal subdirectory holds WAL files
	prefix []byte
	keys   keys
}

// Open opens the store with prefix in the Badger directory dir,
// read-only; with prefix nil, the only store of the directory.
func Open(dir string, prefix []byte) (*Store, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", ErrNotStore, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
		return nil, fmt.Errorf("%w: %s holds no Badger DB (no MANIFEST)", ErrNotStore, dir)
	}
	db, err := badger.Open(badger.DefaultOptions(dir).WithReadOnly(true).WithLogger(nil))
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("%w: %s: close it first (%v)", ErrLocked, dir, err)
		}
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	s, err := OpenEngine(badgereng.Wrap(db), prefix)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	s.db, s.dir = db, dir
	return s, nil
}

// OpenEngine opens the store with prefix in e (nil: the only store of e).
// Close leaves e open.
func OpenEngine(e engine.Engine, prefix []byte) (*Store, error) {
	regs, err := registry(e)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(regs))
	for p := range regs {
		names = append(names, fmt.Sprintf("%q", p))
	}
	slices.Sort(names)
	if prefix == nil {
		switch len(regs) {
		case 0:
			return nil, fmt.Errorf("%w: no kvenc registry entry (or a store of key layout 1, which this kvenc does not read)", ErrNotStore)
		case 1:
			for p := range regs {
				prefix = []byte(p)
			}
		default:
			return nil, fmt.Errorf("%d kvenc stores (prefixes %s): choose one", len(regs), strings.Join(names, ", "))
		}
	}
	val, ok := regs[string(prefix)]
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: no kvenc store with prefix %q (its stores: %s)", ErrNotStore, prefix, strings.Join(names, ", "))
	case len(val) == 0 || val[0] != KeyLayout:
		return nil, fmt.Errorf("%w: the registry entry of prefix %q says key layout %x (this kvenc reads layout %d)", ErrFormat, prefix, val[:min(len(val), 1)], KeyLayout)
	}
	return &Store{eng: e, prefix: prefix, keys: newKeys(prefix)}, nil
}

// registry reads every registry entry of e: prefix -> value.
func registry(e engine.Engine) (map[string][]byte, error) {
	regs := map[string][]byte{}
	err := scan(e, layout.RegistryPrefix, func(k, v []byte) error {
		regs[string(k[len(layout.RegistryPrefix):])] = bytes.Clone(v)
		return nil
	}, true)
	return regs, err
}

// Prefix returns the store's Options.Prefix.
func (s *Store) Prefix() []byte { return s.prefix }

// Dir returns the directory Open opened ("" for OpenEngine).
func (s *Store) Dir() string { return s.dir }

// Close closes what Open opened.
func (s *Store) Close() error {
	if s.db != nil {
		return s.db.Close()
	}
	return nil
}

// scan calls f with every key with prefix p (and its value when values
// is set; nil otherwise), in order.
func scan(e engine.Engine, p []byte, f func(k, v []byte) error, values bool) error {
	it, err := e.NewIter(engine.IterOptions{Lower: p, Upper: engine.PrefixEnd(p)})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if !values {
			err = f(k, nil)
		} else {
			err = it.Value(viewFunc(func(v []byte) error { return f(k, v) }))
		}
		if err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Err(); err != nil {
		it.Close()
		return err
	}
	return it.Close()
}

// viewFunc is an engine.Viewer.
type viewFunc func([]byte) error

func (f viewFunc) View(v []byte) error { return f(v) }
