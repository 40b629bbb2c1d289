package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"testing"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/kvenc/kvenc/kv"
)

// kvModel is the reference for FuzzKV: live keys and values.
type kvModel map[string]string

func (m kvModel) sorted(lo, hi []byte) [][2]string {
	var out [][2]string
	for k, v := range m {
		if lo != nil && k < string(lo) || hi != nil && k >= string(hi) {
			continue
		}
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

func kvScan(it *kv.Iterator) ([][2]string, error) {
	var out [][2]string
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, [2]string{string(it.Key()), string(it.Value())})
	}
	err := it.Err()
	it.Close()
	return out, err
}

func kvFuzzOptions() kv.Options {
	o := kv.DefaultOptions("")
	o.Prefix = []byte("fz/")
	o.BlockSize = 256
	o.MemstoreSize = 64 << 10
	o.CacheSize = 4 << 10
	o.CompactionTrigger = 2
	return o
}

// FuzzKV reads the input as a program of store operations (one op byte,
// then its operands) and runs it against kv and an in-memory model,
// comparing them after every operation: Put, Delete, batches, Get, bounded
// scans, snapshots held across writes, Flush, Compact and Close+Wrap.
func FuzzKV(f *testing.F) {
	f.Add([]byte{0, 1, 3, 'a', 'b', 'c', 7, 1, 4, 2, 3, 0, 1, 5, 1, 2, 1, 9, 8, 0, 1})
	f.Add([]byte("\x00\x05\x02hi\x00\x06\x01x\x0c\x01\x05\x0d\x0a\x03\x04\x05\x0b\x01\x00\x0e"))
	f.Add(bytes.Repeat([]byte{0, 3, 10, 'v', 'a', 'l', 'u', 'e', '-', '-', '-', '-', '-', 12}, 20))
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			prog = prog[:4096]
		}
		db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil).WithMemTableSize(8 << 20))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s, err := kv.Wrap(db, kvFuzzOptions())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { s.Close() }()
		m := kvModel{}
		var snap *kv.Snapshot
		var snapModel kvModel
		defer func() {
			if snap != nil {
				snap.Close()
			}
		}()
		p := 0
		next := func() byte {
			if p >= len(prog) {
				return 0
			}
			p++
			return prog[p-1]
		}
		key := func() []byte { return []byte(fmt.Sprintf("k%02d", next()%32)) }
		val := func() []byte {
			n := int(next() % 40)
			v := make([]byte, n)
			for i := range v {
				v[i] = next()
			}
			return v
		}
		check := func(step int, k []byte) {
			got, err := s.Get(k)
			want, ok := m[string(k)]
			if ok && (err != nil || string(got) != want) || !ok && !errors.Is(err, kv.ErrNotFound) {
				t.Fatalf("step %d: Get(%q) = %q, %v; want %q (present %v)", step, k, got, err, want, ok)
			}
		}
		for step := 0; p < len(prog); step++ {
			op := next() % 16
			k := key()
			switch op {
			case 0, 1, 2:
				v := val()
				if err := s.Put(k, v); err != nil {
					t.Fatal(err)
				}
				m[string(k)] = string(v)
			case 3, 4:
				if err := s.Delete(k); err != nil {
					t.Fatal(err)
				}
				delete(m, string(k))
			case 5, 6:
				b := s.NewBatch()
				for n := next() % 5; n > 0; n-- {
					bk := key()
					if next()%3 == 0 {
						b.Delete(bk)
						delete(m, string(bk))
					} else {
						v := val()
						b.Put(bk, v)
						m[string(bk)] = string(v)
					}
				}
				if err := s.Apply(b); err != nil {
					t.Fatal(err)
				}
			case 7, 8:
				check(step, k)
			case 9:
				hi := key()
				got, err := kvScan(s.NewIterator(kv.IterOptions{LowerBound: k, UpperBound: hi}))
				if err != nil {
					t.Fatal(err)
				}
				if want := m.sorted(k, hi); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("step %d: scan [%q, %q) = %q; want %q", step, k, hi, got, want)
				}
			case 10:
				if snap != nil {
					snap.Close()
				}
				snap, snapModel = s.Snapshot(), kvModel{}
				for k, v := range m {
					snapModel[k] = v
				}
			case 11:
				if snap != nil {
					got, err := kvScan(snap.NewIterator(kv.IterOptions{}))
					if err != nil {
						t.Fatal(err)
					}
					if want := snapModel.sorted(nil, nil); fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("step %d: snapshot scan = %q; want %q", step, got, want)
					}
				}
			case 12:
				if err := s.Flush(); err != nil {
					t.Fatal(err)
				}
			case 13:
				if err := s.Compact(); err != nil {
					t.Fatal(err)
				}
			case 14:
				if snap != nil {
					snap.Close()
					snap = nil
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				if s, err = kv.Wrap(db, kvFuzzOptions()); err != nil {
					t.Fatal(err)
				}
			case 15:
				check(step, k)
			}
		}
		got, err := kvScan(s.NewIterator(kv.IterOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		if want := m.sorted(nil, nil); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("final scan = %q; want %q", got, want)
		}
	})
}
