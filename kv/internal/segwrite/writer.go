package segwrite

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Writer writes one segment: blocks as they fill, the meta last. The
// caller's goroutine adds cells to one Encoder while segCompressors
// goroutines compress the blocks before it (Encoder.Finish, most of the
// cost of a flush or compaction) and one more writes them to the engine
// in order, so that on two cores or more the work overlaps.
type Writer struct {
	st      *Store
	enc     *blockenc.Encoder // filled by Add
	meta    segment.Meta
	seg     *segment.Segment
	lastKey []byte
	dict    *blockenc.Dict // the encoders' Dict, or nil
	// hashes are the bloom.Hash of every key added since the writer
	// started (Add, CopyBlocks): Finish writes their key filter.
	hashes []uint64
	// baseBlocks: the blocks of the segment an extension extends.
	baseBlocks uint64
	// noFilter: write no key filter for the blocks (SkipFilter).
	noFilter bool
	err      error // the writer failed (or the engine was closed under the Store)

	// Between Add and the other goroutines: every full encoder with its
	// block's last key goes out on work (to a compressor) and on order
	// (to the writer, which waits for it to be compressed); emptied ones
	// come back on free. done closes when the writer has ended, werr
	// holds the first error.
	work    chan *pendingBlock
	order   chan *pendingBlock
	free    chan *blockenc.Encoder
	done    chan struct{}
	werr    atomic.Pointer[error]
	stopped bool

	// Owned by the writing goroutine until done: the blocks not yet
	// written (a batch of up to segBatchBytes) and their buffers, which
	// go back to the Store's free ones once the batch is written
	// (batchBufs), the block keys written or in the batch (for cleanup),
	// and meta.Blocks, meta.Bytes, meta.Parts, seg.BlockKeys,
	// seg.LastKeys and seg.Parts.
	batch     engine.Batch
	batchBufs [][]byte
	written   [][]byte
}

// pendingBlock is a full encoder and the key of its block; a compressor
// sets blk (in a buffer of the Store's, Store.getBuf) or err, takes the encoder
// back (enc nil), then closes ready. A block copied from another segment
// has no encoder and comes with blk set and ready closed.
type pendingBlock struct {
	enc   *blockenc.Encoder
	dict  *blockenc.Dict // the block's Dict, or nil
	key   []byte         // layout.Keys.Block of the block's last key
	blk   []byte
	err   error
	ready chan struct{}
}

// segCompressors is the number of goroutines a segment writer compresses
// blocks on (at most GOMAXPROCS). Compressing is most of a compaction's
// CPU: two compressors beside the merging goroutine keep two cores busy.
const segCompressors = 2

// segPending bounds the blocks compressed, or being compressed, that
// wait for the writer: it writes them to the engine in batches
// (segBatchBytes), and the compressors go on meanwhile.
const segPending = 64

// segBatchBytes bounds the block bytes of one write of a segment's
// blocks. Badger counts a value in its value log as a pointer against its
// transaction limit and writes a transaction into one value log file,
// which it closes only after the write: without a bound, a compaction's
// output would land in one file as large as the segment, where value-log
// GC cannot free the garbage that shares the file. It is also small
// beside a flush's blocks (a full 64 MiB memstore of lineitem rows makes
// about 20 MB of them), so that the writer commits most of them while the
// compressors work on the next, leaving one small batch for Finish.
const segBatchBytes = 1 << 20

// NewWriter starts a segment of blocks encoded with block, their value
// areas compressed against dict when it is not empty.
func (st *Store) NewWriter(block blockenc.Options, dict []byte) *Writer {
	var d *blockenc.Dict
	var err error
	if len(dict) > 0 {
		d, err = blockenc.NewDict(dict)
	}
	w := st.NewWriterDict(block, d)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("kv: segment %d dictionary: %w", w.meta.ID, err)
	}
	return w
}

// NewWriterDict is NewWriter with a Dict made already (nil: none).
func (st *Store) NewWriterDict(block blockenc.Options, d *blockenc.Dict) *Writer {
	w := &Writer{
		st:      st,
		meta:    segment.Meta{ID: st.c.NextID(), MinSeq: ^uint64(0)},
		seg:     &segment.Segment{Life: new(segment.Life)},
		stopped: true,
	}
	return w.start(block, d)
}

