package kvtikv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/kvenc/kvenc/kv"
	"github.com/stretchr/testify/require"
)

// The model test on TiKV, with regions split inside the keys of the
// segments: random Puts, Deletes and DeleteRanges, flushes, compactions
// and reopens, each step checked against a map by forward and reverse
// scans, prefix iteration, Gets and a snapshot.
func TestModel(t *testing.T) {
	var splits [][]byte
	for _, k := range []string{"key00100", "key00250", "key00400"} {
		// Segments 1..4: block keys "m" 00 's' id lastKey, split inside.
		for id := byte(1); id <= 4; id++ {
			splits = append(splits, []byte("m\x00s\x00\x00\x00\x00\x00\x00\x00"+string([]byte{id})+k))
		}
	}
	store := mockStore(t, "", splits...)
	o := testOptions("m")
	s, err := Open(store, o)
	require.NoError(t, err)
	m := model{}
	var blocks, misses int
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 500
	for round := range 6 {
		b := s.NewBatch()
		for i := range 400 {
			k := rng.IntN(n)
			switch rng.IntN(10) {
			case 0:
				b.Delete([]byte(key(k)))
				delete(m, key(k))
			case 1:
				if i%50 == 1 {
					lo, hi := key(k), key(k+rng.IntN(20))
					b.DeleteRange([]byte(lo), []byte(hi))
					for mk := range m {
						if lo <= mk && mk < hi {
							delete(m, mk)
						}
					}
				}
			default:
				b.Put([]byte(key(k)), []byte(value(k, round)))
				m[key(k)] = value(k, round)
			}
			if b.Len() == 20 {
				require.NoError(t, s.Apply(b))
				b.Reset()
			}
		}
		require.NoError(t, s.Apply(b))
		snap := s.Snapshot()
		before := model{}
		for k, v := range m {
			before[k] = v
		}
		requireModel(t, s, m, "round %d", round)
		switch round % 3 {
		case 0:
			require.NoError(t, s.Flush())
		case 1:
			require.NoError(t, s.Compact())
		}
		require.NoError(t, s.Put([]byte(key(3)), []byte("after the snapshot")))
		m[key(3)] = "after the snapshot"
		v, err := snap.Get([]byte(key(3)))
		if want, ok := before[key(3)]; ok {
			require.NoError(t, err)
			require.Equal(t, want, string(v))
		} else {
			require.ErrorIs(t, err, kv.ErrNotFound)
		}
		require.NoError(t, snap.Close())
		// Prefix iteration: the keys key001xx.
		it := s.NewIterator(kv.IterOptions{Prefix: []byte("key001")})
		var got []string
		for ok := it.First(); ok; ok = it.Next() {
			got = append(got, string(it.Key()))
		}
		require.NoError(t, it.Close())
		var want []string
		for _, p := range m.sorted() {
			if p[0] >= "key001" && p[0] < "key002" {
				want = append(want, p[0])
			}
		}
		require.Equal(t, want, got, "prefix iteration, round %d", round)
		st := s.Stats()
		blocks, misses = max(blocks, st.Blocks), misses+int(st.CacheMisses)
		if round%2 == 1 {
			require.NoError(t, s.Close())
			s, err = Open(store, o)
			require.NoError(t, err, "reopen after round %d", round)
			requireModel(t, s, m, "reopened after round %d", round)
		}
	}
	require.NoError(t, s.Close())
	require.Greater(t, blocks, 20, "segments of many blocks, across the region splits")
	require.Greater(t, misses, 100, "blocks read from TiKV")
}

// A second writer on a held prefix gets ErrPrefixInUse; after Close the
// prefix is free at once.
func TestSecondWriter(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("w")
	a, err := Open(store, o)
	require.NoError(t, err)
	require.NoError(t, a.Put([]byte("k"), []byte("v")))
	_, err = Open(store, o)
	require.ErrorIs(t, err, kv.ErrPrefixInUse)
	require.ErrorContains(t, err, "held by writer")
	o2 := o
	o2.Prefix = []byte("w\x00x")
	_, err = Open(store, o2)
	require.ErrorIs(t, err, kv.ErrPrefixInUse, "a namespace inside the registered one")
	require.NoError(t, a.Close())
	b, err := Open(store, o)
	require.NoError(t, err, "Close gives the lease up")
	v, err := b.Get([]byte("k"))
	require.NoError(t, err)
	require.Equal(t, "v", string(v))
	require.NoError(t, b.Close())
}

// Fencing: writer A stalls (no renewals) until its lease lapses and B
// takes the prefix over; A's next Apply fails with ErrLeaseLost and
// nothing of it is visible to B, which holds every write A acknowledged.
func TestFencing(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("f")
	o.Lease = time.Second
	a, ea, err := open(store, o, nil)
	require.NoError(t, err)
	m := model{}
	for i := range 300 {
		require.NoError(t, a.Put([]byte(key(i)), []byte(value(i, 0))))
		m[key(i)] = value(i, 0)
		if i == 150 {
			require.NoError(t, a.Flush())
		}
	}
	ea.lease.setPause(true)
	b := openWhenFree(t, store, o, 10*time.Second)
	requireModel(t, b, m, "B after the takeover")

	err = a.Put([]byte("from A"), []byte("after the takeover"))
	require.ErrorIs(t, err, kv.ErrLeaseLost)
	err = a.Put([]byte("from A again"), []byte("after the takeover"))
	require.Error(t, err)
	require.ErrorIs(t, a.Flush(), kv.ErrLeaseLost)
	_, err = b.Get([]byte("from A"))
	require.ErrorIs(t, err, kv.ErrNotFound)
	require.NoError(t, b.Put([]byte(key(1)), []byte("B's")))
	m[key(1)] = "B's"
	_ = a.Close() // its error is the lost lease
	requireModel(t, b, m, "B after A's Close")
	require.NoError(t, b.Close())
	c, err := Open(store, o)
	require.NoError(t, err)
	requireModel(t, c, m, "reopened")
	require.NoError(t, c.Close())
}

