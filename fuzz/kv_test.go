package fuzz

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/internal/itertest"
	"github.com/kvenc/kvenc/kv"
)

// kvModel is the reference for FuzzKV: live keys and values.
type kvModel map[string]string

func (m kvModel) deleteRange(lo, hi []byte) {
	for k := range m {
		if k >= string(lo) && k < string(hi) {
			delete(m, k)
		}
	}
}

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

// kvScan returns every pair the iterator shows, from First forward or
// from Last backward, and its Err.
func kvScan(it *kv.Iterator, backward bool) ([][2]string, error) {
	var out [][2]string
	start, step := it.First, it.Next
	if backward {
		start, step = it.Last, it.Prev
	}
	for ok := start(); ok; ok = step() {
		out = append(out, [2]string{string(it.Key()), string(it.Value())})
	}
	err := it.Err()
	it.Close()
	return out, err
}

// reversedPairs returns a reversed copy of p.
func reversedPairs(p [][2]string) [][2]string {
	out := slices.Clone(p)
	slices.Reverse(out)
	return out
}

// kvFuzzPrefixes are the prefixes of FuzzKV's two Stores in one DB: one
// extends the other, so a Store that took keys outside its namespace would
// show the other's cells.
var kvFuzzPrefixes = [2]string{"fz", "fz/"}

func kvFuzzOptions(prefix string) kv.Options {
	o := kv.DefaultOptions("")
	o.Prefix = []byte(prefix)
	o.BlockSize = 256
	o.MemstoreSize = 64 << 10
	o.CacheSize = 4 << 10
	o.CompactionTrigger = 2
	return o
}