// ExtendWriter is NewWriterDict for cells that sort after every key of
// g, a segment made with block's settings: the blocks go under g's id
// after g's, and Finish writes g's meta again with them counted. g itself
// is not changed: readers holding it keep reading its blocks, which the
// extended segment shares.
func (st *Store) ExtendWriter(g *segment.Segment, block blockenc.Options, d *blockenc.Dict) *Writer {
	w := &Writer{
		st:   st,
		meta: g.Meta,
		seg: &segment.Segment{
			BlockKeys: slices.Clip(g.BlockKeys),
			LastKeys:  slices.Clip(g.LastKeys),
			Parts:     slices.Clone(g.Parts),
			Life:      g.Life,
		},
		lastKey:    append(make([]byte, 0, len(g.Meta.LastKey)), g.Meta.LastKey...),
		baseBlocks: g.Meta.Blocks,
		stopped:    true,
	}
	w.meta.Parts = slices.Clone(g.Meta.Parts)
	w.meta.Filters = slices.Clone(g.Meta.Filters)
	return w.start(block, d)
}

// start readies w to encode blocks with block and d.
func (w *Writer) start(block blockenc.Options, d *blockenc.Dict) *Writer {
	if d != nil {
		block.Dict = d
		w.dict = d
	}
	w.meta.Settings = w.st.Settings(block)
	if w.err = w.st.c.EngineErr(); w.err != nil {
		return w
	}
	w.enc = blockenc.NewEncoder(block)
	n := max(1, min(segCompressors, runtime.GOMAXPROCS(0)))
	w.work = make(chan *pendingBlock, n)
	w.order = make(chan *pendingBlock, segPending)
	w.free = make(chan *blockenc.Encoder, n+2)
	for range n + 1 {
		w.free <- blockenc.NewEncoder(block)
	}
	w.done = make(chan struct{})
	w.stopped = false
	for range n {
		go w.compress()
	}
	go w.write()
	return w
}

// Dict returns the dictionary w's blocks are compressed against, or nil.
func (w *Writer) Dict() *blockenc.Dict { return w.dict }

// Add appends c (cells in order). Blocks are cut only between keys.
func (w *Writer) Add(c blockenc.Cell) error {
	if w.err != nil {
		return w.err
	}
	if w.enc.Len() > 0 && w.enc.Size() >= w.st.c.BlockSize && !bytes.Equal(c.Key, w.lastKey) {
		if err := w.cut(); err != nil {
			return err
		}
	}
	if err := w.enc.Add(c); err != nil {
		w.err = fmt.Errorf("kv: segment %d: %w", w.meta.ID, err)
		return w.err
	}
	if w.meta.Cells == 0 {
		w.meta.FirstKey = append([]byte(nil), c.Key...)
	}
	if w.meta.Cells == 0 || !bytes.Equal(c.Key, w.lastKey) {
		w.meta.Keys++
		if !w.noFilter {
			w.hashes = append(w.hashes, bloom.Hash(c.Key))
		}
	}
	w.lastKey = append(w.lastKey[:0], c.Key...)
	w.meta.Cells++
	if c.Kind == blockenc.KindDelete {
		w.meta.Tombstones++
	}
	w.meta.MinSeq = min(w.meta.MinSeq, c.Seq)
	w.meta.MaxSeq = max(w.meta.MaxSeq, c.Seq)
	return nil
}

// cut hands the current block to a compressor and the writer and takes
// an empty encoder, failing with the writer's error if it has one.
func (w *Writer) cut() error {
	if err := w.writeErr(); err != nil {
		w.err = err
		return err
	}
	p := &pendingBlock{enc: w.enc, dict: w.dict, key: w.st.c.Keys.Block(w.meta.ID, w.lastKey), ready: make(chan struct{})}
	w.work <- p
	w.order <- p
	w.enc = <-w.free
	return nil
}

func (w *Writer) writeErr() error {
	if p := w.werr.Load(); p != nil {
		return *p
	}
	return nil
}

// stop ends the compressors and the writer after the blocks handed to
// them and returns the writer's error.
func (w *Writer) stop() error {
	if !w.stopped {
		w.stopped = true
		close(w.work)
		close(w.order)
		<-w.done
	}
	return w.writeErr()
}

