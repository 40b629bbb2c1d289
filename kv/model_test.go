package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	gofuzz "github.com/google/gofuzz"
	"github.com/kvenc/kvenc/internal/itertest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// step is one operation of the model test; gofuzz fills it.
type step struct {
	Op    uint8
	Key   uint8
	Key2  uint8
	Val   []byte
	Batch []struct {
		Del   bool
		Key   uint8
		Range uint8 // with Del, one in three: DeleteRange [Key, Key+Range%8)
		Val   []byte
	}
}

// modelRun drives a store and the model with steps and checks them
// against each other after every step.
type modelRun struct {
	t      testing.TB
	dir    string
	s      *Store
	m      model
	snaps  []*Snapshot
	smodel []model
	keys   int
	sum    Stats // totals over reopens
}

func (r *modelRun) total(st Stats) {
	r.sum.Flushes += st.Flushes
	r.sum.Compactions += st.Compactions
	r.sum.CacheMisses += st.CacheMisses
	r.sum.CacheHits += st.CacheHits
}

func (r *modelRun) key(k uint8) []byte { return []byte(fmt.Sprintf("key%03d", int(k)%r.keys)) }

func (r *modelRun) do(i int, st step) {
	r.t.Helper()
	s, m := r.s, r.m
	k := r.key(st.Key)
	at := fmt.Sprintf("step %d (op %d)", i, st.Op)
	switch st.Op % 16 {
	case 0, 1, 2, 3:
		require.NoError(r.t, s.Put(k, st.Val), at)
		m[string(k)] = string(st.Val)
	case 4:
		if st.Key2%3 == 0 {
			// A range delete, empty when the end is not above k.
			end := r.key(st.Key + st.Key2%16)
			require.NoError(r.t, s.DeleteRange(k, end), at)
			m.deleteRange(k, end)
			break
		}
		require.NoError(r.t, s.Delete(k), at)
		delete(m, string(k))
	case 5, 6:
		b := s.NewBatch()
		for _, o := range st.Batch {
			bk := r.key(o.Key)
			if o.Del && o.Range%3 == 0 {
				end := r.key(o.Key + o.Range%8)
				b.DeleteRange(bk, end)
				m.deleteRange(bk, end)
			} else if o.Del {
				b.Delete(bk)
				delete(m, string(bk))
			} else {
				b.Put(bk, o.Val)
				m[string(bk)] = string(o.Val)
			}
		}
		require.NoError(r.t, s.Apply(b), at)
	case 7, 8:
		v, err := s.Get(k)
		requireGet(r.t, v, err, m, string(k), at)
	case 9:
		o := IterOptions{LowerBound: k, UpperBound: r.key(st.Key2)}
		if st.Key2%5 == 0 {
			o.UpperBound = nil
		}
		if st.Key%7 == 0 {
			o.LowerBound = nil
		}
		if st.Key2%3 == 1 {
			o.Prefix = k[:len(k)-1-int(st.Key%3)] // "key01", "key0" or "key"
		}
		lo, hi := iterBounds(o)
		want := m.rangeOf(lo, hi)
		got, err := scan(s.NewIterator(o))
		require.NoError(r.t, err, "%s: iterate [%q, %q)", at, lo, hi)
		require.Equal(r.t, want, got, "%s: iterate [%q, %q)", at, lo, hi)
		got, err = scanBack(s.NewIterator(o))
		require.NoError(r.t, err, "%s: iterate backward [%q, %q)", at, lo, hi)
		require.Equal(r.t, reversed(want), got, "%s: iterate backward [%q, %q)", at, lo, hi)
		r.walk(s.NewIterator(o), want, st.Val, fmt.Sprintf("step %d: walk [%q, %q)", i, lo, hi))
	case 10:
		if len(r.snaps) < 4 {
			r.snaps = append(r.snaps, s.Snapshot())
			r.smodel = append(r.smodel, m.clone())
		}
	case 11:
		if len(r.snaps) > 0 {
			j := int(st.Key) % len(r.snaps)
			sn, sm := r.snaps[j], r.smodel[j]
			v, err := sn.Get(k)
			requireGet(r.t, v, err, sm, string(k), "%s: snapshot %d", at, sn.Seq())
			got, err := scan(sn.NewIterator(IterOptions{LowerBound: k}))
			require.NoError(r.t, err, "%s: snapshot %d iterate", at, sn.Seq())
			require.Equal(r.t, sm.rangeOf(k, nil), got, "%s: snapshot %d iterate", at, sn.Seq())
			got, err = scanBack(sn.NewIterator(IterOptions{UpperBound: k}))
			require.NoError(r.t, err, "%s: snapshot %d iterate backward", at, sn.Seq())
			require.Equal(r.t, reversed(sm.rangeOf(nil, k)), got, "%s: snapshot %d iterate backward", at, sn.Seq())
			r.walk(sn.NewIterator(IterOptions{}), sm.rangeOf(nil, nil), st.Val, fmt.Sprintf("step %d: snapshot %d walk", i, sn.Seq()))
			if st.Key2%2 == 0 {
				sn.Close()
				r.snaps = append(r.snaps[:j], r.snaps[j+1:]...)
				r.smodel = append(r.smodel[:j], r.smodel[j+1:]...)
			}
		}
	case 12:
		require.NoError(r.t, s.Flush(), at)
	case 13:
		require.NoError(r.t, s.Compact(), at)
		if st.Key%8 == 0 {
			require.NoError(r.t, s.Reclaim(), "%s: Reclaim", at)
		}
	case 14:
		if r.dir != "" && st.Key%4 == 0 {
			r.reopen(at, st)
		}
	case 15:
		// A write of a large value, to cut blocks on one cell.
		v := make([]byte, 600+int(st.Key)*4)
		for j := range v {
			v[j] = st.Key2 + byte(j)
		}
		require.NoError(r.t, s.Put(k, v), at)
		m[string(k)] = string(v)
	}
	// After every step: the whole store against the model, every other
	// step backward.
	want := r.m.rangeOf(nil, nil)
	got, err := scan(r.s.NewIterator(IterOptions{}))
	require.NoError(r.t, err, "%s: full scan", at)
	require.Equal(r.t, want, got, "%s: full scan", at)
	if i%2 == 1 {
		got, err := scanBack(r.s.NewIterator(IterOptions{}))
		require.NoError(r.t, err, "%s: full scan backward", at)
		require.Equal(r.t, reversed(want), got, "%s: full scan backward", at)
	}
}

