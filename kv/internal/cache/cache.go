// Package cache is kv's block cache: decoded (verified) blocks, immutable,
// shared by readers without reference counting, and the pooled,
// reference-counted buffers that blocks read past the cache live in.
//
// The cache holds verified, immutable blocks as plain byte slices shared by
// all readers: they are never reused, so nothing is counted per access and
// the garbage collector frees an evicted block when its last reader lets go
// (HBASE-27730: a refcount check on every buffer access cost HBase up to 2x
// on scans). Each cached block also keeps decoded Seekers in atomic slots,
// so a hot Get does not re-verify the block's CRC.
//
// A hit takes no lock and writes nothing shared: the cache is split by
// block id into up to 16 shards of at least 1 MiB, each with an index that
// lookups read without a lock (an open-addressing table of atomic
// pointers, see table) and a CLOCK eviction order in which a hit only sets
// the block's referenced bit when it is not set yet (see clock.go). The
// shard's mutex serializes the writers only: insertions, evictions and
// DropSegment. Hits and misses are counted per shard on cache lines of
// their own.
//
// A Get's miss goes into the cache only at the block's second miss within
// a while (Admit: a ghost list of two slots per block remembers about one
// and a half times as many recent misses as the cache holds blocks), and
// at the hot point of its shard's clock; a block an Iterator reads goes in
// at the cold point, where the next insertion evicts it unless it is read
// again first (midpoint insertion, as InnoDB's buffer pool keeps scans
// out of its young list). A scan bigger than the cache then evicts its
// own blocks, not the hot set.
//
// Blocks read on a miss that do not go into the cache go into pooled
// buffers (Pool, RefBuf) that are reference counted: the reader holds the
// buffer while it is on the block and releases it after; the last release
// returns it to the pool. Under -tags invariants (Invariants) a released
// buffer is poisoned and every cell read from a pooled buffer checks that
// it is still live, panicking on a use after release; the cache's writers
// also check the ring, the index and the byte count of the shard they
// change.
package cache

import (
	"sync"
	"sync/atomic"
)

// ID names one block: segment id and block number in the segment.
type ID struct {
	Seg   uint64
	Block int
}

// Cache holds decoded blocks, bounded by their cost in bytes: shards by
// block id, each with a lock-free index for lookups and a CLOCK for
// eviction under a mutex that only insertions and removals take. A block
// read by a Get goes in at the hot point, from its second miss on
// (Admit); a block read by an Iterator (scans, and the first visit of a
// seek) goes in at the cold point, next in line for eviction, and is kept
// only when read again before the clock's hand reaches it. So a scan
// bigger than the cache evicts the blocks of the scan itself, not the hot
// set (midpoint insertion, as InnoDB's buffer pool protects its young
// sublist from scans).
type Cache struct {
	// Max is the cache's budget in bytes (CacheSize); 0 or less: no cache.
	Max    int64
	shards []shard
	// ghost remembers the hashes of recently missed blocks (see Admit).
	ghost []atomic.Uint64
}

// shard is one part of the cache. Lookups read tab only; the counters
// that every lookup writes sit on cache lines of their own, apart from
// tab and from the writer's fields.
type shard struct {
	tab atomic.Pointer[table]
	_   [56]byte

	mu    sync.Mutex // writers: Add, eviction, DropSegment
	max   int64
	size  int64  // cost of the blocks in the ring
	count int    // blocks in the ring
	hand  *Block // the clock's hand; nil when the ring is empty
	_     [32]byte

	hits atomic.Int64
	_    [56]byte
	miss atomic.Int64
	_    [56]byte
}

// maxCacheShards bounds the shards; a shard holds at least 1 MiB, so a
// small cache is one shard.
const maxCacheShards = 16

// New returns a cache of size bytes; size 0 or less is no cache (every Get
// misses, Add keeps nothing).
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
	c.shards = make([]shard, n)
	for i := range c.shards {
		c.shards[i].max = size / int64(n)
		c.shards[i].tab.Store(newTable(minTableSlots))
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

// shard returns the shard of a block with hash h.
func (c *Cache) shard(h uint64) *shard {
	return &c.shards[(h>>32)%uint64(len(c.shards))]
}

// Admit reports whether a Get that missed id should put the block in the
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

// Get returns block id if it is cached, else nil. It takes no lock: it
// reads the shard's index and sets the block's referenced bit.
func (c *Cache) Get(id ID) *Block {
	if c.Max <= 0 {
		return nil
	}
	h := blockHash(id)
	sh := c.shard(h)
	b := sh.tab.Load().find(id, h)
	if b == nil {
		sh.miss.Add(1)
		return nil
	}
	if !b.referenced.Load() { // a store only when it changes: hot blocks stay shared in every core's cache
		b.referenced.Store(true)
	}
	sh.hits.Add(1)
	return b
}

// Add inserts b, at the cold point when cold is set (an Iterator's block)
// and else at the hot point, evicting blocks until it fits, and returns
// it, or the block another reader inserted first. A block costing more
// than a shard holds is returned and not kept.
func (c *Cache) Add(b *Block, cold bool) *Block {
	if c.Max <= 0 {
		return b
	}
	h := blockHash(b.ID)
	sh := c.shard(h)
	if b.Cost > sh.max {
		return b
	}
	var gone [4]*Block // the evicted, marked after the lock is let go
	evicted := gone[:0]
	sh.mu.Lock()
	t := sh.tab.Load()
	if old := t.find(b.ID, h); old != nil {
		sh.mu.Unlock()
		return old
	}
	for sh.size+b.Cost > sh.max {
		evicted = append(evicted, sh.remove(sh.victim()))
	}
	if t = sh.tab.Load(); t.full() {
		t = t.rebuilt()
		sh.tab.Store(t)
	}
	t.insert(b, h)
	sh.link(b, cold)
	sh.size += b.Cost
	sh.count++
	if Invariants {
		sh.check()
	}
	sh.mu.Unlock()
	for _, e := range evicted {
		e.Evicted()
	}
	return b
}

// remove takes b, a block in sh, out of sh's index and ring and returns
// it; the caller holds sh.mu and marks b Evicted once it has let go.
func (sh *shard) remove(b *Block) *Block {
	sh.tab.Load().remove(b, blockHash(b.ID))
	sh.unlink(b)
	sh.size -= b.Cost
	sh.count--
	return b
}

// DropSegment forgets every block of a deleted segment.
func (c *Cache) DropSegment(seg uint64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		var drop []*Block
		for b, n := sh.hand, 0; n < sh.count; b, n = b.next, n+1 {
			if b.ID.Seg == seg {
				drop = append(drop, b)
			}
		}
		for _, b := range drop {
			sh.remove(b)
		}
		if Invariants {
			sh.check()
		}
		sh.mu.Unlock()
		for _, b := range drop {
			b.Evicted()
		}
	}
}

// Stats returns the bytes held, the hits and the misses.
func (c *Cache) Stats() (bytes, hits, misses int64) {
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		bytes += sh.size
		sh.mu.Unlock()
		hits += sh.hits.Load()
		misses += sh.miss.Load()
	}
	return bytes, hits, misses
}
