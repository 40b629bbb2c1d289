package kv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	badger "github.com/dgraph-io/badger/v4"
)

// registryPrefix starts the registry entry of every Store of a DB:
// registryPrefix+Prefix -> layout version u8. It holds no Separator byte,
// so no Store's namespace contains it (a Prefix that starts with it is
// refused). Part of the format, never change it.
var registryPrefix = []byte("\xffkvenc/store/")

// open is the set of Stores open in this process, by DB and Prefix.
var open = struct {
	sync.Mutex
	m map[*badger.DB]map[string]bool
}{m: map[*badger.DB]map[string]bool{}}

// overlaps reports whether the namespaces of stores with prefixes p and q
// share a key: one of p+Separator and q+Separator is a prefix of the other.
func overlaps(p, q []byte) bool {
	return bytes.Equal(p, q) || hasNSPrefix(p, q) || hasNSPrefix(q, p)
}

// hasNSPrefix reports whether p starts with q+Separator.
func hasNSPrefix(p, q []byte) bool {
	return len(p) > len(q) && p[len(q)] == Separator && bytes.HasPrefix(p, q)
}

// register claims opts.Prefix in db for a Store: in this process (a second
// Store on one prefix fails) and in db's registry (a prefix whose namespace
// overlaps a registered one fails; the first Store on a prefix records
// it). release undoes the in-process claim.
func register(db *badger.DB, prefix []byte) (release func(), err error) {
	if bytes.HasPrefix(prefix, registryPrefix) {
		return nil, fmt.Errorf("%w: Prefix %q starts with kv's registry prefix %q", ErrInvalidOptions, prefix, registryPrefix)
	}
	open.Lock()
	defer open.Unlock()
	if open.m[db][string(prefix)] {
		return nil, fmt.Errorf("%w: a Store with Prefix %q is already open on this DB in this process; Close it first", ErrPrefixInUse, prefix)
	}
	if err := registerInDB(db, prefix); err != nil {
		return nil, err
	}
	if open.m[db] == nil {
		open.m[db] = map[string]bool{}
	}
	open.m[db][string(prefix)] = true
	return func() {
		open.Lock()
		defer open.Unlock()
		delete(open.m[db], string(prefix))
		if len(open.m[db]) == 0 {
			delete(open.m, db)
		}
	}, nil
}

func registryKey(prefix []byte) []byte {
	return append(append([]byte(nil), registryPrefix...), prefix...)
}

// registerInDB checks prefix against the registry of db and records it
// when it is new. A new prefix must have an empty namespace and no store
// of key layout 1 under it.
func registerInDB(db *badger.DB, prefix []byte) error {
	if db.IsClosed() {
		return fmt.Errorf("kv: open store %q: %w", prefix, badger.ErrDBClosed)
	}
	return db.Update(func(txn *badger.Txn) error {
		found := false
		it := txn.NewIterator(badger.IteratorOptions{Prefix: registryPrefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			q := it.Item().Key()[len(registryPrefix):]
			if !overlaps(prefix, q) {
				continue
			}
			if !bytes.Equal(prefix, q) {
				return fmt.Errorf("%w: Prefix %q: its namespace %q overlaps that of the store with Prefix %q registered in this DB (%q)",
					ErrPrefixInUse, prefix, newKeys(prefix).ns, q, newKeys(q).ns)
			}
			found = true
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if len(v) != 1 || v[0] != layoutVersion {
				return fmt.Errorf("%w: registry entry of Prefix %q says key layout %x (this version reads layout %d)", ErrFormat, prefix, v, layoutVersion)
			}
		}
		if found {
			return nil
		}
		if err := checkUnclaimed(txn, prefix); err != nil {
			return err
		}
		return txn.Set(registryKey(prefix), []byte{layoutVersion})
	})
}

// checkUnclaimed refuses a new prefix whose namespace already holds keys
// (not kv's: no store is registered there) or under which a store of key
// layout 1 lives.
func checkUnclaimed(txn *badger.Txn, prefix []byte) error {
	ns := newKeys(prefix).ns
	it := txn.NewIterator(badger.IteratorOptions{Prefix: ns})
	it.Rewind()
	if it.Valid() {
		k := it.Item().KeyCopy(nil)
		it.Close()
		return fmt.Errorf("%w: Prefix %q: the DB has key %q in the store's namespace %q but no store registered there; kv will not take keys it did not write: move them or choose another Prefix",
			ErrPrefixInUse, prefix, k, ns)
	}
	it.Close()
	if k := findLayout1(txn, prefix); k != nil {
		return fmt.Errorf("%w: Prefix %q holds a store of key layout 1 (key %q), which this version does not read: read its cells with the kvenc version that wrote it and write them into a Store of this version (under a new Prefix, or here once the old keys are deleted)",
			ErrFormat, prefix, k)
	}
	return nil
}

// findLayout1 returns a key of a layout 1 store under prefix, or nil: a
// segment meta (P 'm' id) or the first chunk of a WAL record (P 'w' seq 0)
// whose value checks out as one.
func findLayout1(txn *badger.Txn, prefix []byte) []byte {
	for _, tag := range []byte{tagMeta, tagWAL} {
		p := append(append([]byte(nil), prefix...), tag)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p})
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			k := item.Key()
			var ok bool
			_ = item.Value(func(v []byte) error {
				ok = layout1Value(tag, k[len(p):], v)
				return nil
			})
			if ok {
				k = item.KeyCopy(nil)
				it.Close()
				return k
			}
		}
		it.Close()
	}
	return nil
}

// layout1Value reports whether v under the tag and the rest of a layout 1
// key is a segment meta or a WAL record's first chunk of that store.
func layout1Value(tag byte, rest, v []byte) bool {
	switch tag {
	case tagMeta:
		if len(rest) != 8 {
			return false
		}
		m, err := decodeMeta(v)
		return err == nil && m.id == binary.BigEndian.Uint64(rest)
	case tagWAL:
		if len(rest) != 10 || binary.BigEndian.Uint16(rest[8:]) != 0 {
			return false
		}
		if seq, _, err := decodeWAL(v); err == nil {
			return seq == binary.BigEndian.Uint64(rest)
		}
		// A record of more than one chunk: its header.
		return len(v) >= 9 && v[0] == walVersion && binary.LittleEndian.Uint64(v[1:]) == binary.BigEndian.Uint64(rest)
	}
	return false
}
