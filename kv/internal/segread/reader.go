package segread

import (
	"bytes"
	"errors"
	"fmt"
	"sync"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Config is what a Reader needs of its Store.
type Config struct {
	// Engine holds the blocks, under Keys.
	Engine engine.Engine
	Keys   layout.Keys
	// Prefix names the Store in errors.
	Prefix []byte
	// Cache is the block cache (Max 0: none), Pool the buffers of blocks
	// read outside it. BlockSize is the Store's target block size (for
	// the cache's cost of a block).
	Cache     *cache.Cache
	Pool      *cache.Pool
	BlockSize int
	// Closing reports whether the Store is closing; reads that need the
	// engine then fail with ErrClosed(). EngineErr returns the engine's
	// error (closed, failed) naming the Store, or nil.
	Closing   func() bool
	ErrClosed func() error
	EngineErr func() error
}

// Reader reads the blocks of one Store's segments. Its methods are safe
// for concurrent use.
type Reader struct {
	c Config
	// RefcountHot makes every block visit take a reference and every cell
	// access check it (HBase's design): only for the benchmark that
	// measures what that costs. Set it before the first read.
	RefcountHot bool
	cursors     cursors
	aheads      aheads
}

// New returns a Reader for the Store c describes.
func New(c Config) *Reader { return &Reader{c: c} }

// Shut closes every open Cursor, whose reads then fail with ErrClosed,
// and refuses new ones (NewCursor returns nil), and waits for the
// read-ahead goroutines of closed scans to return: Store.Close calls it
// to end the block reads of Iterators.
func (r *Reader) Shut() {
	r.cursors.shut()
	r.aheads.wait()
}

// ReadBlock reads block i of g from the engine, after a cache miss. With
// fill and a cache, it is copied once into an exact-size slice and cached,
// at the cold end with cold (see cache.Cache.Add). Otherwise (compaction,
// a streaming or first-time seek, no cache) it is read into a pooled
// buffer, returned with one reference the caller releases. It takes the
// buffer and the Seeker from sp (may be nil) when it has them, and reads
// through cur when it is not nil (a scan's blocks in order), else with a
// point Get.
func (r *Reader) ReadBlock(g *segment.Segment, i int, fill, cold bool, sp *Spare, cur *Cursor) (*cache.Block, *cache.RefBuf, error) {
	t := blockTakes.Get().(*blockTake)
	*t = blockTake{cached: fill && r.c.Cache.Max > 0, pool: r.c.Pool, sp: sp}
	var err error
	if cur != nil {
		err = cur.View(i, t)
	} else {
		err = r.ViewBlock(g, i, t)
	}
	cached, rb, data := t.cached, t.rb, t.data
	*t = blockTake{}
	blockTakes.Put(t)
	if err != nil {
		return nil, nil, err
	}
	cb, err := r.newCachedBlock(g, i, data, sp)
	if err != nil {
		if rb != nil {
			rb.Release()
		}
		return nil, nil, err
	}
	if cached {
		if got := r.c.Cache.Add(cb, cold); got != cb { // another reader's
			cb.Evicted()
			cb = got
		}
	}
	return cb, rb, nil
}

// blockTake is the engine.Viewer of ReadBlock, pooled so that a read
// allocates nothing for it: it copies the block the engine lends into an
// exact-size slice for the cache (cached) or into a pooled buffer (rb).
type blockTake struct {
	cached bool
	pool   *cache.Pool
	sp     *Spare
	rb     *cache.RefBuf
	data   []byte
}

var blockTakes = sync.Pool{New: func() any { return new(blockTake) }}

func (t *blockTake) View(v []byte) error {
	if t.cached {
		t.data = append([]byte(nil), v...)
	} else {
		t.rb = t.sp.buffer(t.pool, len(v))
		copy(t.rb.B, v)
		t.data = t.rb.B
	}
	return nil
}

// newCachedBlock verifies data, block i of g, and wraps it with a Seeker
// on it (sp's if it has one) in its first slot.
func (r *Reader) newCachedBlock(g *segment.Segment, i int, data []byte, sp *Spare) (*cache.Block, error) {
	dict := g.DictFor(i)
	sk, err := sp.seeker(data, dict)
	if err != nil {
		return nil, g.BlockErr(i, err)
	}
	cb := cache.NewBlock(cache.ID{Seg: g.Meta.ID, Block: i}, data, dict, sk, r.c.BlockSize)
	if r.RefcountHot {
		cb.Ref = cache.NewRef()
	}
	return cb, nil
}

// Spare is a block buffer and a Seeker that a scan has finished with,
// kept for the next block it reads. The pools would not carry them over
// to a read-ahead: sync.Pool keeps the last value put on a processor in a
// slot only that processor takes from, and the read-ahead runs on another
// one, so it would allocate a buffer and grow a new Seeker's buffers for
// every block.
type Spare struct {
	rb *cache.RefBuf
	sk *blockenc.Seeker
}

// buffer returns sp's buffer, cut to n bytes, if sp has one that big, or
// one from pool.
func (sp *Spare) buffer(pool *cache.Pool, n int) *cache.RefBuf {
	if sp != nil && sp.rb != nil && cap(sp.rb.B) >= n {
		rb := sp.rb
		sp.rb = nil
		rb.B = rb.B[:n]
		return rb
	}
	return pool.Get(n)
}

// seeker returns a Seeker on data, sp's if it has one.
func (sp *Spare) seeker(data []byte, dict *blockenc.Dict) (*blockenc.Seeker, error) {
	if sp == nil || sp.sk == nil {
		return cache.NewSeeker(data, dict)
	}
	sk := sp.sk
	sp.sk = nil
	if err := sk.InitDict(data, dict); err != nil {
		return nil, err
	}
	return sk, nil
}

// keep makes rb and sk, of an uncached block left, the spares if sp has
// none, and otherwise gives them back to their pools.
func (sp *Spare) keep(rb *cache.RefBuf, sk *blockenc.Seeker) {
	if sp.rb != nil {
		(&Spare{rb, sk}).release()
		return
	}
	sp.rb, sp.sk = rb, sk
}

// release gives sp's buffer and Seeker back to their pools.
func (sp *Spare) release() {
	if sp.rb != nil {
		sp.rb.Release()
	}
	if sp.sk != nil {
		cache.Recycle(sp.sk)
	}
	*sp = Spare{}
}

// ViewBlock lends v the bytes of block i of g as the engine holds them
// (for a Badger value-log value its mmapped file), valid only during
// v.View.
func (r *Reader) ViewBlock(g *segment.Segment, i int, v engine.Viewer) error {
	if err := r.c.EngineErr(); err != nil {
		return err
	}
	err := r.c.Engine.Get(g.BlockKeys[i], v)
	if errors.Is(err, engine.ErrNotFound) {
		return g.Missing(i)
	}
	if err != nil {
		return g.ReadErr(i, err)
	}
	return nil
}

// Get looks key up in g at read point rp: the newest version with Seq <=
// rp, its value appended to dst, and its seq. It returns found=false when
// g has no such version, without reading a block when the key filter of
// the block that would hold key says g has no cell of key. h is
// bloom.Hash(key), computed once by a caller that looks in many segments.
func (r *Reader) Get(g *segment.Segment, key []byte, h uint64, rp uint64, dst []byte) (val []byte, kind blockenc.Kind, seq uint64, found bool, err error) {
	if bytes.Compare(key, g.Meta.FirstKey) < 0 {
		return nil, 0, 0, false, nil
	}
	i := g.FindBlock(key)
	if i < 0 || len(g.Filters) > 0 && !g.MayHold(i, h) {
		return nil, 0, 0, false, nil
	}
	var cb *cache.Block
	if r.c.Cache.Max > 0 {
		id := cache.ID{Seg: g.Meta.ID, Block: i}
		if cb = r.c.Cache.Get(id); cb == nil && r.c.Cache.Admit(id) {
			if cb, _, err = r.ReadBlock(g, i, true, false, nil, nil); err != nil {
				return nil, 0, 0, false, err
			}
		}
	}
	if cb == nil {
		return r.getUncached(g, i, key, rp, dst)
	}
	if cb.Ref != nil { // RefcountHot: HBase's scheme, for the benchmark
		cb.Ref.Retain()
		defer cb.Ref.Release()
	}
	sk, err := cb.Seeker()
	if err != nil {
		return nil, 0, 0, false, fmt.Errorf("segment %d block %d: %w", g.Meta.ID, i, err)
	}
	val, kind, seq, found = lookup(sk, key, rp, dst, cb.Ref)
	if err := sk.Err(); err != nil {
		return nil, 0, 0, false, fmt.Errorf("segment %d block %d: %w", g.Meta.ID, i, err)
	}
	cb.PutSeeker(sk)
	return val, kind, seq, found, nil
}

// getUncached is Get of block i of g when the block is not cached (no
// cache, or a block missed for the first time in a while): it is read
// where the engine holds it, not copied.
func (r *Reader) getUncached(g *segment.Segment, i int, key []byte, rp uint64, dst []byte) (val []byte, kind blockenc.Kind, seq uint64, found bool, err error) {
	l := lookups.Get().(*blockLookup)
	*l = blockLookup{dict: g.DictFor(i), key: key, rp: rp, val: dst}
	err = r.ViewBlock(g, i, l)
	val, kind, seq, found, serr := l.val, l.kind, l.seq, l.found, l.err
	*l = blockLookup{}
	lookups.Put(l)
	if err != nil {
		return nil, 0, 0, false, err
	}
	if serr != nil {
		return nil, 0, 0, false, g.BlockErr(i, serr)
	}
	return val, kind, seq, found, nil
}

// blockLookup is the engine.Viewer of getUncached, pooled so that a Get
// allocates nothing for it: it looks key up at rp in the block the engine
// lends, appending the value found to val.
type blockLookup struct {
	dict  *blockenc.Dict
	key   []byte
	rp    uint64
	val   []byte
	kind  blockenc.Kind
	seq   uint64
	found bool
	err   error
}

var lookups = sync.Pool{New: func() any { return new(blockLookup) }}

func (l *blockLookup) View(v []byte) error {
	sk, err := cache.NewSeeker(v, l.dict)
	if err != nil {
		l.err = err
		return nil
	}
	l.val, l.kind, l.seq, l.found = lookup(sk, l.key, l.rp, l.val, nil)
	l.err = sk.Err()
	cache.Recycle(sk)
	return nil
}

// lookup finds in sk's block the newest version of key with Seq <= rp and
// appends its value to dst. ref, if not nil, is checked per cell read
// (RefcountHot).
func lookup(sk *blockenc.Seeker, key []byte, rp uint64, dst []byte, ref *cache.RefBuf) (val []byte, kind blockenc.Kind, seq uint64, found bool) {
	for ok := sk.SeekGE(key); ok; ok = sk.Next() {
		c := sk.Cell()
		if !bytes.Equal(c.Key, key) {
			break
		}
		if c.Seq <= rp {
			if ref != nil {
				ref.Check()
			}
			return append(dst, c.Value...), c.Kind, c.Seq, true
		}
	}
	return nil, 0, 0, false
}
