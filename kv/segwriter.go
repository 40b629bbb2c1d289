package kv

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/space"
)

// segWriter writes one segment: blocks as they fill, the meta last. The
// caller's goroutine adds cells to one Encoder while segCompressors
// goroutines compress the blocks before it (Encoder.Finish, most of the
// cost of a flush or compaction) and one more writes them to Badger in
// order, so that on two cores or more the work overlaps.
type segWriter struct {
	s       *Store
	enc     *blockenc.Encoder // filled by add
	meta    segment.Meta
	seg     *segment.Segment
	lastKey []byte
	dict    *blockenc.Dict // the encoders' Dict, or nil
	err     error          // the writer failed (or the DB was closed under the Store)

	// Between add and the other goroutines: every full encoder with its
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
	// written (a batch of up to segBatchBytes), the block keys written or
	// in the batch (for cleanup), and meta.blocks, meta.bytes,
	// meta.Parts, seg.BlockKeys, seg.LastKeys and seg.Parts.
	batch   engine.Batch
	written [][]byte
}

// pendingBlock is a full encoder and the last key of its block; a
// compressor sets blk or err, then closes ready. A block copied from
// another segment has no encoder and comes with blk set and ready closed.
type pendingBlock struct {
	enc     *blockenc.Encoder
	dict    *blockenc.Dict // the block's Dict, or nil
	lastKey []byte
	blk     []byte
	err     error
	ready   chan struct{}
}

// segCompressors is the number of goroutines a segment writer compresses
// blocks on (at most GOMAXPROCS). Compressing is most of a compaction's
// CPU: two compressors beside the merging goroutine keep two cores busy.
const segCompressors = 2

// segBatchBytes bounds the block bytes of one write of a segment's
// blocks. Badger counts a value in its value log as a pointer against its
// transaction limit and writes a transaction into one value log file,
// which it closes only after the write: without a bound, a compaction's
// output would land in one file as large as the segment, where value-log
// GC cannot free the garbage that shares the file.
const segBatchBytes = 4 << 20

// newSegWriter starts a segment of blocks encoded with block, their value
// areas compressed against dict when it is not empty (see dict.go).
func (s *Store) newSegWriter(block blockenc.Options, dict []byte) *segWriter {
	var d *blockenc.Dict
	var err error
	if len(dict) > 0 {
		d, err = blockenc.NewDict(dict)
	}
	w := s.newSegWriterDict(block, d)
	if err != nil && w.err == nil {
		w.err = fmt.Errorf("kv: segment %d dictionary: %w", w.meta.ID, err)
	}
	return w
}

// newSegWriterDict is newSegWriter with a Dict made already (nil: none).
func (s *Store) newSegWriterDict(block blockenc.Options, d *blockenc.Dict) *segWriter {
	w := &segWriter{
		s:       s,
		meta:    segment.Meta{ID: s.nextSegID.Add(1), MinSeq: ^uint64(0)},
		seg:     &segment.Segment{Life: new(segment.Life)},
		stopped: true,
	}
	return w.start(block, d)
}

// extendSegWriter is newSegWriterDict for cells that sort after every key
// of g, a segment made with block's settings: the blocks go under g's id
// after g's, and finish writes g's meta again with them counted (see
// Store.extendable). g itself is not changed: readers holding it keep
// reading its blocks, which the extended segment shares.
func (s *Store) extendSegWriter(g *segment.Segment, block blockenc.Options, d *blockenc.Dict) *segWriter {
	w := &segWriter{
		s:    s,
		meta: g.Meta,
		seg: &segment.Segment{
			BlockKeys: slices.Clip(g.BlockKeys),
			LastKeys:  slices.Clip(g.LastKeys),
			Parts:     slices.Clone(g.Parts),
			Life:      g.Life,
		},
		lastKey: clone(g.Meta.LastKey),
		stopped: true,
	}
	w.meta.Parts = slices.Clone(g.Meta.Parts)
	return w.start(block, d)
}

