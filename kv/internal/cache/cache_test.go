package cache

import (
	"fmt"
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
