// Package cache is kv's block cache: decoded (verified) blocks, immutable,
// shared by readers without reference counting, and the pooled,
// reference-counted buffers that blocks read past the cache live in.
//
// The cache holds verified, immutable blocks as plain byte slices shared by
// all readers: they are never reused, so nothing is counted per access and
// the garbage collector frees an evicted block when its last reader lets go
// (HBASE-27730: a refcount check on every buffer access cost HBase up to 2x
// on scans). A lookup locks the mutex of one shard once per block, never
// per cell: the cache is an LRU split by block id into up to 16 shards of
// at least 1 MiB, so concurrent readers of different blocks rarely share a
// lock. Each cached block also keeps decoded Seekers in atomic slots, so a
// hot Get does not re-verify the block's CRC.
//
// A Get's miss goes into the cache only at the block's second miss within
// a while (Admit: a ghost list of two slots per block remembers about one
// and a half times as many recent misses as the cache holds blocks), and
// at the hot end of its shard's LRU; a block an Iterator reads goes in at
// the cold end, where the next insertion evicts it unless it is read again
// first (midpoint insertion, as InnoDB's buffer pool keeps scans out of its
// young list). A scan bigger than the cache then evicts its own blocks,
// not the hot set.
//
// Blocks read on a miss that do not go into the cache go into pooled
// buffers (Pool, RefBuf) that are reference counted: the reader holds the
// buffer while it is on the block and releases it after; the last release
// returns it to the pool. Under -tags invariants (Invariants) a released
// buffer is poisoned and every cell read from a pooled buffer checks that
// it is still live, panicking on a use after release.
package cache

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
)

// ID names one block: segment id and block number in the segment.
type ID struct {
	Seg   uint64
	Block int
}

// Block is an immutable, verified block shared by every reader. The
// slots hold Seekers already initialised on the block (its CRC checked and
// its cells decoded once), so a hot Get does not re-verify and re-decode
// the block per lookup: a reader swaps one out and back in, and makes a new
// Seeker only when other readers hold all of them (see seekerSlots).
type Block struct {
	ID   ID
	Data []byte
	Dict *blockenc.Dict // its segment's dictionary, or nil
	// cost is what the block counts against CacheSize: its bytes, plus for
	// an LZ4, LZ4Dict or Columnar block the buffer its slot Seeker
	// decompresses or decodes into (about BlockSize: blocks are cut at an
	// uncompressed size; see Cost).
	Cost int64
	slot [seekerSlots]atomic.Pointer[blockenc.Seeker]
	gone atomic.Bool // out of the cache (evicted or dropped)
	elem *list.Element
	// Ref is set only on Stores built to measure HBase's design
	// (refcountHot, a benchmark): a reference per block visit and a check
	// per cell, against none.
	Ref *RefBuf
}

// Cache holds decoded blocks, bounded by their cost in bytes: an LRU
// split into shards by block id, each with its own mutex, so concurrent
// lookups of different blocks rarely meet on one lock. A block read by a
// Get goes in at the hot end, from its second miss on (admit); a block read by an Iterator (scans, and the
// first visit of a seek) goes in at the cold end, next in line for
// eviction, and moves to the hot end only when read again. So a scan
// bigger than the cache evicts the blocks of the scan itself, not the hot
// set (midpoint insertion, as InnoDB's buffer pool protects its young
// sublist from scans).
type Cache struct {
	Max    int64
	shards []cacheShard
	// ghost remembers the hashes of recently missed blocks (see admit).
	ghost []atomic.Uint64
}

type cacheShard struct {
	mu     sync.Mutex
	max    int64
	size   int64
	m      map[ID]*Block
	lru    list.List // front: hot end
	hits   atomic.Int64
	misses atomic.Int64
	_      [64]byte // keep shards' locks on their own cache lines
}

// maxCacheShards bounds the shards; a shard holds at least 1 MiB, so a
// small cache is one LRU.
const maxCacheShards = 16

