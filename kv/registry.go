package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/wal"
)

// Separator is the byte between Options.Prefix and a Store's key tag: a
// Store owns exactly the engine keys that start with Prefix+Separator
// (its namespace). Part of the format (key layout 2), never change it.
const Separator byte = 0x00

// open is the set of Stores open in this process, by the store they are
// on (a *badger.DB) and Prefix.
var open = struct {
	sync.Mutex
	m map[any]map[string]bool
}{m: map[any]map[string]bool{}}

// register claims opts.Prefix in eng, the store named id, for a Store: in
// this process (a second Store on one prefix fails) and in the registry in
// eng (a prefix whose namespace overlaps a registered one fails; the first
// Store on a prefix records it). release undoes the in-process claim.
//
// The registry is read and written under the lock of the claims of this
// process, not in one transaction of eng: a Badger DB is open in one
// process at a time.
func register(eng engine.Engine, id any, prefix []byte) (release func(), err error) {
	if bytes.HasPrefix(prefix, layout.RegistryPrefix) {
		return nil, fmt.Errorf("%w: Prefix %q starts with kv's registry prefix %q", ErrInvalidOptions, prefix, layout.RegistryPrefix)
	}
	open.Lock()
	defer open.Unlock()
	if open.m[id][string(prefix)] {
		return nil, fmt.Errorf("%w: a Store with Prefix %q is already open on this DB in this process; Close it first", ErrPrefixInUse, prefix)
	}
	if err := registerIn(eng, prefix); err != nil {
		return nil, err
	}
	if open.m[id] == nil {
		open.m[id] = map[string]bool{}
	}
	open.m[id][string(prefix)] = true
	return func() {
		open.Lock()
		defer open.Unlock()
		delete(open.m[id], string(prefix))
		if len(open.m[id]) == 0 {
			delete(open.m, id)
		}
	}, nil
}

// registerIn checks prefix against the registry in eng and records it
// when it is new. A new prefix must have an empty namespace and no store
// of key layout 1 under it.
func registerIn(eng engine.Engine, prefix []byte) error {
	if err := eng.Err(); err != nil {
		return fmt.Errorf("kv: open store %q: %w", prefix, err)
	}
	found := false
	err := scanKeys(eng, layout.RegistryPrefix, func(it engine.Iter) error {
		q := it.Key()[len(layout.RegistryPrefix):]
		if !layout.Overlaps(prefix, q) {
			return nil
		}
		if !bytes.Equal(prefix, q) {
			return fmt.Errorf("%w: Prefix %q: its namespace %q overlaps that of the store with Prefix %q registered in this DB (%q)",
				ErrPrefixInUse, prefix, layout.NewKeys(prefix).NS, q, layout.NewKeys(q).NS)
		}
		found = true
		return it.Value(engine.ViewFunc(func(v []byte) error { return checkLayout(prefix, v) }))
	})
	if err != nil || found {
		return err
	}
	if err := checkUnclaimed(eng, prefix); err != nil {
		return err
	}
	var b engine.Batch
	b.Set(layout.RegistryKey(prefix), []byte{layout.Version})
	return eng.Write(&b)
}

// checkLayout checks v, the registry entry of prefix: the key layout
// version, then what the engine keeps there (a lease), which kv ignores.
func checkLayout(prefix, v []byte) error {
	if len(v) < 1 || v[0] != layout.Version {
		return fmt.Errorf("%w: registry entry of Prefix %q says key layout %x (this version reads layout %d)", ErrFormat, prefix, v, layout.Version)
	}
	return nil
}

// registeredIn checks that a Store of this layout is registered under
// prefix in eng, for a ReadOnly Store, which claims nothing.
func registeredIn(eng engine.Engine, prefix []byte) error {
	if err := eng.Err(); err != nil {
		return fmt.Errorf("kv: open store %q: %w", prefix, err)
	}
	err := eng.Get(layout.RegistryKey(prefix), engine.ViewFunc(func(v []byte) error { return checkLayout(prefix, v) }))
	if errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("%w: ReadOnly: no Store registered under Prefix %q", ErrNotFound, prefix)
	}
	return err
}

// scanKeys calls f on an iterator over the keys of eng that start with p, at
// each key in order, until f fails.
func scanKeys(eng engine.Engine, p []byte, f func(it engine.Iter) error) error {
	return scanKeysRange(eng, p, engine.PrefixEnd(p), f)
}

// scanKeysRange is scanKeys for the keys in [lower, upper).
func scanKeysRange(eng engine.Engine, lower, upper []byte, f func(it engine.Iter) error) error {
	return engine.Scan(eng, lower, upper, f)
}

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// checkUnclaimed refuses a new prefix whose namespace already holds keys
// (not kv's: no store is registered there) or under which a store of key
// layout 1 lives.
func checkUnclaimed(eng engine.Engine, prefix []byte) error {
	ns := layout.NewKeys(prefix).NS
	var k []byte
	err := scanKeys(eng, ns, func(it engine.Iter) error {
		k = bytes.Clone(it.Key())
		return errStop
	})
	if err != nil && err != errStop {
		return err
	}
	if k != nil {
		return fmt.Errorf("%w: Prefix %q: the DB has key %q in the store's namespace %q but no store registered there; kv will not take keys it did not write: move them or choose another Prefix",
			ErrPrefixInUse, prefix, k, ns)
	}
	if k, err = findLayout1(eng, prefix); err != nil {
		return err
	}
	if k != nil {
		return fmt.Errorf("%w: Prefix %q holds a store of key layout 1 (key %q), which this version does not read: read its cells with the kvenc version that wrote it and write them into a Store of this version (under a new Prefix, or here once the old keys are deleted)",
			ErrFormat, prefix, k)
	}
	return nil
}

// findLayout1 returns a key of a layout 1 store under prefix, or nil: a
// segment meta (P 'm' id) or the first chunk of a WAL record (P 'w' seq 0)
// whose value checks out as one.
func findLayout1(eng engine.Engine, prefix []byte) ([]byte, error) {
	var found []byte
	for _, tag := range []byte{layout.TagMeta, layout.TagWAL} {
		p := append(append([]byte(nil), prefix...), tag)
		err := scanKeys(eng, p, func(it engine.Iter) error {
			k := it.Key()
			var ok bool
			if err := it.Value(engine.ViewFunc(func(v []byte) error {
				ok = layout1Value(tag, k[len(p):], v)
				return nil
			})); err != nil {
				return err
			}
			if ok {
				found = bytes.Clone(k)
				return errStop
			}
			return nil
		})
		if err != nil && err != errStop {
			return nil, err
		}
		if found != nil {
			return found, nil
		}
	}
	return nil, nil
}

// layout1Value reports whether v under the tag and the rest of a layout 1
// key is a segment meta or a WAL record's first chunk of that store.
func layout1Value(tag byte, rest, v []byte) bool {
	switch tag {
	case layout.TagMeta:
		if len(rest) != 8 {
			return false
		}
		m, err := segment.DecodeMeta(v)
		return err == nil && m.ID == binary.BigEndian.Uint64(rest)
	case layout.TagWAL:
		if len(rest) != 10 || binary.BigEndian.Uint16(rest[8:]) != 0 {
			return false
		}
		if seq, _, err := wal.Decode(v); err == nil {
			return seq == binary.BigEndian.Uint64(rest)
		}
		// A record of more than one chunk: its header.
		return len(v) >= 9 && v[0] == wal.Version && binary.LittleEndian.Uint64(v[1:]) == binary.BigEndian.Uint64(rest)
	}
	return false
}
