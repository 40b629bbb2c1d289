package cache

import (
	"sync"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
)

// Block is an immutable, verified block shared by every reader. The
// slots hold Seekers already initialised on the block (its CRC checked and
// its cells decoded once), so a hot Get does not re-verify and re-decode
// the block per lookup: a reader swaps one out and back in, and makes a new
// Seeker only when other readers hold all of them (see seekerSlots).
type Block struct {
	ID   ID
	Data []byte
	Dict *blockenc.Dict // its segment's dictionary, or nil
	// Cost is what the block counts against CacheSize: its bytes, plus for
	// an LZ4, LZ4Dict or Columnar block the buffer its slot Seeker
	// decompresses or decodes into (about BlockSize: blocks are cut at an
	// uncompressed size; see Cost).
	Cost int64
	// referenced is the CLOCK bit: set by a hit, cleared by the hand.
	referenced atomic.Bool
	gone       atomic.Bool // out of the cache (evicted or dropped)
	slot       [seekerSlots]atomic.Pointer[blockenc.Seeker]
	// prev and next link the block into its shard's ring (clock.go),
	// under the shard's mutex.
	prev, next *Block
	// Ref is set only on Stores built to measure HBase's design
	// (refcountHot, a benchmark): a reference per block visit and a check
	// per cell, against none.
	Ref *RefBuf
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

// Evicted marks b as out of the cache and moves the Seekers in its slots,
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

// seekerSlots is how many decoded Seekers a cached block keeps. With one,
// two goroutines reading the same hot block made a new Seeker (a full
// decode: LZ4 and, for Columnar, every column; ~90 us for a 128 KiB
// lineitem block) on about every other Get and threw it away: parallel Gets
// of 64 hot keys went from 246-378 to 380-812 ns when the blocks became
// 128 KiB Columnar (BenchmarkRefcount, op=hotget-parallel). A Seeker
// beyond the first exists only while readers overlap on the block; its
// buffers are not counted in the block's cost.
const seekerSlots = 4

// Seeker returns a Seeker on b: one from its slots, or a new one.
func (b *Block) Seeker() (*blockenc.Seeker, error) {
	for i := range b.slot {
		if s := b.slot[i].Swap(nil); s != nil {
			return s, nil
		}
	}
	return NewSeeker(b.Data, b.Dict)
}

// DoneWith gives back s, a Seeker on b: to b's slots, or when b is not
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

// PutSeeker gives s back to a free slot of b unless it is in error or
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
