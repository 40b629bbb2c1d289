package cache

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCacheScanResistant: blocks read often stay cached through a run of
// blocks read once that is many times bigger than the cache (a full scan).
func TestCacheScanResistant(t *testing.T) {
	const cost = 1 << 10
	c := New(64 * cost)
	block := func(seg uint64, i int) *Block {
		return &Block{ID: ID{seg, i}, Cost: cost}
	}
	const hot = 32
	for range 2 {
		for i := range hot { // Gets
			if c.Get(ID{1, i}) == nil {
				c.Add(block(1, i), false)
			}
		}
	}
	for i := range 1000 { // the scan: each block once
		if c.Get(ID{2, i}) == nil {
			c.Add(block(2, i), true)
		}
	}
	for i := range hot {
		require.NotNil(t, c.Get(ID{1, i}), "hot block %d after the scan", i)
	}
	// A scanned block read again is hot.
	require.NotNil(t, c.Get(ID{2, 999}))
	c.Add(block(2, 1000), true)
	require.NotNil(t, c.Get(ID{2, 999}))
	n, _, _ := c.Stats()
	require.LessOrEqual(t, n, int64(64*cost))
}

// TestCacheClockOrder follows the hand through one shard of four blocks:
// a block hit since the hand last passed gets a second chance, a hot
// insertion goes behind the hand, a cold one at the hand, where the next
// insertion evicts it unless it is hit first.
func TestCacheClockOrder(t *testing.T) {
	const cost = 1 << 10
	c := New(4 * cost)
	require.Equal(t, 1, len(c.shards))
	add := func(i int, cold bool) { c.Add(&Block{ID: ID{1, i}, Cost: cost}, cold) }
	cached := func() []int {
		var out []int
		for i := range 10 {
			if c.shards[0].tab.Load().find(ID{1, i}, blockHash(ID{1, i})) != nil {
				out = append(out, i)
			}
		}
		return out
	}
	for i := range 4 {
		add(i, false)
	}
	require.NotNil(t, c.Get(ID{1, 0}))
	add(4, false) // 0 has its second chance: 1 goes
	require.Equal(t, []int{0, 2, 3, 4}, cached())
	add(5, true) // the hand is at 2
	require.Equal(t, []int{0, 3, 4, 5}, cached())
	add(6, true) // 5 was never read again
	require.Equal(t, []int{0, 3, 4, 6}, cached())
	require.NotNil(t, c.Get(ID{1, 6}))
	add(7, true) // 6 was: 3 goes
	require.Equal(t, []int{0, 4, 6, 7}, cached())
	c.shards[0].check()
}

// TestCacheBudget: random insertions of blocks of random costs, hot and
// cold, and lookups never hold more than the budget, per shard and in
// all, and every block the cache returns is the one asked for.
func TestCacheBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := New(8 << 20)
	require.Equal(t, 8, len(c.shards))
	for range 20000 {
		id := ID{Seg: uint64(r.IntN(3)), Block: r.IntN(2000)}
		if b := c.Get(id); b != nil {
			require.Equal(t, id, b.ID)
			continue
		}
		b := &Block{ID: id, Cost: 1 + r.Int64N(256<<10)}
		require.Same(t, b, c.Add(b, r.IntN(2) == 0))
		n, _, _ := c.Stats()
		require.LessOrEqual(t, n, c.Max)
	}
	for i := range c.shards {
		c.shards[i].check()
		require.LessOrEqual(t, c.shards[i].size, c.shards[i].max)
	}
	big := &Block{ID: ID{9, 9}, Cost: 3 << 20} // more than a shard holds
	require.Same(t, big, c.Add(big, false))
	require.Nil(t, c.Get(big.ID), "a block bigger than its shard is not kept")
}

// TestCacheAddTwice: a second Add of a cached block returns the first.
func TestCacheAddTwice(t *testing.T) {
	c := New(1 << 20)
	a := &Block{ID: ID{1, 1}, Cost: 10}
	require.Same(t, a, c.Add(a, false))
	require.Same(t, a, c.Add(&Block{ID: ID{1, 1}, Cost: 10}, true))
	n, hits, misses := c.Stats()
	require.Equal(t, int64(10), n)
	require.Zero(t, hits+misses)
	require.Same(t, a, c.Get(ID{1, 1}))
	require.Nil(t, c.Get(ID{1, 2}))
	_, hits, misses = c.Stats()
	require.Equal(t, [2]int64{1, 1}, [2]int64{hits, misses})
}

// TestCacheHotSurvivesInterleavedScan: Gets of a hot set go on while a
// scan many times bigger than the cache streams through it; at the end
// every hot block is still cached.
func TestCacheHotSurvivesInterleavedScan(t *testing.T) {
	const cost = 16 << 10
	c := New(8 << 20) // 512 blocks in 8 shards
	const hot = 200
	r := rand.New(rand.NewPCG(5, 6))
	get := func(id ID, cold bool) {
		if c.Get(id) == nil {
			c.Add(&Block{ID: id, Cost: cost}, cold)
		}
	}
	for i := range hot {
		get(ID{1, i}, false)
	}
	for i := range 20000 {
		get(ID{2, i}, true)
		get(ID{1, r.IntN(hot)}, false)
	}
	for i := range hot {
		require.NotNil(t, c.Get(ID{1, i}), "hot block %d", i)
	}
}

