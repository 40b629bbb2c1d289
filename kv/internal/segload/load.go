// Package segload finds a Store's segments in its engine (package
// kv/engine), as Open and a ReadOnly Store's Refresh need them: it reads
// every segment meta (package kv/internal/segment), then the
// dictionaries of their parts and the key filters of their runs, then
// every block key, and returns the
// segments whose metas are live with their block index and
// dictionaries, newest first.
//
// What has no live meta is an orphan, to be deleted by a Store that
// writes: a block or dictionary of a segment whose meta was never
// written (a flush or compaction cut short), a block past its meta's last
// key or a dictionary of a part its meta does not have (an extension cut
// short), and a meta that a compaction replaced but that the engine shows
// again (its seqs lie within those of a segment with a higher id). A meta
// set to segment.Replaced names a segment compacted away (Found.Dead);
// its blocks left are orphans.
//
// A meta that does not decode, that names another id than its key's, or
// whose block count differs from the blocks found fails the load with an
// error wrapping blockenc.ErrCorrupt.
package segload

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Found is what Load found in the engine.
type Found struct {
	Segs []*segment.Segment // newest first
	// MaxID is the largest segment id seen, WALSeq the largest WAL seq a
	// segment holds, Last the largest seq of any segment.
	MaxID, WALSeq, Last uint64
	// Orphans are the keys of blocks, dictionaries and metas that belong
	// to no live segment.
	Orphans [][]byte
	// Dead are the ids of compacted-away segments (segment.Replaced
	// metas).
	Dead []uint64
}

// Scan calls f on an iterator at each key that starts with prefix, in
// order, until f fails.
type Scan func(prefix []byte, f func(it engine.Iter) error) error

// Load reads every segment meta, dictionary and block key of the Store
// whose keys are laid out by keys, through scan, calling foreign on each
// key under their tags not in the Store's format.
func Load(keys layout.Keys, scan Scan, foreign func(k []byte)) (Found, error) {
	var l Found
	metas := map[uint64]*segment.Segment{}
	err := scan(keys.Tag(layout.TagMeta), func(it engine.Iter) error {
		k := it.Key()
		if !keys.Own(k) {
			foreign(k)
			return nil
		}
		id := binary.BigEndian.Uint64(k[len(k)-8:])
		l.MaxID = max(l.MaxID, id)
		var m segment.Meta
		dead := false
		err := it.Value(engine.ViewFunc(func(v []byte) (err error) {
			if dead = segment.IsReplaced(v); dead {
				return nil
			}
			m, err = segment.DecodeMeta(v)
			return err
		}))
		if err != nil {
			return fmt.Errorf("segment %d: %w", id, err)
		}
		if dead {
			// Compacted away (see segwrite.Writer.Finish): its blocks
			// left are orphans, its marker goes when the Store reclaims
			// space.
			l.Dead = append(l.Dead, id)
			return nil
		}
		if m.ID != id {
			return fmt.Errorf("%w: meta under id %d says id %d", blockenc.ErrCorrupt, id, m.ID)
		}
		metas[id] = segment.New(m)
		l.WALSeq = max(l.WALSeq, m.WALSeq)
		l.Last = max(l.Last, m.MaxSeq, m.WALSeq)
		return nil
	})
	if err == nil {
		for _, id := range superseded(metas) {
			delete(metas, id)
			l.Orphans = append(l.Orphans, keys.Meta(id))
		}
		err = loadDicts(keys, scan, metas, &l, foreign)
	}
	if err == nil {
		segPrefix := keys.Tag(layout.TagSegment)
		err = scan(segPrefix, func(it engine.Iter) error {
			k := bytes.Clone(it.Key())
			if !keys.Own(k) {
				foreign(k)
				return nil
			}
			id := binary.BigEndian.Uint64(k[len(segPrefix):])
			l.MaxID = max(l.MaxID, id)
			// A block without a meta, or past its meta's last key, is
			// one of a segment or an extension
			// (segwrite.Store.ExtendWriter) whose meta was never written.
			g, last := metas[id], keys.BlockLastKey(k)
			if g == nil || bytes.Compare(last, g.Meta.LastKey) > 0 {
				l.Orphans = append(l.Orphans, k)
				return nil
			}
			g.BlockKeys = append(g.BlockKeys, k)
			g.LastKeys = append(g.LastKeys, last)
			return nil
		})
	}
	if err != nil {
		return l, err
	}
	for _, g := range metas {
		if err := g.SetParts(); err != nil {
			return l, err
		}
		if err := g.SetFilters(); err != nil {
			return l, err
		}
		if uint64(len(g.BlockKeys)) != g.Meta.Blocks {
			return l, fmt.Errorf("%w: segment %d has %d blocks, its meta says %d", blockenc.ErrCorrupt, g.Meta.ID, len(g.BlockKeys), g.Meta.Blocks)
		}
		l.Segs = append(l.Segs, g)
	}
	segment.Sort(l.Segs)
	return l, nil
}