func New(size int64) *Cache {
	c := &Cache{Max: size}
	if size <= 0 {
		return c
	}
	n := 1
	for n < maxCacheShards && size/int64(2*n) >= 1<<20 {
		n *= 2
	}
	c.ghost = make([]atomic.Uint64, max(64, size/ghostBytes))
	c.shards = make([]cacheShard, n)
	for i := range c.shards {
		c.shards[i].max = size / int64(n)
		c.shards[i].m = make(map[ID]*Block)
	}
	return c
}

// ghostBytes sizes the ghost list: one entry per ghostBytes of cache, about
// one and a half times the blocks the cache holds (a block of BlockSize 16
// KiB costs its compressed bytes plus its decode buffer).
const ghostBytes = 16 << 10

func blockHash(id ID) uint64 {
	return (id.Seg*0x9e3779b97f4a7c15 ^ uint64(id.Block)) * 0xbf58476d1ce4e5b9
}

// shard returns the shard of id.
func (c *Cache) shard(id ID) *cacheShard {
	return &c.shards[(blockHash(id)>>32)%uint64(len(c.shards))]
}

// admit reports whether a Get that missed id should put the block in the
// cache: when id missed before and is still remembered in the ghost list
// (two slots per block, lossy), which holds about as many recent misses as the
// cache holds blocks. A block read once in a while (uniform Gets over a
// store much bigger than the cache) is read where Badger holds it, with no
// copy and no eviction; a block read again soon (a hot set) goes in at its
// second miss.
//
// A block is remembered in the first of its two slots; the hash there
// moves on to its own other slot (one cuckoo step), so two hot blocks that
// share a slot do not keep forgetting each other and are both admitted.
func (c *Cache) Admit(id ID) bool {
	h := blockHash(id) | 1
	a, b := ghostSlots(h, len(c.ghost))
	if c.ghost[a].Load() == h || c.ghost[b].Load() == h {
		return true
	}
	if old := c.ghost[a].Swap(h); old != 0 {
		oa, ob := ghostSlots(old, len(c.ghost))
		if oa == a {
			oa = ob
		}
		if oa != a {
			c.ghost[oa].Store(old)
		}
	}
	return false
}

// ghostSlots returns the two ghost-list slots of hash h among n.
func ghostSlots(h uint64, n int) (a, b int) {
	return int(h % uint64(n)), int((h >> 32) % uint64(n))
}

func (c *Cache) Get(id ID) *Block {
	if c.Max <= 0 {
		return nil
	}
	sh := c.shard(id)
	sh.mu.Lock()
	b := sh.m[id]
	if b != nil {
		sh.lru.MoveToFront(b.elem)
	}
	sh.mu.Unlock()
	if b != nil {
		sh.hits.Add(1)
	} else {
		sh.misses.Add(1)
	}
	return b
}

