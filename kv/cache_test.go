package kv

import (
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
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
	sk, err := newSeeker(data, nil)
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

// A full scan of a Store bigger than its cache leaves the Gets' hot blocks
// cached (the scan stops filling the cache once it has streamed more than
// the cache holds), and a scan of a Store that fits is served from the
// cache the second time.
func TestScanCache(t *testing.T) {
	for _, big := range []bool{true, false} {
		t.Run(fmt.Sprintf("bigger-than-cache=%v", big), func(t *testing.T) {
			o := testOptions("")
			o.BlockSize = 4 << 10
			o.CacheSize = 64 << 10
			n := 20000 // about 500 blocks
			if !big {
				n = 200 // about 6 blocks, each costing its bytes and a 4 KiB buffer
			}
			s := mustOpen(t, o)
			defer s.Close()
			val := make([]byte, 100)
			for i := range n {
				val[0] = byte(i)
				require.NoError(t, s.Put(fmt.Appendf(nil, "key%06d", i), val))
			}
			require.NoError(t, s.Compact())
			scan := func() {
				it := s.NewIterator(IterOptions{})
				k := 0
				for ok := it.First(); ok; ok = it.Next() {
					k++
				}
				require.NoError(t, it.Close())
				require.Equal(t, n, k)
			}
			if !big {
				scan()
				_, _, m0 := s.cache.stats()
				scan()
				_, _, m1 := s.cache.stats()
				require.Equal(t, m0, m1, "misses in a second scan of a store that fits the cache")
				return
			}
			hot := func() {
				for i := 0; i < n; i += n / 4 { // 4 blocks: about a third of the cache
					_, err := s.Get(fmt.Appendf(nil, "key%06d", i))
					require.NoError(t, err)
				}
			}
			hot()
			hot()
			_, _, m0 := s.cache.stats()
			scan()
			_, _, m1 := s.cache.stats()
			require.Greater(t, m1-m0, int64(50), "the scan read most blocks from Badger")
			hot()
			_, _, m2 := s.cache.stats()
			require.Equal(t, m1, m2, "misses of the hot Gets after the scan")
		})
	}
}

// TestAdmitSharedSlot: two blocks whose ghost-list hashes share a first
// slot, missed in turn, are both admitted at their second miss.
func TestAdmitSharedSlot(t *testing.T) {
	c := newBlockCache(1 << 20)
	n := len(c.ghost)
	a := blockID{seg: 1, block: 0}
	first := func(id blockID) int { s, _ := ghostSlots(blockHash(id)|1, n); return s }
	b := blockID{seg: 1, block: 1}
	for first(b) != first(a) {
		b.block++
	}
	require.False(t, c.admit(a), "first miss of a")
	require.False(t, c.admit(b), "first miss of b")
	require.True(t, c.admit(a), "second miss of a")
	require.True(t, c.admit(b), "second miss of b")
}