// compress is a compressing goroutine: it finishes the blocks handed to
// it (skipping them after an error).
func (w *Writer) compress() {
	for p := range w.work {
		if w.werr.Load() == nil {
			p.blk, p.err = p.enc.AppendFinish(w.st.getBuf())
		}
		// The block is in a buffer of its own: the encoder goes back at
		// once, so that the compressors keep working while the writer
		// waits on a batch. free holds every encoder but the one being
		// filled, so the send never blocks.
		enc := p.enc
		p.enc = nil
		close(p.ready)
		enc.Reset()
		w.free <- enc
		// Yield between blocks: while the compressors keep every
		// processor busy, a writer waiting to run (an Apply) gets one
		// within a block's compression rather than the scheduler's 10 ms
		// time slice.
		runtime.Gosched()
	}
}

// write is the writing goroutine: it writes each block once compressed,
// in order; after an error it skips them.
func (w *Writer) write() {
	defer close(w.done)
	for p := range w.order {
		<-p.ready
		if w.werr.Load() == nil {
			if err := w.writeBlock(p); err != nil {
				w.werr.CompareAndSwap(nil, &err)
			}
		}
	}
}

func (w *Writer) writeBlock(b *pendingBlock) error {
	blk, err := b.blk, b.err
	if err != nil {
		return fmt.Errorf("kv: segment %d: %w", w.meta.ID, err)
	}
	key := b.key
	if w.batch.Size() >= w.st.c.BatchBytes {
		if err := w.writeBatch(); err != nil {
			return err
		}
	}
	w.batch.SetLarge(key, blk)
	w.batchBufs = append(w.batchBufs, blk)
	w.written = append(w.written, key)
	if n := len(w.seg.Parts); n == 0 || !sameDict(w.seg.Parts[n-1].Dict, b.dict) {
		// A new part: its dictionary goes under a key of its own, with
		// the part's first blocks.
		var raw []byte
		if b.dict != nil {
			raw = b.dict.Bytes()
			dk := w.st.c.Keys.Dict(w.meta.ID, uint32(len(w.meta.Parts)))
			w.batch.SetLarge(dk, raw)
			w.written = append(w.written, dk)
		}
		w.meta.Parts = append(w.meta.Parts, segment.NewPart(0, raw))
		w.seg.Parts = append(w.seg.Parts, segment.DictPart{First: len(w.seg.BlockKeys), Dict: b.dict})
	}
	w.meta.Parts[len(w.meta.Parts)-1].Blocks++
	w.seg.BlockKeys = append(w.seg.BlockKeys, key)
	w.seg.LastKeys = append(w.seg.LastKeys, w.st.c.Keys.BlockLastKey(key))
	w.meta.Blocks++
	w.meta.Bytes += uint64(len(blk))
	return nil
}

// Finish writes the last block, commits the blocks, then writes the meta,
// marking the metas of the segments it replaces in the same transaction,
// and returns the segment written.
//
// A replaced meta is set to segment.Replaced (a dead marker), not deleted:
// Badger's value-log GC can give a deleted key its old value back (it
// rewrites a value found at its own version, below the tombstone, and a
// later compaction drops the tombstone with the version beneath it), and
// a replaced meta back is a segment whose blocks are gone or whose cells
// were merged. The marker is the key's newest version, which no
// compaction drops, so an old version written back stays hidden beneath
// it; the Store removes every version at once when it reclaims space.
func (w *Writer) Finish(walSeq uint64, replaces []*segment.Segment) (*segment.Segment, error) {
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	if w.enc.Len() > 0 {
		if err := w.cut(); err != nil {
			w.Abort()
			return nil, err
		}
	}
	if err := w.stop(); err != nil {
		w.Abort()
		return nil, err
	}
	w.addFilter()
	if err := w.writeBatch(); err != nil {
		w.Abort()
		return nil, err
	}
	if w.meta.Cells == 0 && len(w.meta.Dels) == 0 {
		// Empty: a compaction's output keeps the seqs of the segments it
		// replaces, so that Open can tell them superseded should the
		// engine show their metas again.
		lo, hi := ^uint64(0), uint64(0)
		for _, g := range replaces {
			if g.Meta.MaxSeq > 0 {
				lo, hi = min(lo, g.Meta.MinSeq), max(hi, g.Meta.MaxSeq)
			}
		}
		if hi == 0 {
			lo = 0
		}
		w.meta.MinSeq, w.meta.MaxSeq = lo, hi
	}
	w.meta.WALSeq = walSeq
	w.meta.LastKey = append([]byte(nil), w.lastKey...)
	meta := w.meta.Append(nil)
	var b engine.Batch
	b.Set(w.st.c.Keys.Meta(w.meta.ID), meta)
	for _, g := range replaces {
		b.Set(w.st.c.Keys.Meta(g.Meta.ID), segment.Replaced)
	}
	if err := w.st.Write(&b); err != nil {
		w.Abort()
		if errors.Is(err, engine.ErrTooLarge) {
			err = fmt.Errorf("%w: meta of %d bytes (%d range tombstones): %w", w.st.c.TooLarge, len(meta), len(w.meta.Dels), err)
		}
		return nil, fmt.Errorf("kv: segment %d meta: %w", w.meta.ID, err)
	}
	w.seg.Meta = w.meta
	w.seg.Dels = rangedel.New(w.meta.Dels)
	if err := w.seg.SetFilters(); err != nil {
		return nil, err // a bug: the filters are the writer's own
	}
	return w.seg, nil
}