// walk moves it both ways as prog says (see itertest.Walk; seeks to the
// model's keys and just past them) against want, the pairs it shows in
// order, and closes it.
func (r *modelRun) walk(it *Iterator, want [][2]string, prog []byte, what string) {
	r.t.Helper()
	itertest.Walk(r.t, it, want, prog, func(b byte) []byte {
		k := r.key(b / 2)
		if b%2 == 1 {
			k = append(k, 0) // between two keys
		}
		return k
	}, what)
	require.NoError(r.t, it.Close(), what)
}

func (r *modelRun) reopen(at string, st step) {
	r.t.Helper()
	for _, sn := range r.snaps {
		sn.Close()
	}
	r.snaps, r.smodel = nil, nil
	r.total(r.s.Stats())
	require.NoError(r.t, r.s.Close(), "%s: Close", at)
	s, err := Open(testOptions(r.dir))
	require.NoError(r.t, err, "%s: reopen", at)
	s.dropAlways = st.Key2%8 == 0 // sometimes Compact drops Badger garbage every time
	r.s = s
}

func TestModel(t *testing.T) {
	steps := 2500
	if testing.Short() {
		steps = 300
	}
	for seed := int64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			dir := t.TempDir()
			if seed == 4 {
				dir = "" // in memory: no reopen
			}
			r := &modelRun{t: t, dir: dir, s: mustOpen(t, testOptions(dir)), m: model{}, keys: 40 + int(seed)*20}
			f := gofuzz.NewWithSeed(seed).NilChance(0.05).NumElements(0, 6)
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			for i := 0; i < steps; i++ {
				var st step
				f.Fuzz(&st)
				if len(st.Val) > 40 {
					st.Val = st.Val[:rng.IntN(40)]
				}
				r.do(i, st)
			}
			for _, sn := range r.snaps {
				sn.Close()
			}
			r.total(r.s.Stats())
			t.Logf("totals over reopens: %+v", r.sum)
			assert.Positive(t, r.sum.Flushes, "the run did not flush")
			assert.Positive(t, r.sum.Compactions, "the run did not compact")
			assert.Positive(t, r.sum.CacheMisses, "the run did not miss the cache")
			require.NoError(t, r.s.Close())
		})
	}
}