// add inserts b, at the cold end when cold is set (an Iterator's block),
// and returns it, or the block another reader inserted first.
func (c *Cache) Add(b *Block, cold bool) *Block {
	if c.Max <= 0 {
		return b
	}
	sh := c.shard(b.ID)
	if b.Cost > sh.max {
		return b
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if old := sh.m[b.ID]; old != nil {
		return old
	}
	for sh.size+b.Cost > sh.max {
		e := sh.lru.Back()
		old := e.Value.(*Block)
		sh.lru.Remove(e)
		delete(sh.m, old.ID)
		sh.size -= old.Cost
		old.Evicted()
	}
	if cold {
		b.elem = sh.lru.PushBack(b)
	} else {
		b.elem = sh.lru.PushFront(b)
	}
	sh.m[b.ID] = b
	sh.size += b.Cost
	return b
}

// NewBlock returns block id with its bytes data, verified by sk, a Seeker
// on it that becomes the block's first slot Seeker; dict is its segment's
// dictionary (nil: none), blockSize the BlockSize it was cut at (Cost).
func NewBlock(id ID, data []byte, dict *blockenc.Dict, sk *blockenc.Seeker, blockSize int) *Block {
	b := &Block{ID: id, Data: data, Dict: dict, Cost: Cost(data, blockSize)}
	b.slot[0].Store(sk)
	return b
}

// Recycle gives sk, a Seeker no one uses any more, to the pool NewSeeker
// takes from.
func Recycle(sk *blockenc.Seeker) { seekerPool.Put(sk) }

// seekerPool keeps the Seekers of evicted blocks: a miss Inits one on the
// new block instead of allocating a Seeker and its buffers (for a 128 KiB
// Columnar block its decompressed value area and decoded columns, about
// 250 KB; BenchmarkGetMiss).
var seekerPool = sync.Pool{New: func() any { return new(blockenc.Seeker) }}

// NewSeeker returns a Seeker on data, a block of a segment with the
// dictionary dict (nil: none), recycled when the pool has one.
func NewSeeker(data []byte, dict *blockenc.Dict) (*blockenc.Seeker, error) {
	s := seekerPool.Get().(*blockenc.Seeker)
	if err := s.InitDict(data, dict); err != nil {
		return nil, err
	}
	return s, nil
}

// evicted marks b as out of the cache and moves the Seekers in its slots,
// idle by construction (a reader swaps one out before using it), to
// seekerPool. A reader still holding b finds empty slots and gets a Seeker
// from the pool or a new one, and gives its Seeker to the pool too
// (putSeeker).
func (b *Block) Evicted() {
	b.gone.Store(true)
	b.recycleSeekers()
}

// recycleSeekers moves the Seekers in b's slots to seekerPool.
func (b *Block) recycleSeekers() {
	for i := range b.slot {
		if s := b.slot[i].Swap(nil); s != nil {
			seekerPool.Put(s)
		}
	}
}

// dropSegment forgets every block of a deleted segment.
func (c *Cache) DropSegment(seg uint64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for id, b := range sh.m {
			if id.Seg == seg {
				sh.lru.Remove(b.elem)
				delete(sh.m, id)
				sh.size -= b.Cost
				b.Evicted()
			}
		}
		sh.mu.Unlock()
	}
}

// stats returns the bytes held, the hits and the misses.
func (c *Cache) Stats() (bytes, hits, misses int64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		bytes += sh.size
		sh.mu.Unlock()
		hits += sh.hits.Load()
		misses += sh.misses.Load()
	}
	return bytes, hits, misses
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
func (b *Block) Seeker() (*blockenc.Seeker, error) {
	for i := range b.slot {
		if s := b.slot[i].Swap(nil); s != nil {
			return s, nil
		}
	}
	return NewSeeker(b.Data, b.Dict)
}

// doneWith gives back s, a Seeker on b: to b's slots, or when b is not
// cached (it lives in a pooled buffer for one read) to seekerPool for the
// next read (BenchmarkBlockRead, no cache: 71 -> 45 us and 155 -> 1 KB a
// Get with blocks in the value log).
func (b *Block) DoneWith(s *blockenc.Seeker, uncached bool) {
	if uncached {
		seekerPool.Put(s)
		return
	}
	b.PutSeeker(s)
}

// putSeeker gives s back to a free slot of b unless it is in error or
// every slot is taken.
func (b *Block) PutSeeker(s *blockenc.Seeker) {
	if s.Err() != nil {
		return
	}
	for i := range b.slot {
		if b.slot[i].CompareAndSwap(nil, s) {
			if b.gone.Load() { // evicted meanwhile: evicted may have missed s
				b.recycleSeekers()
			}
			return
		}
	}
}

// Cost is what a block of data costs in the cache (see Block):
// a compressed block also the buffer its slot Seeker decompresses into,
// and a Columnar block the columns its slot Seeker decodes (counted as
// BlockSize too: plain []int64 per cell for ends and seqs, plus the
// decompressed value area).
func Cost(data []byte, blockSize int) int64 {
	n := int64(len(data))
	if h, err := blockenc.ReadHeader(data); err == nil && h.Buffered() {
		n += int64(blockSize)
	}
	return n
}