// SkipFilter makes w write no key filter for its blocks (a run without
// one when the segment it extends has filters). Call it before Add.
func (w *Writer) SkipFilter() { w.noFilter = true }

// addFilter adds the run of the blocks written since the writer started
// and its key filter, built from w.hashes, to the meta and to the last
// batch of blocks (once the writing goroutine has stopped). The blocks of
// an extended segment that has no filters (meta version 5 and before) get
// a run without a filter.
func (w *Writer) addFilter() {
	if w.noFilter {
		if len(w.meta.Filters) > 0 && w.meta.Blocks > w.baseBlocks {
			w.meta.Filters = append(w.meta.Filters, segment.NewFilterRun(w.meta.Blocks-w.baseBlocks, nil))
		}
		return
	}
	if w.baseBlocks > 0 && len(w.meta.Filters) == 0 {
		w.meta.Filters = append(w.meta.Filters, segment.NewFilterRun(w.baseBlocks, nil))
	}
	if w.meta.Blocks == w.baseBlocks {
		return
	}
	f := bloom.Build(w.hashes, bloom.BitsPerKey)
	key := w.st.c.Keys.Filter(w.meta.ID, uint32(len(w.meta.Filters)))
	w.batch.SetLarge(key, f)
	w.written = append(w.written, key)
	w.meta.Filters = append(w.meta.Filters, segment.NewFilterRun(w.meta.Blocks-w.baseBlocks, f))
}

// AddRangeDels gives the segment the range tombstones dels (sorted by
// rangedel.Sort), to be written in its meta.
func (w *Writer) AddRangeDels(dels []rangedel.Tombstone) {
	w.meta.Dels = dels
	for _, d := range dels {
		w.meta.MinSeq = min(w.meta.MinSeq, d.Seq)
		w.meta.MaxSeq = max(w.meta.MaxSeq, d.Seq)
	}
}

// writeBatch writes the blocks in w's batch, in as many writes as the
// engine needs (they need not be atomic: the meta comes last).
func (w *Writer) writeBatch() error {
	if w.batch.Len() == 0 {
		return nil
	}
	w.batch.SetUnseen() // the meta, written last, makes them reachable
	err := w.st.WriteSplit(&w.batch)
	w.batch.Reset()
	w.putBufs()
	if errors.Is(err, engine.ErrTooLarge) {
		err = fmt.Errorf("%w: %w", w.st.c.TooLarge, err)
	}
	if err != nil {
		return fmt.Errorf("kv: segment %d blocks: %w", w.meta.ID, err)
	}
	return nil
}

// Abort discards what was written; what it cannot delete has no meta and
// is removed at the next Open.
func (w *Writer) Abort() {
	_ = w.stop()
	w.batch.Reset()
	w.putBufs()
	_ = w.st.DeleteKeys(w.written)
}

// putBufs gives the buffers of the blocks that were in the batch, which
// the engine no longer references (Engine.Write has returned), back to the
// Store.
func (w *Writer) putBufs() {
	w.st.putBufs(w.batchBufs)
	clear(w.batchBufs)
	w.batchBufs = w.batchBufs[:0]
}