// FuzzKV reads the input as a program of store operations (one op byte,
// then its operands) and runs it against two Stores in one DB, with
// prefixes that extend each other, and an in-memory model of each,
// comparing them after every operation: Put, Delete, DeleteRange,
// batches (with range deletes), Get, bounded scans forward and backward,
// walks that change direction (with bounds or a prefix), snapshots held
// across writes, Flush, Compact and Close+Wrap. Bit 4 of the op byte picks
// the Store; bits 5 and 6 pick the kind of scan.
func FuzzKV(f *testing.F) {
	f.Add([]byte{0, 1, 3, 'a', 'b', 'c', 7, 1, 4, 2, 3, 0, 1, 5, 1, 2, 1, 9, 8, 0, 1})
	f.Add([]byte("\x00\x05\x02hi\x00\x06\x01x\x0c\x01\x05\x0d\x0a\x03\x04\x05\x0b\x01\x00\x0e"))
	f.Add(bytes.Repeat([]byte{0, 3, 10, 'v', 'a', 'l', 'u', 'e', '-', '-', '-', '-', '-', 12}, 20))
	// Versions in memstore and segments, then backward scans, walks (one
	// with a prefix) and a snapshot walk.
	f.Add([]byte("\x00\x01\x01a\x00\x02\x01b\x0a\x00\x03\x01\x0c\x00\x00\x01\x01c\x04\x03" +
		"\x29\x00\x05\x49\x00\x04\x09\x00\x0a\x01\x00\x03\x05\x05\x05\x04\x04\x04\x02\x21\x69\x00\x03\x00\x00\x05\x00\x04\x00" +
		"\x0d\x00\x4b\x00\x05\x01\x00\x05\x00\x04\x00\x04\x00\x00\x00\x0e\x00\x29\x00\x1f"))
	// Both Stores write the same key, flush, compact and reopen.
	f.Add([]byte("\x00\x05\x02s1\x10\x05\x02s2\x0c\x00\x1c\x00\x0d\x00\x1d\x00\x0e\x00\x07\x05\x17\x05\x09\x00\x1f\x19\x00\x1f"))
	// Puts, a snapshot, a range delete, flush, compact, a snapshot scan,
	// a batch with a range delete between Puts, reopen.
	f.Add([]byte("\x00\x03\x01a\x00\x05\x01b\x00\x09\x01c\x0a\x00\x0f\x02\x08\x0c\x00\x0d\x00\x0b\x00\x09\x00\x1f" +
		"\x05\x00\x03\x04\x01\x01x\x06\x01\x0a\x05\x01\x01y\x0e\x00\x09\x00\x1f\x0d\x00\x09\x00\x1f"))
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 4096 {
			prog = prog[:4096]
		}
		db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil).WithMemTableSize(8 << 20))
		require.NoError(t, err)
		defer db.Close()
		var stores [2]*kv.Store
		var models [2]kvModel
		var snaps [2]*kv.Snapshot
		var snapModels [2]kvModel
		for i, p := range kvFuzzPrefixes {
			stores[i], err = kv.Wrap(db, kvFuzzOptions(p))
			require.NoError(t, err)
			models[i] = kvModel{}
		}
		defer func() {
			for i := range stores {
				if snaps[i] != nil {
					snaps[i].Close()
				}
				stores[i].Close()
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
		// walkProg takes a walk's moves from the program: a count, then two
		// bytes a move (see itertest.Walk).
		walkProg := func() []byte {
			n := 2 * int(next()%24)
			end := min(p+n, len(prog))
			moves := prog[p:end]
			p = end
			return moves
		}
		seekKey := func(b byte) []byte {
			k := []byte(fmt.Sprintf("k%02d", b%32))
			if b&0x20 != 0 {
				k = append(k, 0) // between two keys
			}
			return k
		}
		for step := 0; p < len(prog); step++ {
			b := next()
			op, w := b%16, int(b>>4)&1
			s, m := stores[w], models[w]
			walk := func(o kv.IterOptions, want [][2]string, what string) {
				it := s.NewIterator(o)
				itertest.Walk(t, it, want, walkProg(), seekKey, what)
				require.NoError(t, it.Close())
			}
			k := key()
			check := func(k []byte) {
				got, err := s.Get(k)
				if want, ok := m[string(k)]; ok {
					require.NoError(t, err, "step %d store %d: Get(%q)", step, w, k)
					require.Equal(t, want, string(got), "step %d store %d: Get(%q)", step, w, k)
				} else {
					require.ErrorIs(t, err, kv.ErrNotFound, "step %d store %d: Get(%q) = %q", step, w, k, got)
				}
			}
			switch op {
			case 0, 1, 2:
				v := val()
				require.NoError(t, s.Put(k, v))
				m[string(k)] = string(v)
			case 3, 4:
				require.NoError(t, s.Delete(k))
				delete(m, string(k))
			case 5, 6:
				b := s.NewBatch()
				for n := next() % 5; n > 0; n-- {
					bk := key()
					if c := next() % 6; c == 0 {
						b.Delete(bk)
						delete(m, string(bk))
					} else if c == 1 {
						end := key()
						b.DeleteRange(bk, end)
						m.deleteRange(bk, end)
					} else {
						v := val()
						b.Put(bk, v)
						m[string(bk)] = string(v)
					}
				}
				require.NoError(t, s.Apply(b))
			case 7, 8:
				check(k)
			case 15:
				end := key()
				require.NoError(t, s.DeleteRange(k, end))
				m.deleteRange(k, end)
				check(k)
			case 9:
				hi := key()
				o := kv.IterOptions{LowerBound: k, UpperBound: hi}
				want := m.sorted(k, hi)
				switch b >> 5 & 3 {
				case 0:
					got, err := kvScan(s.NewIterator(o), false)
					require.NoError(t, err)
					require.Equal(t, want, got, "step %d store %d: scan [%q, %q)", step, w, k, hi)
				case 1:
					got, err := kvScan(s.NewIterator(o), true)
					require.NoError(t, err)
					require.Equal(t, reversedPairs(want), got, "step %d store %d: backward scan [%q, %q)", step, w, k, hi)
				case 2:
					walk(o, want, fmt.Sprintf("step %d store %d: walk [%q, %q)", step, w, k, hi))
				default:
					o = kv.IterOptions{Prefix: k[:2]} // "k0" to "k3"
					walk(o, m.sorted(k[:2], []byte{k[0], k[1] + 1}), fmt.Sprintf("step %d store %d: walk prefix %q", step, w, k[:2]))
				}
			case 10:
				if snaps[w] != nil {
					snaps[w].Close()
				}
				snaps[w], snapModels[w] = s.Snapshot(), kvModel{}
				for k, v := range m {
					snapModels[w][k] = v
				}
			case 11:
				if snaps[w] != nil {
					want := snapModels[w].sorted(nil, nil)
					switch b >> 5 & 3 {
					case 0:
						got, err := kvScan(snaps[w].NewIterator(kv.IterOptions{}), false)
						require.NoError(t, err)
						require.Equal(t, want, got, "step %d store %d: snapshot scan", step, w)
					case 1:
						got, err := kvScan(snaps[w].NewIterator(kv.IterOptions{}), true)
						require.NoError(t, err)
						require.Equal(t, reversedPairs(want), got, "step %d store %d: snapshot backward scan", step, w)
					default:
						it := snaps[w].NewIterator(kv.IterOptions{})
						itertest.Walk(t, it, want, walkProg(), seekKey, fmt.Sprintf("step %d store %d: snapshot walk", step, w))
						require.NoError(t, it.Close())
					}
				}
			case 12:
				require.NoError(t, s.Flush())
			case 13:
				require.NoError(t, s.Compact())
			case 14:
				if snaps[w] != nil {
					snaps[w].Close()
					snaps[w] = nil
				}
				require.NoError(t, s.Close())
				stores[w], err = kv.Wrap(db, kvFuzzOptions(kvFuzzPrefixes[w]))
				require.NoError(t, err)
			}
		}
		for i, s := range stores {
			got, err := kvScan(s.NewIterator(kv.IterOptions{}), false)
			require.NoError(t, err)
			require.Equal(t, models[i].sorted(nil, nil), got, "final scan of store %d", i)
			got, err = kvScan(s.NewIterator(kv.IterOptions{}), true)
			require.NoError(t, err)
			require.Equal(t, reversedPairs(models[i].sorted(nil, nil)), got, "final backward scan of store %d", i)
		}
	})
}
