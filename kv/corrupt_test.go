package kv

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
)

// keysWith returns the keys of db that start with p, in order.
func keysWith(t *testing.T, db *badger.DB, p []byte) [][]byte {
	t.Helper()
	var out [][]byte
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			out = append(out, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// flip xors one byte of key's value (at off modulo its length) with x and
// returns the value's length.
func flip(t *testing.T, db *badger.DB, key []byte, off int, x byte) int {
	t.Helper()
	n := 0
	err := db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		n = len(v)
		v[off%len(v)] ^= x
		return txn.Set(key, v)
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func isCorrupt(err error) bool {
	return errors.Is(err, ErrCorrupt) && errors.Is(err, blockenc.ErrCorrupt)
}

func TestCorruptBlocks(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o := testOptions("")
	o.Prefix = []byte("c/")
	s, err := Wrap(db, o)
	if err != nil {
		t.Fatal(err)
	}
	m := model{}
	for i := 0; i < 2000; i++ {
		k, v := fmt.Sprintf("key%05d", i), fmt.Sprintf("value-%d", i*i)
		if err := s.Put([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
		m[k] = v
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	blocks := keysWith(t, db, newKeys(o.Prefix).tag(tagSegment))
	if len(blocks) < 10 {
		t.Fatalf("%d blocks; want many", len(blocks))
	}
	segHdr := len(newKeys(o.Prefix).tag(tagSegment)) + 8
	all := m.rangeOf(nil, nil)
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 12; trial++ {
		bi := rng.IntN(len(blocks))
		off, x := rng.IntN(1<<20), byte(1+rng.IntN(255))
		flip(t, db, blocks[bi], off, x)

		s, err := Wrap(db, o) // a cold cache
		if err != nil {
			t.Fatal(err)
		}
		lo := ""
		if bi > 0 {
			lo = string(blocks[bi-1][segHdr:])
		}
		hi := string(blocks[bi][segHdr:])
		for _, p := range all {
			v, err := s.Get([]byte(p[0]))
			inBad := p[0] > lo && p[0] <= hi || bi == 0 && p[0] <= hi
			switch {
			case inBad && !isCorrupt(err):
				t.Fatalf("trial %d: Get(%q) in the corrupt block = %q, %v; want ErrCorrupt", trial, p[0], v, err)
			case !inBad && (err != nil || string(v) != p[1]):
				t.Fatalf("trial %d: Get(%q) = %q, %v; want %q", trial, p[0], v, err, p[1])
			}
		}
		it := s.NewIterator(IterOptions{})
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			if p := all[n]; string(it.Key()) != p[0] || string(it.Value()) != p[1] {
				t.Fatalf("trial %d: scan pair %d = %q %q, want %q", trial, n, it.Key(), it.Value(), p)
			}
			n++
		}
		if !isCorrupt(it.Err()) {
			t.Fatalf("trial %d: scan ended after %d pairs with Err %v; want ErrCorrupt", trial, n, it.Err())
		}
		if !isCorrupt(it.Close()) {
			t.Fatalf("trial %d: Close did not report the error", trial)
		}
		// A seek past the bad block still works.
		if bi+1 < len(blocks) {
			it := s.NewIterator(IterOptions{LowerBound: []byte(hi + "\x00")})
			if !it.First() || it.Err() != nil {
				t.Fatalf("trial %d: seek past the corrupt block: %v", trial, it.Err())
			}
			it.Close()
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		flip(t, db, blocks[bi], off, x) // repair
	}

	// A flipped meta, a flipped WAL record and a missing block make Wrap
	// fail with ErrCorrupt.
	metas := keysWith(t, db, newKeys(o.Prefix).tag(tagMeta))
	flip(t, db, metas[0], 9, 0x40)
	if _, err := Wrap(db, o); !isCorrupt(err) {
		t.Fatalf("Wrap with a corrupt meta: %v; want ErrCorrupt", err)
	}
	flip(t, db, metas[0], 9, 0x40)

	s, err = Wrap(db, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put([]byte("wal"), []byte("record")); err != nil {
		t.Fatal(err)
	}
	// Leave the record in the WAL: drop the store without Close.
	wal := keysWith(t, db, newKeys(o.Prefix).tag(tagWAL))
	if len(wal) != 1 {
		t.Fatalf("%d WAL keys, want 1", len(wal))
	}
	s.closed.Store(true)
	close(s.quit)
	<-s.bgDone
	s.release()
	flip(t, db, wal[0], 12, 0x01)
	if _, err := Wrap(db, o); !isCorrupt(err) {
		t.Fatalf("Wrap with a corrupt WAL record: %v; want ErrCorrupt", err)
	}
	flip(t, db, wal[0], 12, 0x01)
	s, err = Wrap(db, o)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get([]byte("wal")); err != nil || !bytes.Equal(v, []byte("record")) {
		t.Fatalf("replayed Get = %q, %v", v, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	blocks = keysWith(t, db, newKeys(o.Prefix).tag(tagSegment))
	if err := db.Update(func(txn *badger.Txn) error { return txn.Delete(blocks[3]) }); err != nil {
		t.Fatal(err)
	}
	if _, err := Wrap(db, o); !isCorrupt(err) {
		t.Fatalf("Wrap with a missing block: %v; want ErrCorrupt", err)
	}
}
