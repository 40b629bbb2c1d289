package kv

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/gcfilter"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segwrite"
	"github.com/kvenc/kvenc/kv/internal/space"
	"github.com/kvenc/kvenc/kv/internal/wal"
)

// Flush writes every memstore to a segment: the active one is frozen, then
// every frozen one is encoded into blocks, oldest first.
func (s *Store) Flush() error {
	s.userOps.RLock()
	defer s.userOps.RUnlock()
	if s.closed.Load() {
		return s.errClosed()
	}
	if s.opts.ReadOnly {
		return s.errReadOnly("Flush")
	}
	return s.flushAll()
}

// Sync makes every write acknowledged before it survive a power loss:
// it writes the WAL records still queued (Options.WALBuffered), fsyncs
// the WAL files of the memstores and their directory, then the engine
// (Badger's DB.Sync, for the segments flushed and WAL records kept in
// it). With SyncWrites every write is durable when it returns already.
// It returns the error of a failed WAL write, which has stopped the
// Store's writes.
func (s *Store) Sync() error {
	s.userOps.RLock()
	defer s.userOps.RUnlock()
	if s.closed.Load() {
		return s.errClosed()
	}
	if s.opts.ReadOnly {
		return s.errReadOnly("Sync")
	}
	if s.wal != nil {
		s.mu.RLock()
		mts := append([]*memtable{s.active}, s.frozen...)
		s.mu.RUnlock()
		for _, mt := range mts {
			if err := s.wal.SyncFile(&mt.wal); err != nil {
				return fmt.Errorf("kv: store %q: sync: %w", s.opts.Prefix, err)
			}
		}
	}
	if sy, ok := s.eng.(engine.Syncer); ok {
		if err := sy.Sync(); err != nil {
			return fmt.Errorf("kv: store %q: sync: %w", s.opts.Prefix, space.Classify(err))
		}
	}
	return nil
}

// errReadOnly is the error of a write (op) on a ReadOnly Store.
func (s *Store) errReadOnly(op string) error {
	return fmt.Errorf("%w: %s on the Store with Prefix %q", ErrReadOnly, op, s.opts.Prefix)
}

func (s *Store) flushAll() error {
	s.writeMu.RLock()
	mt := s.active
	s.writeMu.RUnlock()
	s.freeze(mt)
	return s.flushFrozen()
}

// flushFrozen flushes the frozen memtables, oldest first, one at a time, so
// a segment's walSeq covers every seq at or below it.
func (s *Store) flushFrozen() error {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	for {
		s.mu.RLock()
		var mt *memtable
		if n := len(s.frozen); n > 0 {
			mt = s.frozen[n-1]
		}
		s.mu.RUnlock()
		if mt == nil {
			return nil
		}
		if err := s.flushMemtable(mt); err != nil {
			return err
		}
	}
}

func (s *Store) flushMemtable(mt *memtable) error {
	if err := s.failed(); err != nil {
		return err
	}
	release, err := s.space.Hold("flush", flushNeed(mt), space.Reclaim)
	if err != nil {
		return fmt.Errorf("kv: flush: %w", err)
	}
	defer release()
	rp, points := s.gcPoints()
	block, lo, final := s.flushBlock(mt)
	var ext *segment.Segment // the segment the flush extends, if any
	if final && !s.compacting.Load() {
		// compactMu keeps compactions off the segment extended. It is
		// held only briefly unless a compaction runs, and a flush does not
		// wait for one to extend a segment (it may have taken that one).
		s.compactMu.Lock()
		defer s.compactMu.Unlock()
		ext = s.extendable(lo, s.opts.blockSettings(block))
	}
	var w *segwrite.Writer
	switch d := s.flushDict; {
	case ext != nil:
		if d == nil {
			d = ext.Parts[len(ext.Parts)-1].Dict
		}
		w = s.sw.ExtendWriter(ext, block, d)
	case final && d != nil:
		w = s.sw.NewWriterDict(block, d)
	default:
		w = s.sw.NewWriter(block, s.memtableDict(mt))
	}
	if s.oldest(ext) {
		w.SkipFilter()
	}
	f := gcfilter.Filter{RP: rp, Points: points, Emit: w.Add, Dels: mt.dels.Load()}
	it := mt.ms.NewIterator(math.MaxUint64, true)
	for it.First(); it.Valid(); it.Next() {
		if err := f.Add(it.Cell()); err != nil {
			w.Abort()
			return err
		}
	}
	f.Finish()
	w.AddRangeDels(f.RangeDels())
	g, err := w.Finish(mt.hi, nil)
	if err != nil {
		return err
	}
	if final {
		s.flushDict = nil
		if d := w.Dict(); d != nil && len(d.Bytes()) == s.opts.DictSize {
			s.flushDict = d
		}
	}
	s.mu.Lock()
	for i, x := range s.frozen {
		if x == mt {
			// A new array: s.frozen[:0:0] would keep the old one, and
			// with it the flushed memstore's arena, alive.
			s.frozen = append(append(make([]*memtable, 0, len(s.frozen)-1), s.frozen[:i]...), s.frozen[i+1:]...)
			s.frozenGone()
			break
		}
	}
	if ext != nil {
		// ext's blocks are g's: it leaves the set, not obsolete.
		s.segs = slices.DeleteFunc(s.segs, func(x *segment.Segment) bool { return x == ext })
	}
	s.segs = append(s.segs, g)
	segment.Sort(s.segs)
	s.segsChanged()
	s.mu.Unlock()
	s.flushes.Add(1)
	// Errors here are harmless: Open skips and deletes records at or
	// below walSeq.
	if s.wal != nil {
		if err := s.wal.Flushed(&mt.wal, mt.hi); err != nil {
			return err
		}
	}
	if s.walInEngine {
		if err := s.deleteWAL(mt.lo, mt.hi); err != nil {
			return err
		}
	}
	s.kickBackground()
	return nil
}