// loadDicts gives the parts of the segments in metas their dictionaries
// and their filter runs their key filters, each stored under a key of its
// own (meta versions 5 and 6); one of no segment in metas, or of a part or
// run its meta does not have (an extension cut short), is an orphan.
func loadDicts(keys layout.Keys, scan Scan, metas map[uint64]*segment.Segment, l *Found, foreign func(k []byte)) error {
	err := loadRuns(keys, layout.TagDict, scan, metas, l, foreign, "part",
		func(m *segment.Meta, n uint32) bool { return int64(n) < int64(len(m.Parts)) && m.Parts[n].NeedsDict() },
		func(m *segment.Meta, n uint32, v []byte) error { return m.Parts[n].SetDict(v) })
	if err != nil {
		return err
	}
	return loadRuns(keys, layout.TagFilter, scan, metas, l, foreign, "key filter",
		func(m *segment.Meta, n uint32) bool {
			return int64(n) < int64(len(m.Filters)) && m.Filters[n].NeedsFilter()
		},
		func(m *segment.Meta, n uint32, v []byte) error { return m.Filters[n].SetFilter(v) })
}

// loadRuns reads the keys under tag (layout.Keys.ParseRun): each that
// needs says its meta waits for is given to it by set, the others are
// orphans.
func loadRuns(keys layout.Keys, tag byte, scan Scan, metas map[uint64]*segment.Segment, l *Found, foreign func(k []byte), what string,
	needs func(m *segment.Meta, n uint32) bool, set func(m *segment.Meta, n uint32, v []byte) error) error {
	return scan(keys.Tag(tag), func(it engine.Iter) error {
		k := it.Key()
		if !keys.Own(k) {
			foreign(k)
			return nil
		}
		id, n := keys.ParseRun(k)
		l.MaxID = max(l.MaxID, id)
		g := metas[id]
		if g == nil || !needs(&g.Meta, n) {
			l.Orphans = append(l.Orphans, bytes.Clone(k))
			return nil
		}
		return it.Value(engine.ViewFunc(func(v []byte) error {
			if err := set(&g.Meta, n, bytes.Clone(v)); err != nil {
				return fmt.Errorf("segment %d %s %d: %w", id, what, n, err)
			}
			return nil
		}))
	})
}

// superseded returns the ids of the metas in metas that a compaction
// replaced: those whose seqs lie within the seqs of a segment with a
// higher id (live segments hold disjoint seq ranges, and a compaction's
// output, newer than its inputs, covers theirs). A compaction sets them
// to segment.Replaced in the transaction that writes its output's meta
// (see segwrite.Writer.Finish); a store written before it did deleted
// them, which Badger v4.9.6 can undo. Their blocks are then orphans,
// deleted with them.
func superseded(metas map[uint64]*segment.Segment) []uint64 {
	var ids []uint64
	for id, g := range metas {
		if g.Meta.MaxSeq == 0 {
			continue // empty, from a version that kept no seqs for it
		}
		for _, h := range metas {
			if h.Meta.ID > id && h.Meta.MinSeq <= g.Meta.MinSeq && g.Meta.MaxSeq <= h.Meta.MaxSeq {
				ids = append(ids, id)
				break
			}
		}
	}
	return ids
}