// TestCacheDropSegment: dropping a segment forgets its blocks in every
// shard, marks them gone and gives back their bytes; other segments'
// blocks stay.
func TestCacheDropSegment(t *testing.T) {
	c := New(16 << 20)
	require.Equal(t, maxCacheShards, len(c.shards))
	var dropped []*Block
	for seg := range uint64(3) {
		for i := range 100 {
			b := c.Add(&Block{ID: ID{seg, i}, Cost: 1 << 10}, i%2 == 0)
			if seg == 1 {
				dropped = append(dropped, b)
			}
		}
	}
	c.DropSegment(1)
	n, _, _ := c.Stats()
	require.Equal(t, int64(200<<10), n)
	for i := range 100 {
		require.Nil(t, c.Get(ID{1, i}))
		require.NotNil(t, c.Get(ID{0, i}))
		require.NotNil(t, c.Get(ID{2, i}))
		require.True(t, dropped[i].gone.Load())
	}
	for i := range c.shards {
		c.shards[i].check()
	}
	c.DropSegment(1) // nothing left of it
	c.DropSegment(0)
	c.DropSegment(2)
	n, _, _ = c.Stats()
	require.Zero(t, n)
}

// TestCacheConcurrent: Gets, hot and cold Adds and DropSegments from many
// goroutines (run under -race): every block returned is the one asked
// for, and the shards' rings, indexes and budgets hold afterwards.
func TestCacheConcurrent(t *testing.T) {
	c := New(4 << 20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 5000 {
				id := ID{Seg: uint64(r.IntN(4)), Block: r.IntN(300)}
				switch r.IntN(50) {
				case 0:
					c.DropSegment(id.Seg)
				default:
					b := c.Get(id)
					if b == nil {
						b = c.Add(&Block{ID: id, Cost: 1 + r.Int64N(64<<10)}, r.IntN(2) == 0)
					}
					if b.ID != id {
						t.Errorf("asked for %v, got %v", id, b.ID)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	for i := range c.shards {
		c.shards[i].mu.Lock()
		c.shards[i].check()
		c.shards[i].mu.Unlock()
	}
	n, hits, misses := c.Stats()
	require.LessOrEqual(t, n, c.Max)
	require.Positive(t, hits)
	require.Positive(t, misses)
}

// TestTableModel: insertions and removals in random order, with tables
// rebuilt as they fill, against a map: every live block is found, no
// removed one is, and the table is never more than half used.
func TestTableModel(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	tab := newTable(minTableSlots)
	model := map[ID]*Block{}
	for range 50000 {
		id := ID{Seg: 1, Block: r.IntN(500)}
		h := blockHash(id)
		if b := model[id]; b != nil {
			require.Same(t, b, tab.find(id, h))
			tab.remove(b, h)
			delete(model, id)
		} else {
			require.Nil(t, tab.find(id, h))
			if tab.full() {
				tab = tab.rebuilt()
			}
			b := &Block{ID: id}
			tab.insert(b, h)
			model[id] = b
		}
		require.Equal(t, len(model), tab.live)
		require.LessOrEqual(t, 2*tab.used, len(tab.slots))
	}
	for i := range 500 {
		id := ID{Seg: 1, Block: i}
		if b := model[id]; b != nil {
			require.Same(t, b, tab.find(id, blockHash(id)))
		} else {
			require.Nil(t, tab.find(id, blockHash(id)))
		}
	}
	used := 0
	for i := range tab.slots {
		if tab.slots[i].Load() != nil {
			used++
		}
	}
	require.Equal(t, tab.used, used)
}

// TestCacheEvictedSeekers: a block that leaves the cache gives the Seekers
// in its slots back, and one returned after it left does not stay behind.
func TestCacheEvictedSeekers(t *testing.T) {
	b := &Block{}
	data := testBlock(t)
	sk, err := NewSeeker(data, nil)
	require.NoError(t, err)
	b.slot[0].Store(sk)
	held, err := b.Seeker() // a reader holds the slot's Seeker
	require.NoError(t, err)
	require.Same(t, sk, held)
	b.Evicted()
	b.PutSeeker(held)
	for i := range b.slot {
		require.Nil(t, b.slot[i].Load(), "slot %d", i)
	}
}

// testBlock returns a small Columnar block.
func testBlock(t *testing.T) []byte {
	e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 16})
	for i := range 100 {
		require.NoError(t, e.Add(blockenc.Cell{Key: fmt.Appendf(nil, "k%04d", i), Seq: 1, Kind: blockenc.KindPut, Value: []byte("v")}))
	}
	b, err := e.Finish()
	require.NoError(t, err)
	return append([]byte(nil), b...)
}

// TestAdmitSharedSlot: two blocks whose ghost-list hashes share a first
// slot, missed in turn, are both admitted at their second miss.
func TestAdmitSharedSlot(t *testing.T) {
	c := New(1 << 20)
	n := len(c.ghost)
	a := ID{Seg: 1, Block: 0}
	first := func(id ID) int { s, _ := ghostSlots(blockHash(id)|1, n); return s }
	b := ID{Seg: 1, Block: 1}
	for first(b) != first(a) {
		b.Block++
	}
	require.False(t, c.Admit(a), "first miss of a")
	require.False(t, c.Admit(b), "first miss of b")
	require.True(t, c.Admit(a), "second miss of a")
	require.True(t, c.Admit(b), "second miss of b")
}

func TestBufPoolRefcount(t *testing.T) {
	var p Pool
	r := p.Get(5000)
	require.Len(t, r.B, 5000)
	require.Equal(t, 8192, cap(r.B), "cap")
	r.Retain()
	r.Release()
	r.Check() // still one reference
	require.Zero(t, p.puts.Load(), "returned to the pool while referenced")
	r.Release()
	require.EqualValues(t, 1, p.gets.Load(), "gets")
	require.EqualValues(t, 1, p.puts.Load(), "puts")
	mustPanic(t, "check after release", r.Check)
	mustPanic(t, "release after release", r.Release)
	big := p.Get(2 << 20) // beyond the classes: not pooled
	big.Release()
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	assert.Panics(t, f, "%s did not panic", what)
}