// flushBlock returns the block options of mt's flush and its first key:
// Block's, or with final set the compaction's, when no segment holds keys
// in the range of mt's, so that a compaction will likely copy its blocks
// rather than make them again (a load in key order writes each block
// once).
func (s *Store) flushBlock(mt *memtable) (block blockenc.Options, lo []byte, final bool) {
	if mt.dels.Load() != nil {
		return s.opts.Block, nil, false
	}
	it := mt.ms.NewIterator(math.MaxUint64, true)
	if it.First(); !it.Valid() {
		return s.opts.Block, nil, false
	}
	lo = clone(it.Cell().Key)
	if it.Last(); !it.Valid() {
		return s.opts.Block, nil, false
	}
	hi := it.Cell().Key
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, g := range s.segs {
		if g.Overlaps(lo, hi) {
			return s.opts.Block, nil, false
		}
	}
	return s.opts.compactionBlock(), lo, true
}

// oldest reports whether a flush into g (nil: a segment of its own) writes
// the oldest segment, whose key filter a Get would consult only for keys
// no segment holds: the oldest segment is the last a Get looks in, so it
// gets no filter (RocksDB's optimize_filters_for_hits). It stays the
// oldest: every later segment is newer, and a compaction of it writes the
// oldest again (compactRun).
func (s *Store) oldest(g *segment.Segment) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	n := len(s.segs)
	return n == 0 || g != nil && s.segs[n-1] == g
}

// extendable returns the segment that a final flush (flushBlock) of cells
// from key lo on, encoded with settings, appends its blocks to rather than
// starting a segment of its own: the newest segment, when it is final
// (see segwrite.Final) with those settings and its keys all sort before lo. A load
// in key order so makes one segment, which no compaction copies before
// the load ends. The caller holds flushMu and compactMu.
func (s *Store) extendable(lo, settings []byte) *segment.Segment {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.segs) == 0 {
		return nil
	}
	g := s.segs[0]
	if !segwrite.Final(g, settings) || bytes.Compare(g.Meta.LastKey, lo) >= 0 {
		return nil
	}
	return g
}

// deleteWAL deletes the WAL records with seqs in (lo, hi] from the
// engine. It stops at a key in the WAL's range that is not a WAL record's
// (a foreign Key: never deleted).
func (s *Store) deleteWAL(lo, hi uint64) error {
	del, err := wal.EngineKeys(s.keys, s.scanRange, lo, hi)
	if err != nil {
		return fmt.Errorf("kv: WAL cleanup: %w", err)
	}
	return s.sw.DeleteKeys(del)
}

