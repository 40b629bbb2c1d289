package segwrite

import (
	"fmt"
	"sync"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segread"
	"github.com/kvenc/kvenc/kv/internal/space"
)

// Config is what the writers of a Store need of it.
type Config struct {
	// Engine holds the Store's keys, laid out by Keys.
	Engine engine.Engine
	Keys   layout.Keys
	// Cache is the block cache, whose blocks of a deleted segment go.
	Cache *cache.Cache
	// Reader reads the blocks that CopyBlocks copies and SampleSegments
	// samples.
	Reader *segread.Reader
	// BlockSize is the size at which a block is cut, DictSize the size of
	// the preset dictionaries (see kv.Options): with the block options
	// they make a segment's settings (segment.Settings).
	BlockSize int
	DictSize  int
	// BatchBytes bounds the block bytes of one write of a segment's
	// blocks; 0 is segBatchBytes (1 MiB).
	BatchBytes int
	// NextID returns the id of a new segment, larger than every id
	// before.
	NextID func() uint64
	// EngineErr returns the engine's error (closed, failed) naming the
	// Store, or nil; every write checks it first.
	EngineErr func() error
	// TooLarge is the error that a segment's writes too large for the
	// engine wrap (kv.ErrTooLarge).
	TooLarge error
}

// Store writes and deletes the segments of one Store; its Write,
// WriteSplit and DeleteKeys serve the Store's other writes to the engine
// too (markers, WAL records flushed, orphans). Its methods are safe for
// concurrent use; a Writer it starts serves one goroutine.
type Store struct {
	c Config

	// bufs are block buffers free for the writers' next blocks: those of
	// a batch come back once it is written (the engine keeps no reference
	// past its Write), so that blocks reuse the buffers of blocks written
	// before, in the same segment or an earlier one, instead of
	// allocating one each. bufBytes is their capacity in bytes, at most
	// two batches' (Config.BatchBytes).
	bufMu    sync.Mutex
	bufs     [][]byte
	bufBytes int
}

// New returns the Store that c describes.
func New(c Config) *Store {
	if c.BatchBytes <= 0 {
		c.BatchBytes = segBatchBytes
	}
	return &Store{c: c}
}

// Settings returns the settings of the segments written with block
// (segment.Settings).
func (st *Store) Settings(block blockenc.Options) []byte {
	return segment.Settings(block, st.c.BlockSize, st.c.DictSize)
}

// Write is Engine.Write, failing first when the engine is closed.
func (st *Store) Write(b *engine.Batch) error {
	if err := st.c.EngineErr(); err != nil {
		return err
	}
	return space.Classify(st.c.Engine.Write(b))
}

// WriteSplit is engine.WriteSplit, failing first when the engine is
// closed.
func (st *Store) WriteSplit(b *engine.Batch) error {
	if err := st.c.EngineErr(); err != nil {
		return err
	}
	return space.Classify(engine.WriteSplit(st.c.Engine, b))
}

// DeleteKeys deletes keys that no read reaches (WAL records, blocks
// without a meta), in as many writes as it takes, unseen
// (engine.Batch.SetUnseen).
func (st *Store) DeleteKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	var b engine.Batch
	for _, k := range keys {
		b.Delete(k)
	}
	b.SetUnseen()
	if err := st.WriteSplit(&b); err != nil {
		return fmt.Errorf("kv: delete %d keys: %w", len(keys), err)
	}
	return nil
}

// DeleteSegment removes the blocks, dictionaries and key filters of a segment whose
// meta is gone, and its blocks from the cache: every key under its id
// (those of the segments it extended too).
func (st *Store) DeleteSegment(g *segment.Segment) error {
	st.c.Cache.DropSegment(g.Meta.ID)
	if err := st.c.EngineErr(); err != nil {
		return err
	}
	k := st.c.Keys
	if err := st.c.Engine.DeleteRange(k.Segment(g.Meta.ID), k.Segment(g.Meta.ID+1)); err != nil {
		return fmt.Errorf("kv: delete segment %d: %w", g.Meta.ID, err)
	}
	if err := st.c.Engine.DeleteRange(k.DictSegment(g.Meta.ID), k.DictSegment(g.Meta.ID+1)); err != nil {
		return fmt.Errorf("kv: delete segment %d dictionaries: %w", g.Meta.ID, err)
	}
	if err := st.c.Engine.DeleteRange(k.FilterSegment(g.Meta.ID), k.FilterSegment(g.Meta.ID+1)); err != nil {
		return fmt.Errorf("kv: delete segment %d key filters: %w", g.Meta.ID, err)
	}
	return nil
}

// getBuf returns an empty block buffer: a free one, or nil.
func (st *Store) getBuf() []byte {
	st.bufMu.Lock()
	defer st.bufMu.Unlock()
	n := len(st.bufs)
	if n == 0 {
		return nil
	}
	b := st.bufs[n-1]
	st.bufs[n-1] = nil
	st.bufs = st.bufs[:n-1]
	st.bufBytes -= cap(b)
	return b[:0]
}

// putBufs frees bufs, the buffers of blocks that were written, keeping at
// most two batches' bytes of free buffers.
func (st *Store) putBufs(bufs [][]byte) {
	st.bufMu.Lock()
	defer st.bufMu.Unlock()
	for _, b := range bufs {
		if st.bufBytes+cap(b) > 2*st.c.BatchBytes {
			return
		}
		st.bufs = append(st.bufs, b)
		st.bufBytes += cap(b)
	}
}
