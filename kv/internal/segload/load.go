// Package segload finds a Store's segments in its engine (package
// kv/engine), as Open and a ReadOnly Store's Refresh need them: it reads
// every segment meta (package kv/internal/segment), then the
// dictionaries of their parts, then every block key, and returns the
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
			g, last := metas[id], k[len(segPrefix)+8:]
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
		if uint64(len(g.BlockKeys)) != g.Meta.Blocks {
			return l, fmt.Errorf("%w: segment %d has %d blocks, its meta says %d", blockenc.ErrCorrupt, g.Meta.ID, len(g.BlockKeys), g.Meta.Blocks)
		}
		l.Segs = append(l.Segs, g)
	}
	segment.Sort(l.Segs)
	return l, nil
}

// loadDicts gives the parts of the segments in metas their dictionaries,
// each stored under a key of its own (meta version 5); a dictionary of no
// segment in metas, or of a part its meta does not have (an extension cut
// short), is an orphan.
func loadDicts(keys layout.Keys, scan Scan, metas map[uint64]*segment.Segment, l *Found, foreign func(k []byte)) error {
	return scan(keys.Tag(layout.TagDict), func(it engine.Iter) error {
		k := it.Key()
		if !keys.Own(k) {
			foreign(k)
			return nil
		}
		id, part := keys.ParseDict(k)
		l.MaxID = max(l.MaxID, id)
		g := metas[id]
		if g == nil || int64(part) >= int64(len(g.Meta.Parts)) || !g.Meta.Parts[part].NeedsDict() {
			l.Orphans = append(l.Orphans, bytes.Clone(k))
			return nil
		}
		return it.Value(engine.ViewFunc(func(v []byte) error {
			if err := g.Meta.Parts[part].SetDict(bytes.Clone(v)); err != nil {
				return fmt.Errorf("segment %d part %d: %w", id, part, err)
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