// start readies w to encode blocks with block and d.
func (w *segWriter) start(block blockenc.Options, d *blockenc.Dict) *segWriter {
	s := w.s
	if d != nil {
		block.Dict = d
		w.dict = d
	}
	w.meta.Settings = s.opts.blockSettings(block)
	if w.err = s.dbClosed(); w.err != nil {
		return w
	}
	w.enc = blockenc.NewEncoder(block)
	n := max(1, min(segCompressors, runtime.GOMAXPROCS(0)))
	w.work = make(chan *pendingBlock, n)
	w.order = make(chan *pendingBlock, n+1)
	w.free = make(chan *blockenc.Encoder, n+1)
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

// add appends c (cells in order). Blocks are cut only between keys.
func (w *segWriter) add(c blockenc.Cell) error {
	if w.err != nil {
		return w.err
	}
	if w.enc.Len() > 0 && w.enc.Size() >= w.s.opts.BlockSize && !bytes.Equal(c.Key, w.lastKey) {
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
func (w *segWriter) cut() error {
	if err := w.writeErr(); err != nil {
		w.err = err
		return err
	}
	p := &pendingBlock{enc: w.enc, dict: w.dict, lastKey: append([]byte(nil), w.lastKey...), ready: make(chan struct{})}
	w.work <- p
	w.order <- p
	w.enc = <-w.free
	return nil
}

func (w *segWriter) writeErr() error {
	if p := w.werr.Load(); p != nil {
		return *p
	}
	return nil
}

// stop ends the compressors and the writer after the blocks handed to
// them and returns the writer's error.
func (w *segWriter) stop() error {
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
func (w *segWriter) compress() {
	for p := range w.work {
		if w.werr.Load() == nil {
			p.blk, p.err = p.enc.Finish()
		}
		close(p.ready)
	}
}

// write is the writing goroutine: it writes each block once compressed,
// in order; after an error it only gives encoders back.
func (w *segWriter) write() {
	defer close(w.done)
	for p := range w.order {
		<-p.ready
		if w.werr.Load() == nil {
			if err := w.writeBlock(p); err != nil {
				w.werr.CompareAndSwap(nil, &err)
			}
		}
		if p.enc != nil {
			p.enc.Reset()
			w.free <- p.enc
		}
	}
}

// copyBlocks appends blocks lo..hi-1 of g to the segment as they are,
// with their dictionaries (blocks a compaction would not change), and
// their cells to the meta: g's counts when they are all of g's blocks;
// otherwise, g holding one version per key and no tombstone (final), the
// cell counts of the blocks' headers within g's seqs. Every cell added
// before sorts before theirs, every one added after them after. Each
// block's head is checked (as a read does) before it is written.
func (w *segWriter) copyBlocks(g *segment.Segment, lo, hi int) error {
	if w.err != nil {
		return w.err
	}
	if w.enc.Len() > 0 {
		if err := w.cut(); err != nil {
			return err
		}
	}
	whole := lo == 0 && hi == len(g.BlockKeys)
	cur := w.s.newCursor(g, false)
	defer cur.close()
	var cells uint64
	var first []byte
	for i := lo; i < hi; i++ {
		if err := w.writeErr(); err != nil {
			w.err = err
			return err
		}
		var data []byte
		err := cur.view(i, engine.ViewFunc(func(v []byte) error {
			data = append([]byte(nil), v...)
			return nil
		}))
		if err == nil {
			var sk *blockenc.Seeker
			if sk, err = cache.NewSeeker(data, g.DictFor(i)); err == nil {
				if !whole {
					cells, first, err = countBlock(data, sk, cells, first, i == lo)
				}
				cache.Recycle(sk)
			}
			if err != nil {
				err = g.BlockErr(i, err)
			}
		}
		if err != nil {
			w.err = fmt.Errorf("kv: segment %d: copy: %w", w.meta.ID, err)
			return w.err
		}
		p := &pendingBlock{dict: g.DictFor(i), lastKey: g.LastKeys[i], blk: data, ready: closedChan}
		w.order <- p
	}
	if whole {
		first, cells = g.Meta.FirstKey, g.Meta.Cells
		w.meta.Tombstones += g.Meta.Tombstones
		w.meta.Keys += g.Meta.Keys
	} else {
		w.meta.Keys += cells // one version per key
	}
	if w.meta.Cells == 0 {
		w.meta.FirstKey = append([]byte(nil), first...)
	}
	w.lastKey = append(w.lastKey[:0], g.LastKeys[hi-1]...)
	w.meta.Cells += cells
	w.meta.MinSeq = min(w.meta.MinSeq, g.Meta.MinSeq)
	w.meta.MaxSeq = max(w.meta.MaxSeq, g.Meta.MaxSeq)
	return nil
}

// countBlock adds the cells of block data (whose Seeker is sk) to cells
// and, with isFirst, returns its first key as first.
func countBlock(data []byte, sk *blockenc.Seeker, cells uint64, first []byte, isFirst bool) (uint64, []byte, error) {
	h, err := blockenc.ReadHeader(data)
	if err != nil {
		return cells, first, err
	}
	if isFirst {
		if !sk.First() {
			if err := sk.Err(); err != nil {
				return cells, first, err
			}
			return cells, first, fmt.Errorf("%w: an empty block", ErrCorrupt)
		}
		first = append([]byte(nil), sk.Key()...)
	}
	return cells + uint64(h.Cells), first, nil
}

// sameDict reports whether a and b (either may be nil) are one dictionary.
func sameDict(a, b *blockenc.Dict) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.ID() == b.ID() && bytes.Equal(a.Bytes(), b.Bytes())
}

// closedChan is a closed channel: a pendingBlock's ready when it needs no
// compression.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (w *segWriter) writeBlock(b *pendingBlock) error {
	blk, err := b.blk, b.err
	if err != nil {
		return fmt.Errorf("kv: segment %d: %w", w.meta.ID, err)
	}
	key := w.s.keys.Block(w.meta.ID, b.lastKey)
	if w.batch.Size() >= segBatchBytes {
		if err := w.writeBatch(); err != nil {
			return err
		}
	}
	w.batch.SetLarge(key, blk)
	w.written = append(w.written, key)
	if n := len(w.seg.Parts); n == 0 || !sameDict(w.seg.Parts[n-1].Dict, b.dict) {
		// A new part: its dictionary goes under a key of its own, with
		// the part's first blocks.
		var raw []byte
		if b.dict != nil {
			raw = b.dict.Bytes()
			dk := w.s.keys.Dict(w.meta.ID, uint32(len(w.meta.Parts)))
			w.batch.SetLarge(dk, raw)
			w.written = append(w.written, dk)
		}
		w.meta.Parts = append(w.meta.Parts, segment.NewPart(0, raw))
		w.seg.Parts = append(w.seg.Parts, segment.DictPart{First: len(w.seg.BlockKeys), Dict: b.dict})
	}
	w.meta.Parts[len(w.meta.Parts)-1].Blocks++
	w.seg.BlockKeys = append(w.seg.BlockKeys, key)
	w.seg.LastKeys = append(w.seg.LastKeys, key[len(key)-len(b.lastKey):])
	w.meta.Blocks++
	w.meta.Bytes += uint64(len(blk))
	return nil
}

// finish writes the last block, commits the blocks, then writes the meta,
// marking the metas of the segments it replaces in the same transaction.
//
// A replaced meta is set to segment.Replaced (a dead marker), not deleted:
// Badger's value-log GC can give a deleted key its old value back (it
// rewrites a value found at its own version, below the tombstone, and a
// later compaction drops the tombstone with the version beneath it), and
// a replaced meta back is a segment whose blocks are gone or whose cells
// were merged. The marker is the key's newest version, which no
// compaction drops, so an old version written back stays hidden beneath
// it; dropGarbage removes every version at once (DropPrefix).
func (w *segWriter) finish(walSeq uint64, replaces []*segment.Segment) (*segment.Segment, error) {
	if w.err != nil {
		w.abort()
		return nil, w.err
	}
	if w.enc.Len() > 0 {
		if err := w.cut(); err != nil {
			w.abort()
			return nil, err
		}
	}
	if err := w.stop(); err != nil {
		w.abort()
		return nil, err
	}
	if err := w.writeBatch(); err != nil {
		w.abort()
		return nil, err
	}
	if w.meta.Cells == 0 && len(w.meta.Dels) == 0 {
		// Empty: a compaction's output keeps the seqs of the segments it
		// replaces, so that Open can tell them superseded should the
		// engine show their metas again (see supersede).
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
	b.Set(w.s.keys.Meta(w.meta.ID), meta)
	for _, g := range replaces {
		b.Set(w.s.keys.Meta(g.Meta.ID), segment.Replaced)
	}
	if err := w.s.engWrite(&b); err != nil {
		w.abort()
		if errors.Is(err, engine.ErrTooLarge) {
			err = fmt.Errorf("%w: meta of %d bytes (%d range tombstones): %w", ErrTooLarge, len(meta), len(w.meta.Dels), err)
		}
		return nil, fmt.Errorf("kv: segment %d meta: %w", w.meta.ID, err)
	}
	w.seg.Meta = w.meta
	w.seg.Dels = rangedel.New(w.meta.Dels)
	return w.seg, nil
}

// addRangeDels gives the segment the range tombstones dels (sorted by
// rangedel.Sort), to be written in its meta.
func (w *segWriter) addRangeDels(dels []rangedel.Tombstone) {
	w.meta.Dels = dels
	for _, d := range dels {
		w.meta.MinSeq = min(w.meta.MinSeq, d.Seq)
		w.meta.MaxSeq = max(w.meta.MaxSeq, d.Seq)
	}
}

// writeBatch writes the blocks in w's batch, in as many writes as the
// engine needs (they need not be atomic: the meta comes last).
func (w *segWriter) writeBatch() error {
	if w.batch.Len() == 0 {
		return nil
	}
	err := w.s.writeSplit(&w.batch)
	w.batch.Reset()
	if errors.Is(err, engine.ErrTooLarge) {
		err = fmt.Errorf("%w: %w", ErrTooLarge, err)
	}
	if err != nil {
		return fmt.Errorf("kv: segment %d blocks: %w", w.meta.ID, err)
	}
	return nil
}

// abort discards what was written; what it cannot delete has no meta and
// is removed at the next Open.
func (w *segWriter) abort() {
	_ = w.stop()
	w.batch.Reset()
	_ = w.s.deleteKeys(w.written)
}

// engWrite is eng.Write, failing first when the engine is closed.
func (s *Store) engWrite(b *engine.Batch) error {
	if err := s.dbClosed(); err != nil {
		return err
	}
	return space.Classify(s.eng.Write(b))
}

// writeSplit is engine.WriteSplit, failing first when the engine is
// closed.
func (s *Store) writeSplit(b *engine.Batch) error {
	if err := s.dbClosed(); err != nil {
		return err
	}
	return space.Classify(engine.WriteSplit(s.eng, b))
}

// deleteKeys deletes keys in as many writes as it takes.
func (s *Store) deleteKeys(keys [][]byte) error {
	if len(keys) == 0 {
		return nil
	}
	var b engine.Batch
	for _, k := range keys {
		b.Delete(k)
	}
	if err := s.writeSplit(&b); err != nil {
		return fmt.Errorf("kv: delete %d keys: %w", len(keys), err)
	}
	return nil
}

// deleteSegmentBlocks removes the blocks and dictionaries of a segment
// whose meta is gone: every key under its id (those of the segments it
// extended too).
func (s *Store) deleteSegmentBlocks(g *segment.Segment) error {
	s.cache.DropSegment(g.Meta.ID)
	if err := s.dbClosed(); err != nil {
		return err
	}
	if err := s.eng.DeleteRange(s.keys.Segment(g.Meta.ID), s.keys.Segment(g.Meta.ID+1)); err != nil {
		return fmt.Errorf("kv: delete segment %d: %w", g.Meta.ID, err)
	}
	if err := s.eng.DeleteRange(s.keys.DictSegment(g.Meta.ID), s.keys.DictSegment(g.Meta.ID+1)); err != nil {
		return fmt.Errorf("kv: delete segment %d dictionaries: %w", g.Meta.ID, err)
	}
	return nil
}
