package kv

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
)

// blockID names one block: segment id and block number in the segment.
type blockID struct {
	seg   uint64
	block int
}

// cachedBlock is an immutable, verified block shared by every reader. The
// slots hold Seekers already initialised on the block (its CRC checked and
// its cells decoded once), so a hot Get does not re-verify and re-decode
// the block per lookup: a reader swaps one out and back in, and makes a new
// Seeker only when other readers hold all of them (see seekerSlots).
type cachedBlock struct {
	id   blockID
	data []byte
	// cost is what the block counts against CacheSize: its bytes, plus for
	// an LZ4, LZ4Dict or Columnar block the buffer its slot Seeker
	// decompresses or decodes into (about BlockSize: blocks are cut at an
	// uncompressed size; see blockCost).
	cost int64
	slot [seekerSlots]atomic.Pointer[blockenc.Seeker]
	elem *list.Element
	// ref is set only on Stores built with refcountHot (benchmark): the
	// per-cell check of HBase's design, measured against none.
	ref *refBuf
}

// blockCache is an LRU of decoded blocks bounded by bytes. One mutex guards
// the map per lookup; nothing is counted per cell.
type blockCache struct {
	mu     sync.Mutex
	max    int64
	size   int64
	m      map[blockID]*cachedBlock
	lru    list.List // front: most recently used
	hits   atomic.Int64
	misses atomic.Int64
}

func newBlockCache(max int64) *blockCache {
	return &blockCache{max: max, m: make(map[blockID]*cachedBlock)}
}

func (c *blockCache) get(id blockID) *cachedBlock {
	if c.max <= 0 {
		return nil
	}
	c.mu.Lock()
	b := c.m[id]
	if b != nil {
		c.lru.MoveToFront(b.elem)
	}
	c.mu.Unlock()
	if b != nil {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return b
}

// add inserts b (or returns the block another reader inserted first).
func (c *blockCache) add(b *cachedBlock) *cachedBlock {
	if c.max <= 0 || b.cost > c.max {
		return b
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.m[b.id]; old != nil {
		return old
	}
	b.elem = c.lru.PushFront(b)
	c.m[b.id] = b
	c.size += b.cost
	for c.size > c.max {
		e := c.lru.Back()
		old := e.Value.(*cachedBlock)
		c.lru.Remove(e)
		delete(c.m, old.id)
		c.size -= old.cost
		old.recycleSeekers()
	}
	return b
}

// seekerPool keeps the Seekers of evicted blocks: a miss Inits one on the
// new block instead of allocating a Seeker and its buffers (for a 128 KiB
// Columnar block its decompressed value area and decoded columns, about
// 250 KB; BenchmarkGetMiss).
var seekerPool = sync.Pool{New: func() any { return new(blockenc.Seeker) }}

// newSeeker returns a Seeker on data, recycled when the pool has one.
func newSeeker(data []byte) (*blockenc.Seeker, error) {
	s := seekerPool.Get().(*blockenc.Seeker)
	if err := s.Init(data); err != nil {
		return nil, err
	}
	return s, nil
}

// recycleSeekers moves the Seekers in b's slots, idle by construction (a
// reader swaps one out before using it), to seekerPool: b has left the
// cache. A reader still holding b finds empty slots and gets a Seeker
// from the pool or a new one.
func (b *cachedBlock) recycleSeekers() {
	for i := range b.slot {
		if s := b.slot[i].Swap(nil); s != nil {
			seekerPool.Put(s)
		}
	}
}

// dropSegment forgets every block of a deleted segment.
func (c *blockCache) dropSegment(seg uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, b := range c.m {
		if id.seg == seg {
			c.lru.Remove(b.elem)
			delete(c.m, id)
			c.size -= b.cost
			b.recycleSeekers()
		}
	}
}

func (c *blockCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// seekerSlots is how many decoded Seekers a cached block keeps. With one,
// two goroutines reading the same hot block made a new Seeker (a full
// decode: LZ4 and, for Columnar, every column; ~90 us for a 128 KiB
// lineitem block) on about every other Get and threw it away: parallel Gets
// of 64 hot keys went from 246-378 to 380-812 ns when the blocks became
// 128 KiB Columnar (BenchmarkRefcount, op=hotget-parallel). A Seeker
// beyond the first exists only while readers overlap on the block; its
// buffers are not counted in the block's cost.
const seekerSlots = 4

// seeker returns a Seeker on b: one from its slots, or a new one.
func (b *cachedBlock) seeker() (*blockenc.Seeker, error) {
	for i := range b.slot {
		if s := b.slot[i].Swap(nil); s != nil {
			return s, nil
		}
	}
	return newSeeker(b.data)
}

// doneWith gives back s, a Seeker on b: to b's slots, or when b is not
// cached (it lives in a pooled buffer for one read) to seekerPool for the
// next read (BenchmarkBlockRead, no cache: 71 -> 45 us and 155 -> 1 KB a
// Get with blocks in the value log).
func (b *cachedBlock) doneWith(s *blockenc.Seeker, uncached bool) {
	if uncached {
		seekerPool.Put(s)
		return
	}
	b.putSeeker(s)
}

// putSeeker gives s back to a free slot of b unless it is in error or
// every slot is taken.
func (b *cachedBlock) putSeeker(s *blockenc.Seeker) {
	if s.Err() != nil {
		return
	}
	for i := range b.slot {
		if b.slot[i].CompareAndSwap(nil, s) {
			return
		}
	}
}

// blockCost is what a block of data costs in the cache (see cachedBlock):
// a compressed block also the buffer its slot Seeker decompresses into,
// and a Columnar block the columns its slot Seeker decodes (counted as
// BlockSize too: plain []int64 per cell for ends and seqs, plus the
// decompressed value area).
func blockCost(data []byte, blockSize int) int64 {
	n := int64(len(data))
	if h, err := blockenc.ReadHeader(data); err == nil && h.Buffered() {
		n += int64(blockSize)
	}
	return n
}
