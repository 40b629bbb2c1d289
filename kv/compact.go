package kv

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/gcfilter"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/merge"
	"github.com/kvenc/kvenc/kv/internal/pick"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segwrite"
	"github.com/kvenc/kvenc/kv/internal/space"
)

// Compact merges every segment into one (after flushing the memstores),
// dropping the versions no reader can see and the tombstones with nothing
// older beneath them.
func (s *Store) Compact() error {
	s.userOps.RLock()
	defer s.userOps.RUnlock()
	if s.closed.Load() {
		return s.errClosed()
	}
	if s.opts.ReadOnly {
		return s.errReadOnly("Compact")
	}
	if err := s.flushAll(); err != nil {
		return err
	}
	if err := s.compact(true); err != nil {
		return err
	}
	if err := s.reap(); err != nil {
		return err
	}
	if s.reclaim != nil && !s.reclaim.Shared() && s.garbageDue(true) {
		return s.dropGarbage(true, gcExplicit)
	}
	return nil
}

// garbageDue reports whether enough deleted bytes (compacted segments and,
// with wal, WAL records) piled up since the last dropGarbage to pay for
// it: at least 1 MiB and a quarter of the live segment bytes (tests lower
// it: dropAlways).
func (s *Store) garbageDue(wal bool) bool {
	if s.dropAlways {
		return true
	}
	var live int64
	s.mu.RLock()
	for _, g := range s.segs {
		live += int64(g.Meta.Bytes)
	}
	s.mu.RUnlock()
	n := s.garbage.Load()
	if wal {
		n += s.walGarbage.Load()
	}
	// On a volume running out of space the garbage is worth reclaiming
	// sooner: when it is more than the room left for writes.
	return n >= 1<<20 && (n >= live/4 || n >= s.space.Room(space.Write))
}

// dropGarbage makes Badger reclaim the space of deleted blocks (and, with
// wal, of deleted WAL records) now rather than at some later LSM
// compaction: Badger drops a deleted key only when its table is rewritten
// into the last level, and Flatten merely moves a lone table. DropPrefix
// rewrites the tables that hold the prefixes and counts the value-log
// bytes they pointed to as discarded, and value-log GC then rewrites or
// deletes the files mostly discarded. DropPrefix fails concurrent writes
// (ErrBlockedWrites), so it runs on Open's own DB (and on Reclaim's
// request), with kv's writers, flushes and compactions held; with wal the
// memstore is flushed first, so no WAL record is needed. GC then makes
// the pass gc.
func (s *Store) dropGarbage(wal bool, gc gcPass) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if wal && !s.active.empty() {
		s.freezeActive()
	}
	if err := s.flushFrozen(); err != nil {
		return err
	}
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.Lock()
	// prefixes and a marker key under each (below).
	var prefixes, markers [][]byte
	if wal && s.walInEngine {
		prefixes = append(prefixes, s.keys.Tag(layout.TagWAL))
		markers = append(markers, s.keys.WAL(0, 0))
	}
	for _, id := range s.deadSegs {
		prefixes = append(prefixes, s.keys.Segment(id), s.keys.DictSegment(id), s.keys.FilterSegment(id), s.keys.Meta(id))
		markers = append(markers, s.keys.Segment(id), s.keys.Dict(id, 0), s.keys.Filter(id, 0), s.keys.Meta(id))
	}
	s.deadSegs = nil
	s.mu.Unlock()
	if len(prefixes) == 0 {
		return nil
	}
	// DropPrefix skips a prefix under which no live key exists, which is
	// the case for deleted keys: a marker key under each prefix makes it
	// drop them (a dead segment's meta is one already: segment.Replaced). The
	// markers are dropped with them (a crash in between leaves a WAL
	// record of seq 0, and a block and a dictionary without meta, which
	// Open removes, and replaced metas, which the next dropGarbage drops).
	var b engine.Batch
	for _, k := range markers {
		b.Set(k, nil)
	}
	if err := s.sw.Write(&b); err != nil {
		return fmt.Errorf("kv: drop markers: %w", err)
	}
	s.garbage.Store(0)
	if wal {
		s.walGarbage.Store(0)
	}
	if err := s.reclaim.DropPrefixes(prefixes...); err != nil {
		return fmt.Errorf("kv: %w", err)
	}
	s.valueLogGC(gc)
	return nil
}

