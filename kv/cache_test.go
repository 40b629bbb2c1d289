package kv

import (
	"fmt"

	"github.com/kvenc/kvenc/blockenc"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCacheScanResistant: blocks read often stay cached through a run of
// blocks read once that is many times bigger than the cache (a full scan).
func TestCacheScanResistant(t *testing.T) {
	const cost = 1 << 10
	c := newBlockCache(64 * cost)
	block := func(seg uint64, i int) *cachedBlock {
		return &cachedBlock{id: blockID{seg, i}, cost: cost}
	}
	const hot = 32
	for range 2 {
		for i := range hot { // Gets
			if c.get(blockID{1, i}) == nil {
				c.add(block(1, i), false)
			}
		}
	}
	for i := range 1000 { // the scan: each block once
		if c.get(blockID{2, i}) == nil {
			c.add(block(2, i), true)
		}
	}
	for i := range hot {
		require.NotNil(t, c.get(blockID{1, i}), "hot block %d after the scan", i)
	}
	// A scanned block read again is hot.
	require.NotNil(t, c.get(blockID{2, 999}))
	c.add(block(2, 1000), true)
	require.NotNil(t, c.get(blockID{2, 999}))
	n, _, _ := c.stats()
	require.LessOrEqual(t, n, int64(64*cost))
}

// TestCacheEvictedSeekers: a block that leaves the cache gives the Seekers
// in its slots back, and one returned after it left does not stay behind.
func TestCacheEvictedSeekers(t *testing.T) {
	b := &cachedBlock{}
	data := testBlock(t)
	sk, err := newSeeker(data)
	require.NoError(t, err)
	b.slot[0].Store(sk)
	held, err := b.seeker() // a reader holds the slot's Seeker
	require.NoError(t, err)
	require.Same(t, sk, held)
	b.evicted()
	b.putSeeker(held)
	for i := range b.slot {
		require.Nil(t, b.slot[i].Load(), "slot %d", i)
	}
}

// testBlock returns a small Columnar block.
func testBlock(t *testing.T) []byte {
	e := blockenc.NewEncoder(DefaultBlockOptions())
	for i := range 100 {
		require.NoError(t, e.Add(blockenc.Cell{Key: fmt.Appendf(nil, "k%04d", i), Seq: 1, Kind: blockenc.KindPut, Value: []byte("v")}))
	}
	b, err := e.Finish()
	require.NoError(t, err)
	return append([]byte(nil), b...)
}