// Concurrent Applies share TiKV transactions (group commit) and every
// acknowledged one survives a reopen.
func TestGroupCommit(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("g")
	s, e, err := open(store, o, nil)
	require.NoError(t, err)
	var wg sync.WaitGroup
	const writers, each = 8, 60
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				b := s.NewBatch()
				for j := range 10 {
					b.Put([]byte(fmt.Sprintf("w%d-%03d-%d", w, i, j)), []byte("v"))
				}
				if err := s.Apply(b); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	batches, txns := e.groupStats()
	require.GreaterOrEqual(t, batches, int64(writers*each))
	require.Less(t, txns, batches, "some WAL records shared a transaction")
	require.NoError(t, s.Close())
	s, err = Open(store, o)
	require.NoError(t, err)
	n := 0
	it := s.NewIterator(kv.IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
		n++
	}
	require.NoError(t, it.Close())
	require.Equal(t, writers*each*10, n)
	require.NoError(t, s.Close())
}

// A ReadOnly Store sees the writer's flushes after Refresh, takes no
// lease, refuses writes, and keeps reading segments the writer compacted
// away since its last Refresh.
func TestReadOnly(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("r")
	ro := o
	ro.ReadOnly = true
	_, err := Open(store, ro)
	require.ErrorIs(t, err, kv.ErrNotFound, "nothing registered yet")
	w, err := Open(store, o)
	require.NoError(t, err)
	m := model{}
	for i := range 200 {
		require.NoError(t, w.Put([]byte(key(i)), []byte(value(i, 0))))
		m[key(i)] = value(i, 0)
	}
	require.NoError(t, w.Flush())
	r, err := Open(store, ro)
	require.NoError(t, err, "a reader beside the writer")
	requireModel(t, r, m)
	flushed := model{}
	for k, v := range m {
		flushed[k] = v
	}
	for i := range 100 {
		require.NoError(t, w.Put([]byte(key(i*2)), []byte(value(i, 1))))
		m[key(i*2)] = value(i, 1)
	}
	require.NoError(t, r.Refresh())
	requireModel(t, r, flushed, "unflushed writes are not seen")
	require.NoError(t, w.Flush())
	requireModel(t, r, flushed, "flushed, not refreshed")
	require.NoError(t, r.Refresh())
	requireModel(t, r, m, "refreshed")
	require.NoError(t, w.Compact())
	requireModel(t, r, m, "the writer compacted: the reader reads at its Refresh")
	require.NoError(t, r.Refresh())
	requireModel(t, r, m, "refreshed after the compaction")
	require.ErrorIs(t, r.Put([]byte("x"), []byte("y")), kv.ErrReadOnly)
	require.ErrorIs(t, r.Compact(), kv.ErrReadOnly)
	require.NoError(t, r.Close())
	require.NoError(t, w.Close())
}

// A flipped byte in a stored block reads as ErrCorrupt.
func TestCorrupt(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("c")
	o.CompactionTrigger = -1
	s, err := Open(store, o)
	require.NoError(t, err)
	for i := range 200 {
		require.NoError(t, s.Put([]byte(key(i)), []byte(value(i, 0))))
	}
	require.NoError(t, s.Close())

	txn, err := store.Begin()
	require.NoError(t, err)
	it, err := txn.Iter([]byte("c\x00s"), []byte("c\x00t"))
	require.NoError(t, err)
	require.True(t, it.Valid(), "a block")
	k, v := append([]byte(nil), it.Key()...), append([]byte(nil), it.Value()...)
	it.Close()
	v[len(v)/2] ^= 0x10
	require.NoError(t, txn.Set(k, v))
	require.NoError(t, txn.Commit(context.Background()))

	s, err = Open(store, o)
	require.NoError(t, err)
	_, err = s.Get([]byte(key(0)))
	require.ErrorIs(t, err, kv.ErrCorrupt)
	it2 := s.NewIterator(kv.IterOptions{})
	for ok := it2.First(); ok; ok = it2.Next() {
	}
	require.ErrorIs(t, it2.Close(), kv.ErrCorrupt)
	require.NoError(t, s.Close())
}

// Dial of an address where no PD answers fails within the context's
// deadline, naming the address.
func TestDialUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Dial(ctx, []string{"127.0.0.1:1"}, testOptions("d"))
	require.Error(t, err)
	require.ErrorContains(t, err, "127.0.0.1:1")
	require.Less(t, time.Since(start), 10*time.Second, "Dial returns at the context's deadline")
	_, err = Dial(ctx, nil, testOptions("d"))
	require.ErrorIs(t, err, kv.ErrInvalidOptions)
}

// A writer whose renewals were held up past its lease, with no one taking
// the prefix over meanwhile, revives the lease at its next write and
// goes on; a second writer is refused again afterwards.
func TestLeaseRevived(t *testing.T) {
	store := mockStore(t, "")
	o := testOptions("v")
	o.Lease = time.Second
	s, e, err := open(store, o, nil)
	require.NoError(t, err)
	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	e.lease.setPause(true)
	time.Sleep(3 * o.Lease / 2)
	require.NoError(t, s.Put([]byte("b"), []byte("2")), "the lease lapsed but is still this writer's")
	e.lease.setPause(false)
	_, err = Open(store, o)
	require.ErrorIs(t, err, kv.ErrPrefixInUse)
	require.NoError(t, s.Close())
	s, err = Open(store, o)
	require.NoError(t, err)
	requireModel(t, s, model{"a": "1", "b": "2"})
	require.NoError(t, s.Close())
}
