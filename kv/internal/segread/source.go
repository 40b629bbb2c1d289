package segread

import (
	"bytes"
	"fmt"
	"math"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Bounds are the bounds of a scan: Lower inclusive, Upper exclusive, nil
// meaning unbounded. A Source's read-ahead stops at them as they are
// when it starts.
type Bounds struct {
	Lower, Upper []byte
}

// NewSource returns a Source on g in the read mode: per key the newest
// version at or below rp (tombstones included), missed blocks put into
// the cache; bounds (may be nil) are those of the scan it serves.
func (r *Reader) NewSource(g *segment.Segment, rp uint64, bounds *Bounds) *Source {
	return &Source{r: r, g: g, rp: rp, fill: true, bi: -1, bounds: bounds}
}

// NewVersions returns a Source on g in the all-versions mode (compaction):
// every cell, its blocks read outside the cache.
func (r *Reader) NewVersions(g *segment.Segment) *Source {
	return &Source{r: r, g: g, rp: math.MaxUint64, all: true, bi: -1}
}

// Source walks one segment block by block, forward or backward, the two
// directions mixing freely. In the read mode it shows per key the newest
// version at or below its read point (tombstones included); in the
// all-versions mode every cell, backward in reverse cell order. Cur's
// cell aliases the block: valid until the next move. A Source is used by
// one goroutine; Close it.
type Source struct {
	r    *Reader
	g    *segment.Segment
	rp   uint64
	all  bool // every version (compaction) instead of the newest visible
	fill bool // put missed blocks into the cache
	// streamed counts the bytes of the blocks visited; once they pass the
	// cache's capacity the source stops filling the cache (see load).
	streamed int64

	bi  int // current block; len(blocks) when exhausted
	cb  *cache.Block
	rb  *cache.RefBuf // pooled buffer of an uncached block, or nil
	sk  *blockenc.Seeker
	c   *blockenc.Cell // the Seeker's own cell: valid while sk is held
	ok  bool
	e   error
	key []byte // copy of the current key (read mode: to skip older versions)

	// bounds are those of the scan the source serves (nil in
	// compaction): they limit the read-ahead.
	bounds *Bounds
	// dir and run: the direction of the last block loads (+1 forward, -1
	// backward) and how many ran in it since the last First, Last or seek.
	// From the AheadAfter'th on, a reader goroutine reads ahead (see
	// ahead), so a short scan reads nothing it does not use.
	dir, run int
	ahead    *ahead // the read-ahead goroutine, or nil
	spare    Spare  // of the last uncached block left, for the next read
	// cursor reads the blocks of a long run in order when the source
	// does not read ahead, or is nil.
	cursor *Cursor
}

// fetched is a block read for a Source: a cached block, the pooled
// buffer holding it when it is not cached, and a Seeker on it; or the
// error that stopped the read (inBlock: from the block's own bytes).
type fetched struct {
	cb      *cache.Block
	rb      *cache.RefBuf
	sk      *blockenc.Seeker
	err     error
	inBlock bool
}

// release lets go of what f holds.
func (f *fetched) release() {
	if f.sk != nil {
		f.cb.DoneWith(f.sk, f.rb != nil)
	}
	if f.cb != nil && f.cb.Ref != nil {
		f.cb.Ref.Release()
	}
	if f.rb != nil {
		f.rb.Release()
	}
	*f = fetched{}
}

// Cur returns the current cell, nil when exhausted or on error: valid
// until the next move.
func (it *Source) Cur() *blockenc.Cell {
	if !it.ok {
		return nil
	}
	return it.c
}

// Err returns the error that stopped the Source, or nil.
func (it *Source) Err() error { return it.e }

// Buffer returns the pooled buffer of the current block, nil when the
// block is cached (for tests).
func (it *Source) Buffer() *cache.RefBuf { return it.rb }

// Ahead returns the Source's read-ahead goroutine's done channel, closed
// when it has returned, or nil when none runs (for tests).
func (it *Source) Ahead() <-chan struct{} {
	if it.ahead == nil {
		return nil
	}
	return it.ahead.done
}

// MaxSeq bounds the seqs of the cells the Source shows.
func (it *Source) MaxSeq() uint64 { return it.g.Meta.MaxSeq }

// leave lets go of the current block: an uncached one's buffer and Seeker
// go back to the reader goroutine that read it, or become the spare.
func (it *Source) leave() {
	f := fetched{cb: it.cb, rb: it.rb, sk: it.sk}
	if f.rb != nil && f.sk != nil {
		if it.ahead == nil || !it.ahead.recycle(Spare{f.rb, f.sk}) {
			it.spare.keep(f.rb, f.sk)
		}
		f.rb, f.sk = nil, nil
	}
	f.release()
	it.cb, it.rb, it.sk = nil, nil, nil
}

// dropAhead stops the reader goroutine, if any, and lets go of what it
// read.
func (it *Source) dropAhead() {
	if r := it.ahead; r != nil {
		it.ahead = nil
		r.stop()
	}
}

// dropCursor closes the source's cursor, if any.
func (it *Source) dropCursor() {
	it.cursor.Close()
	it.cursor = nil
}

// Close lets go of the blocks the Source holds and stops its read-ahead.
func (it *Source) Close() {
	it.leave()
	it.dropAhead()
	it.dropCursor()
	it.spare.release()
	it.ok = false
}

// loadSeek is load for a seek: a random visit (see fetch).
func (it *Source) loadSeek(i int) bool {
	it.run = 0
	it.dropCursor()
	return it.loadAs(i, true)
}

// load is loadAs for a visit in order (First, Last, Next, Prev), in
// direction dir (+1 forward, -1 backward).
func (it *Source) load(i, dir int) bool {
	if dir == it.dir {
		it.run++
	} else {
		it.dir, it.run = dir, 1
		it.dropCursor()
	}
	return it.loadAs(i, false)
}

// loadAs moves to block i, positioned before its first cell.
func (it *Source) loadAs(i int, seek bool) bool {
	it.leave()
	it.bi = i
	if i < 0 || i >= len(it.g.BlockKeys) {
		it.dropAhead()
		it.ok = false
		return false
	}
	if it.fill && it.r.c.Closing() && it.r.c.Cache.Get(cache.ID{Seg: it.g.Meta.ID, Block: i}) == nil {
		it.dropAhead()
		it.fail(fmt.Errorf("segment %d block %d: %w", it.g.Meta.ID, i, it.r.c.ErrClosed()))
		return false
	}
	var f fetched
	got := false
	if r := it.ahead; r != nil && !seek && it.dir == r.dir && i == r.want {
		if f, got = r.take(); !got {
			it.dropAhead() // it stopped: at the bound or the segment's end
		}
	} else {
		it.dropAhead()
	}
	if !got {
		// Once a run has proven long (AheadAfter blocks), a reader reads
		// ahead: the scan reads block i with a point read and takes every
		// block after it from the reader (past the scan's bounds, where
		// no reader starts, it goes on with point reads). Without
		// read-ahead the scan reads the blocks of the run through its own
		// cursor (compaction from a run's second block: it reads whole
		// segments). A short scan reads its blocks with point reads only,
		// and opens no engine iterator.
		if !seek && (it.run >= AheadAfter || it.all && it.run >= 2) {
			if ReadAhead && !it.all {
				if it.ahead == nil {
					it.startReader(i + it.dir)
				}
			} else if it.cursor == nil {
				it.cursor = it.r.NewCursor(it.g, it.dir < 0)
			}
		}
		f = it.fetch(i, seek || it.run < AheadAfter, it.fillNext(), &it.spare, it.cursor)
	}
	if f.err != nil {
		if f.inBlock {
			it.failBlock(f.err)
		} else {
			it.fail(f.err)
		}
		return false
	}
	it.streamed += f.cb.Cost
	it.cb, it.rb, it.sk = f.cb, f.rb, f.sk
	return true
}

// fillNext reports whether the next block the source reads goes into the
// cache. A source that has visited more blocks than the cache holds is
// streaming through a store bigger than the cache: its next blocks would
// evict one another before a reuse, so it reads them into pooled buffers
// and leaves the cache to the blocks already in it.
func (it *Source) fillNext() bool { return it.fill && it.streamed <= it.r.c.Cache.Max }

// fetch reads block i: from the cache, or from Badger into the cache
// (fill) or into a pooled buffer. A random visit (seek: a seek, or a
// block of a scan that has not proven long, see AheadAfter) fills the
// cache only at the block's second miss within a while, at the hot end,
// as a Get does: a short scan that reads a block once copies it into a
// pooled buffer and evicts nothing. The blocks of a long scan go in at
// the cold end.
// It takes the buffer and Seeker of sp when it needs them. It reads only
// what does not change under it, so that a reader goroutine can run it.
func (it *Source) fetch(i int, random, fill bool, sp *Spare, cur *Cursor) fetched {
	id := cache.ID{Seg: it.g.Meta.ID, Block: i}
	cb := it.r.c.Cache.Get(id)
	var rb *cache.RefBuf
	if cb == nil {
		fill = fill && (!random || it.r.c.Cache.Admit(id))
		var err error
		if cb, rb, err = it.r.ReadBlock(it.g, i, fill, !random, sp, cur); err != nil {
			return fetched{err: err}
		}
	}
	sk, err := cb.Seeker()
	if err != nil {
		if rb != nil {
			rb.Release()
		}
		return fetched{err: err, inBlock: true}
	}
	if cb.Ref != nil {
		cb.Ref.Retain()
	}
	return fetched{cb: cb, rb: rb, sk: sk}
}

func (it *Source) fail(err error) {
	it.e = err
	it.ok = false
}

// failBlock stops on err from the current block's Seeker.
func (it *Source) failBlock(err error) {
	it.fail(fmt.Errorf("segment %d block %d: %w", it.g.Meta.ID, it.bi, err))
}

// First moves to the first cell.
func (it *Source) First() {
	it.e = nil
	it.run = 0
	if it.load(0, 1) {
		it.settle(it.sk.First())
	}
}

// SeekGE moves to the first key >= key.
func (it *Source) SeekGE(key []byte) {
	it.e = nil
	i := it.g.FindBlock(key)
	if i < 0 {
		it.leave()
		it.ok = false
		return
	}
	if i != it.bi || it.sk == nil {
		if !it.loadSeek(i) {
			return
		}
	}
	it.settle(it.sk.SeekGE(key))
}

// Next moves to the next key (all-versions: the next cell).
func (it *Source) Next() {
	if !it.ok {
		return
	}
	if cache.Invariants && it.rb != nil {
		it.rb.Check() // before the Seeker reads the buffer again
	}
	if it.all || it.g.Meta.Keys == it.g.Meta.Cells {
		// Every cell, or one version per Key: no older version to skip.
		it.settle(it.sk.Next())
		return
	}
	it.key = append(it.key[:0], it.c.Key...)
	on := it.sk.Next()
	for on && bytes.Equal(it.sk.Cell().Key, it.key) {
		on = it.sk.Next()
	}
	it.settle(on)
}

// settle lands on the seeker's cell (on: the last move found one) or the
// next visible one, moving to the next block at a block's end.
func (it *Source) settle(on bool) {
	for {
		if !on {
			if err := it.sk.Err(); err != nil {
				it.failBlock(err)
				return
			}
			if !it.load(it.bi+1, 1) {
				return
			}
			on = it.sk.First() // a Seeker from the slot may be anywhere
			continue
		}
		it.c = it.sk.Cell() // no copy per cell: the Seeker keeps it in place
		if cache.Invariants && it.rb != nil {
			it.rb.Check()
		}
		if it.cb.Ref != nil {
			it.cb.Ref.Check()
		}
		if it.all || it.c.Seq <= it.rp {
			it.ok = true
			return
		}
		on = it.sk.Next() // a version above the read point: an older one follows
	}
}

// Last moves to the last key.
func (it *Source) Last() {
	it.e = nil
	it.ok = false
	it.run = 0
	if it.load(len(it.g.BlockKeys)-1, -1) {
		it.settleBack(it.sk.Last())
	}
}

// SeekLT moves to the last key < key.
func (it *Source) SeekLT(key []byte) {
	it.e = nil
	if len(it.g.BlockKeys) == 0 || bytes.Compare(key, it.g.Meta.FirstKey) <= 0 {
		it.leave()
		it.ok = false
		return
	}
	// The last cell below key is in the first block whose last key is >=
	// key, or in the block before it; past the last key, in the last block.
	i := it.g.FindBlock(key)
	if i < 0 {
		i = len(it.g.BlockKeys) - 1
	}
	if i != it.bi || it.sk == nil {
		if !it.loadSeek(i) {
			return
		}
	}
	it.settleBack(it.sk.SeekLT(key))
}

// Prev moves to the previous key (all-versions: the previous cell).
func (it *Source) Prev() {
	if !it.ok {
		return
	}
	if cache.Invariants && it.rb != nil {
		it.rb.Check()
	}
	if it.all || it.g.Meta.Keys == it.g.Meta.Cells {
		it.settleBack(it.sk.Prev())
		return
	}
	// Leave the current Key: its newer versions (above the read point)
	// sit before it, in the same block (blocks are cut between keys).
	it.key = append(it.key[:0], it.c.Key...)
	on := it.sk.Prev()
	for on && bytes.Equal(it.sk.Cell().Key, it.key) {
		on = it.sk.Prev()
	}
	it.settleBack(on)
}

// settleBack is settle for backward moves. The seeker's cell (on: the last
// move found one) is the oldest version of its key not yet passed; at a
// block's start it moves to the previous block's last cell. In the read
// mode it lands on the key's newest version at or below the read point:
// versions of one key sit newest first, so it steps back over the visible
// ones to the first that is above the read point or of another key, then
// forward once. A key whose oldest version is above the read point has no
// visible one and is skipped.
func (it *Source) settleBack(on bool) {
	for {
		if !on {
			if err := it.sk.Err(); err != nil {
				it.failBlock(err)
				return
			}
			if it.bi <= 0 {
				it.leave()
				it.ok = false
				return
			}
			if !it.load(it.bi-1, -1) {
				return
			}
			on = it.sk.Last()
			continue
		}
		c := it.sk.Cell()
		if cache.Invariants && it.rb != nil {
			it.rb.Check()
		}
		if it.all {
			it.land(c)
			return
		}
		if c.Seq > it.rp {
			// Every version of this key is above the read point.
			it.key = append(it.key[:0], c.Key...)
			on = it.sk.Prev()
			for on && bytes.Equal(it.sk.Cell().Key, it.key) {
				on = it.sk.Prev()
			}
			continue
		}
		if it.g.Meta.Keys == it.g.Meta.Cells {
			it.land(c) // one version per key
			return
		}
		it.key = append(it.key[:0], c.Key...)
		for {
			if !it.sk.Prev() {
				if err := it.sk.Err(); err != nil {
					it.failBlock(err)
					return
				}
				on = it.sk.First() // the block's first cell is the newest visible
				break
			}
			if p := it.sk.Cell(); p.Seq > it.rp || !bytes.Equal(p.Key, it.key) {
				on = it.sk.Next()
				break
			}
		}
		if !on {
			if err := it.sk.Err(); err != nil {
				it.failBlock(err)
			} else {
				it.fail(fmt.Errorf("%w: segment %d block %d: a cell seen moving backward is gone moving forward", blockenc.ErrCorrupt, it.g.Meta.ID, it.bi))
			}
			return
		}
		it.land(it.sk.Cell())
		return
	}
}

// land makes c, the seeker's cell, the current one.
func (it *Source) land(c *blockenc.Cell) {
	it.c = c
	if it.cb.Ref != nil {
		it.cb.Ref.Check()
	}
	it.ok = true
}
