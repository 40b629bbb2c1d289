package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	badger "github.com/dgraph-io/badger/v4"
)

// storeView reads a kvenc store's Badger directory, opened read-only: its
// registry entry, segment metas, block keys, blocks, WAL records and files.
type storeView struct {
	dir    string
	db     *badger.DB
	prefix []byte
	ns     []byte // prefix + separator
}

// openStoreArgs parses the arguments of a command on one store
// directory, with --prefix, and opens its store.
func openStoreArgs(fs *flag.FlagSet, args []string) (*storeView, error) {
	prefix := prefixFlag(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, fmt.Errorf("%w: want one store directory", errUsage)
	}
	return openStoreView(pos[0], prefix.get())
}

// openStoreView opens the store under prefix in dir; with prefix nil, the
// only store of the directory.
func openStoreView(dir string, prefix []byte) (*storeView, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: %s is not a directory", errNoStore, dir)
	}
	db, err := openBadgerReadOnly(dir)
	if err != nil {
		if strings.Contains(err.Error(), "not a Badger directory") {
			return nil, fmt.Errorf("%w: %s holds no Badger DB (no MANIFEST)", errNoStore, dir)
		}
		return nil, err
	}
	v := &storeView{dir: dir, db: db}
	regs := map[string][]byte{}
	err = db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: kvencRegistry, PrefetchValues: true})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			val, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			regs[string(it.Item().Key()[len(kvencRegistry):])] = val
		}
		return nil
	})
	if err == nil {
		err = v.pick(regs, prefix)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return v, nil
}

// pick chooses the store among the registry entries regs.
func (v *storeView) pick(regs map[string][]byte, prefix []byte) error {
	names := make([]string, 0, len(regs))
	for p := range regs {
		names = append(names, fmt.Sprintf("%q", p))
	}
	slices.Sort(names)
	if prefix == nil {
		switch len(regs) {
		case 0:
			return fmt.Errorf("%w: %s has no kvenc registry entry (not a kvenc store, or one of key layout 1, which this kvenc does not read)", errNoStore, v.dir)
		case 1:
			for p := range regs {
				prefix = []byte(p)
			}
		default:
			return fmt.Errorf("%s holds %d kvenc stores (prefixes %s): choose one with --prefix", v.dir, len(regs), strings.Join(names, ", "))
		}
	}
	val, ok := regs[string(prefix)]
	if !ok {
		return fmt.Errorf("%w: %s has no kvenc store with prefix %q (its stores: %s)", errNoStore, v.dir, prefix, strings.Join(names, ", "))
	}
	if len(val) != 1 || val[0] != keyLayout {
		return fmt.Errorf("%w: the registry entry of prefix %q says key layout %x (this kvenc reads layout %d)", errFormat, prefix, val, keyLayout)
	}
	v.prefix = prefix
	v.ns = append(append([]byte(nil), prefix...), separator)
	return nil
}

func (v *storeView) close() error { return v.db.Close() }

func (v *storeView) tagged(t byte) []byte { return append(append([]byte(nil), v.ns...), t) }

// storeSeg is one segment: its meta (or the error decoding it) and its
// block keys in order.
type storeSeg struct {
	id        uint64
	meta      *segMeta
	metaErr   error
	metaBytes int
	blocks    []blockRef
}

// blockRef is a block's Badger key and value size.
type blockRef struct {
	key  []byte
	last []byte // the block's last key, from its Badger key
	size int
}

// segments reads every meta and every block key (not the blocks) in
// segment id order; blocks whose segment has no meta come back as
// segments with a nil meta and a nil metaErr.
func (v *storeView) segments() ([]*storeSeg, error) {
	byID := map[uint64]*storeSeg{}
	get := func(id uint64) *storeSeg {
		if byID[id] == nil {
			byID[id] = &storeSeg{id: id}
		}
		return byID[id]
	}
	err := v.db.View(func(txn *badger.Txn) error {
		mp := v.tagged(tagMeta)
		it := txn.NewIterator(badger.IteratorOptions{Prefix: mp, PrefetchValues: true})
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(mp)+8 {
				continue // not in the layout: kv reports it as a foreign key
			}
			s := get(binary.BigEndian.Uint64(k[len(mp):]))
			val, err := it.Item().ValueCopy(nil)
			if err != nil {
				it.Close()
				return err
			}
			s.metaBytes = len(val)
			s.meta, s.metaErr = decodeMeta(val)
			if s.metaErr != nil {
				s.metaErr = fmt.Errorf("meta: %w", s.metaErr)
			} else if s.meta.id != s.id {
				s.metaErr = fmt.Errorf("%w: the meta says segment %d", errCorrupt, s.meta.id)
			}
		}
		it.Close()
		sp := v.tagged(tagSegment)
		it = txn.NewIterator(badger.IteratorOptions{Prefix: sp})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) < len(sp)+8 {
				continue
			}
			s := get(binary.BigEndian.Uint64(k[len(sp):]))
			key := it.Item().KeyCopy(nil)
			s.blocks = append(s.blocks, blockRef{key: key, last: key[len(sp)+8:], size: int(it.Item().ValueSize())})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*storeSeg, 0, len(byID))
	for _, s := range byID {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *storeSeg) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	return out, nil
}

// block reads a block's bytes.
func (v *storeView) block(ref blockRef) ([]byte, error) {
	var b []byte
	err := v.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(ref.key)
		if err != nil {
			return err
		}
		b, err = item.ValueCopy(nil)
		return err
	})
	return b, err
}

// walInBadger reads the WAL records kept in Badger (Wrap, or an earlier
// version's store), their chunks joined in order.
func (v *storeView) walInBadger() ([]walRecord, []error) {
	var recs []walRecord
	var errs []error
	wp := v.tagged(tagWAL)
	_ = v.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: wp, PrefetchValues: true})
		defer it.Close()
		var cur []byte
		var curSeq uint64
		flush := func() {
			if cur == nil {
				return
			}
			r, err := decodeWALRecord(cur)
			if err != nil {
				errs = append(errs, fmt.Errorf("WAL record in Badger, seq %d: %w", curSeq, err))
			} else {
				recs = append(recs, r)
			}
			cur = nil
		}
		for it.Rewind(); it.Valid(); it.Next() {
			k := it.Item().Key()
			if len(k) != len(wp)+10 {
				continue
			}
			seq := binary.BigEndian.Uint64(k[len(wp):])
			if cur != nil && seq != curSeq {
				flush()
			}
			curSeq = seq
			val, err := it.Item().ValueCopy(nil)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			cur = append(cur, val...)
		}
		flush()
		return nil
	})
	return recs, errs
}

// walFiles reads the store's WAL files (wal/*.log), in name order.
func (v *storeView) walFiles() []walFile {
	names, _ := filepath.Glob(filepath.Join(v.dir, "wal", "*.log"))
	slices.Sort(names)
	var out []walFile
	for _, n := range names {
		out = append(out, readWALFile(n, filepath.Join("wal", filepath.Base(n))))
	}
	return out
}

// diskBytes returns the bytes of every file under the directory.
func (v *storeView) diskBytes() int64 {
	var n int64
	_ = filepath.Walk(v.dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// partOf returns the index of the part holding block i of m.
func partOf(m *segMeta, i int) int {
	var n uint64
	for p, pt := range m.parts {
		n += pt.blocks
		if uint64(i) < n {
			return p
		}
	}
	return len(m.parts) - 1
}

// bytesBefore reports whether a sorts before b (keys).
func bytesBefore(a, b []byte) bool { return bytes.Compare(a, b) < 0 }