// kickBackground wakes the background goroutine (flush, compaction,
// deletion of compacted segments).
func (s *Store) kickBackground() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *Store) background() {
	defer close(s.bgDone)
	for {
		select {
		case <-s.quit:
			return
		case <-s.kick:
		}
		err := s.flushFrozen()
		if err == nil && s.opts.CompactionTrigger > 0 {
			s.mu.RLock()
			n := len(s.segs)
			s.mu.RUnlock()
			if n >= s.opts.CompactionTrigger {
				err = skipNoSpace(s.compact(false))
			}
		}
		if err == nil {
			err = s.reap()
		}
		if err == nil && s.reclaim != nil && !s.reclaim.Shared() && s.garbageDue(false) {
			// Blocks only: the WAL needs the memstore flushed first.
			err = skipNoSpace(s.dropGarbage(false, gcBackground))
		}
		if fatalIO(err) {
			s.ioErr.CompareAndSwap(nil, &err)
		}
		// The outcome of the last background run: an error that a later
		// run got past (a flush retried after snapshots closed) clears.
		s.errMu.Lock()
		s.bgErr = err
		s.errMu.Unlock()
	}
}

// reap deletes the blocks of compacted-away segments no iterator holds.
func (s *Store) reap() error {
	// compactMu: dropGarbage must not run while reap writes.
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.Lock()
	var dead []*segment.Segment
	keep := s.obsolete[:0]
	for _, g := range s.obsolete {
		if g.Refs.Load() == 0 {
			dead = append(dead, g)
		} else {
			keep = append(keep, g)
		}
	}
	s.obsolete = keep
	s.mu.Unlock()
	for _, g := range dead {
		if err := s.sw.DeleteSegment(g); err != nil {
			return err
		}
		s.mu.Lock()
		s.deadSegs = append(s.deadSegs, g.Meta.ID)
		s.mu.Unlock()
		s.garbage.Add(int64(g.Meta.Bytes))
	}
	return nil
}

// valueLogGC reclaims the value log space of deleted blocks and WAL records
// (Open's own on-disk DB only: engine.Reclaimer.CollectGarbage). It runs
// only while the Store writes nothing (at Open and Close, and in
// dropGarbage with the writes held): Badger v4.9.6's RunValueLogGC reads
// the memtable without a lock, a data race with concurrent writes. It
// rewrites or deletes at most p.files value log files, each at least
// p.ratio discarded.
func (s *Store) valueLogGC(p gcPass) {
	if s.reclaim == nil {
		return
	}
	// Each file GC rewrites takes up to its live bytes before the file
	// goes: one file at a time, each admitted first; without room GC
	// waits for a later pass.
	for i := 0; i < p.files; i++ {
		release, err := s.space.Hold("value-log GC", s.gcNeed(p.ratio), space.Reclaim)
		if err != nil {
			return
		}
		s.reclaim.CollectGarbage(1, p.ratio)
		release()
	}
}

// gcPass is how much value-log GC does in one go: up to files files, each
// at least ratio discarded (Badger rewrites its live values and deletes
// it).
type gcPass struct {
	files int
	ratio float64
}

// GC passes. At Open, Close, Compact and Reclaim as many files as it
// takes, a tenth discarded or more: a compaction's output shares its
// first value log file with the blocks and WAL records it replaced, which
// can be a small part of that file (on 600,000 lineitem rows, 8 of 21 MB
// once: a 0.5 ratio left them, a third of the store, on disk; and 2.5 MB
// once, which a 0.25 ratio left, a tenth of the store). In the
// background, with the Store's writes held, two files per pass, half
// discarded or more, so that continuous writes do not keep rewriting
// live blocks.
var (
	gcExplicit   = gcPass{files: 16, ratio: 0.1}
	gcBackground = gcPass{files: 2, ratio: 0.5}
)

// Close flushes the memstore, stops the background work and, for Open,
// closes the Badger DB. Iterators and Snapshots should be closed first; an
// Iterator left open keeps its segments' blocks until the next Open.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return s.errClosed()
	}
	defer s.release()
	s.writeMu.Lock() // wait for writes in flight
	s.writeMu.Unlock()
	s.userOps.Lock() // and for Flush and Compact calls
	s.userOps.Unlock()
	close(s.quit)
	<-s.bgDone
	s.rd.Shut() // ends the block reads of open Iterators
	err := s.flushAll()
	if err == nil {
		err = s.reap()
	}
	if err == nil {
		s.valueLogGC(gcExplicit)
	}
	s.mu.Lock() // wait for reads in flight
	s.mu.Unlock()
	if s.wal != nil {
		s.wal.CloseAll()
	}
	if err == nil {
		// A background flush that found no space is done now.
		s.errMu.Lock()
		err = skipNoSpace(s.bgErr)
		s.errMu.Unlock()
	}
	if cerr := s.eng.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("kv: %w", cerr)
	}
	return err
}
