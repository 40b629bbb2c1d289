package kv

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// dump returns every key/value of db.
func dump(t *testing.T, db *badger.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().Key())] = string(v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func withoutPrefix(m map[string]string, p []byte) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if !bytes.HasPrefix([]byte(k), p) {
			out[k] = v
		}
	}
	return out
}

func TestWrapLeavesOtherKeysAlone(t *testing.T) {
	db, err := badger.Open(smallBadger(badger.DefaultOptions(t.TempDir())).WithLogger(nil).WithValueThreshold(1 << 10))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	prefix := []byte("kv/")
	// The caller's keys, many right next to the prefix and to kv's tags.
	mine := map[string]string{
		"kv": "a", "kv.": "b", "kv0": "c", "ku\xff": "d", "kw": "e", "": "",
		"kv\x00": "f", "s": "g", "m": "h", "w": "i", "kvs": "j", "big": string(make([]byte, 5000)),
	}
	delete(mine, "")
	if err := db.Update(func(txn *badger.Txn) error {
		for k, v := range mine {
			if err := txn.Set([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	o := testOptions("")
	o.Prefix = prefix
	m := model{}
	for round := 0; round < 3; round++ {
		s, err := Wrap(db, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3000; i++ {
			k := fmt.Sprintf("k%04d", (i*7919)%1200)
			if i%5 == 4 {
				if err := s.Delete([]byte(k)); err != nil {
					t.Fatal(err)
				}
				delete(m, k)
				continue
			}
			v := fmt.Sprintf("r%d-%d", round, i)
			if err := s.Put([]byte(k), []byte(v)); err != nil {
				t.Fatal(err)
			}
			m[k] = v
		}
		if err := s.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := s.Compact(); err != nil {
			t.Fatal(err)
		}
		got, err := scan(s.NewIterator(IterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if err := diffPairs(got, m.rangeOf(nil, nil)); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Put([]byte("x"), nil); !errors.Is(err, ErrClosed) {
			t.Fatalf("Put after Close: %v, want ErrClosed", err)
		}
		// db is still open, and the caller's keys are exactly as they were.
		all := dump(t, db)
		if got := withoutPrefix(all, prefix); fmt.Sprint(got) != fmt.Sprint(mine) {
			t.Fatalf("round %d: caller's keys changed:\ngot  %q\nwant %q", round, got, mine)
		}
		if len(all) == len(mine) {
			t.Fatalf("round %d: no kv keys in the DB", round)
		}
	}
	if _, err := Wrap(db, Options{}); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("Wrap without prefix: %v, want ErrInvalidOptions", err)
	}
	if managed(db) {
		t.Fatal("a normal DB reported as managed")
	}
	mdb, err := badger.OpenManaged(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer mdb.Close()
	if _, err := Wrap(mdb, o); !errors.Is(err, ErrInvalidOptions) {
		t.Fatalf("Wrap of a managed DB: %v, want ErrInvalidOptions", err)
	}
}

// A segment whose meta was never written (a flush or compaction cut short)
// is invisible and removed at Open; WAL records at or below the flushed seq
// are removed too.
func TestOpenRemovesPartialSegments(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	o := testOptions("")
	o.Prefix = []byte("p/")
	s, err := Wrap(db, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		if err := s.Put([]byte(fmt.Sprintf("k%03d", i)), []byte("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	k := keys{prefix: o.Prefix}
	orphan := [][]byte{k.block(999, []byte("k050")), k.block(999, []byte("k099")), k.wal(1, 0)}
	if err := db.Update(func(txn *badger.Txn) error {
		for _, key := range orphan {
			if err := txn.Set(key, []byte("garbage")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s, err = Wrap(db, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all := dump(t, db)
	for _, key := range orphan {
		if _, ok := all[string(key)]; ok {
			t.Errorf("%q still there after Open", key)
		}
	}
	got, err := scan(s.NewIterator(IterOptions{}))
	if err != nil || len(got) != 100 {
		t.Fatalf("%d pairs, %v", len(got), err)
	}
	if s.nextSegID.Load() < 999 {
		t.Errorf("next segment id %d reuses the orphan's id", s.nextSegID.Load())
	}
}