// compact merges one tier (or, with all, every segment) into a new
// segment. The new meta and the deletion of the old metas are one Badger
// transaction; the old blocks are deleted once no iterator holds them.
func (s *Store) compact(all bool) error {
	s.compactMu.Lock()
	defer s.compactMu.Unlock()
	s.mu.RLock()
	segs := append([]*segment.Segment(nil), s.segs...)
	s.mu.RUnlock()
	var in []*segment.Segment
	if all {
		// One segment that a compaction would copy as it is (one
		// version per key, no tombstone, the compaction's settings) is
		// already what Compact makes: a load in key order ends so.
		if len(segs) == 0 || len(segs) == 1 && segwrite.Final(segs[0], s.opts.blockSettings(s.opts.compactionBlock())) {
			return nil
		}
		in = segs
	} else if in = s.fitTier(pick.Tier(segs, s.opts.blockSettings(s.opts.compactionBlock()))); in == nil {
		return nil
	}
	return s.compactRun(in, in[len(in)-1] == segs[len(segs)-1])
}

// compactRun merges in, a run of adjacent segments, into one. Tombstones
// (point and range) can go when every segment outside the input is newer
// (dropTombstones): segments are sorted newest first and the input is a
// run, so when it ends with the oldest segment. The blocks of an input that
// the merge would leave as they are (pick.Split) are copied, not decoded and
// compressed again. The caller holds compactMu.
func (s *Store) compactRun(in []*segment.Segment, dropTombstones bool) error {
	var need int64
	for _, g := range in {
		need += int64(g.Meta.Bytes)
	}
	release, serr := s.space.Hold("compaction", need, space.Reclaim)
	if serr != nil {
		return fmt.Errorf("kv: compaction of %d segments: %w", len(in), serr)
	}
	defer release()
	s.compacting.Store(true)
	defer s.compacting.Store(false)
	settings := s.opts.blockSettings(s.opts.compactionBlock())
	copies, merged := pick.Split(in, settings)
	// The merged cells are compressed against the dictionary of the
	// input that holds most of them when its blocks could be copied (see
	// segwrite.Writer.CopyRuns), else against one sampled from the merged
	// inputs.
	var w *segwrite.Writer
	d := segwrite.RunsDict(merged, settings)
	if d != nil {
		w = s.sw.NewWriterDict(s.opts.compactionBlock(), d)
	} else {
		dict, err := s.compactionDict(merged)
		if err != nil {
			return err
		}
		w = s.sw.NewWriter(s.opts.compactionBlock(), dict)
	}
	if slices.ContainsFunc(in, s.oldest) {
		w.SkipFilter() // the output is the oldest segment (see oldest)
	}
	rp, points := s.gcPoints()
	// The merged cells go between the copied segments, which no other
	// input's keys or range tombstones reach into.
	copyBefore := func(key []byte) error {
		for len(copies) > 0 && bytes.Compare(copies[0].Meta.FirstKey, key) < 0 {
			if err := w.CopyBlocks(copies[0], 0, len(copies[0].BlockKeys)); err != nil {
				return err
			}
			copies = copies[1:]
		}
		return nil
	}
	emit := func(c blockenc.Cell) error {
		if err := copyBefore(c.Key); err != nil {
			return err
		}
		return w.Add(c)
	}
	var dels []*rangedel.Set
	for _, g := range merged {
		dels = append(dels, g.Dels)
	}
	f := gcfilter.Filter{RP: rp, Points: points, DropTombstones: dropTombstones, Emit: emit, Dels: rangedel.Union(dels...)}
	var walSeq uint64
	for _, g := range in {
		walSeq = max(walSeq, g.Meta.WALSeq)
	}
	srcs := make([]merge.Source, len(merged))
	for i, g := range merged {
		src := merge.Source(s.rd.NewVersions(g))
		if d != nil && segwrite.Final(g, settings) {
			src = w.CopyRuns(src, g, srcs, merged, copyBefore)
		}
		srcs[i] = src
	}
	err := merge.Versions(srcs, f.Add)
	for _, src := range srcs {
		src.Close()
	}
	f.Finish()
	for ; err == nil && len(copies) > 0; copies = copies[1:] {
		err = w.CopyBlocks(copies[0], 0, len(copies[0].BlockKeys))
	}
	if err != nil {
		w.Abort()
		return err
	}
	w.AddRangeDels(f.RangeDels())
	out, err := w.Finish(walSeq, in)
	if err != nil {
		return err
	}
	gone := make(map[*segment.Segment]bool, len(in))
	for _, g := range in {
		gone[g] = true
	}
	s.mu.Lock()
	keep := []*segment.Segment{out}
	for _, g := range s.segs {
		if gone[g] {
			g.Obsolete.Store(true)
			s.obsolete = append(s.obsolete, g)
		} else {
			keep = append(keep, g)
		}
	}
	segment.Sort(keep)
	s.segs = keep
	s.segsChanged()
	s.mu.Unlock()
	s.compactions.Add(1)
	return nil
}
