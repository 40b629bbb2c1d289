package inspect

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Segment is one segment: its meta (nil when none is stored, or when the
// value stored is the marker of a segment compacted away: its blocks are garbage of a
// flush or compaction cut short or of that compaction, which kv deletes),
// or the error decoding it, and its blocks' keys in order.
type Segment struct {
	ID        uint64
	Meta      *Meta
	MetaErr   error
	MetaBytes int
	// Blocks are the blocks up to the meta's last key; Extra the blocks
	// after it (an extension cut short, which Open deletes).
	Blocks, Extra []BlockRef
	dicts         []*blockenc.Dict
	filters       *segment.Segment // the meta's key filters, decoded
}

// BlockRef names one block: its engine key and its last key.
type BlockRef struct {
	Key  []byte
	Last []byte
}

// Segments reads every segment meta and every block key (no block), in
// segment id order.
func (s *Store) Segments() ([]*Segment, error) {
	byID := map[uint64]*Segment{}
	get := func(id uint64) *Segment {
		if byID[id] == nil {
			byID[id] = &Segment{ID: id}
		}
		return byID[id]
	}
	err := scan(s.eng, s.keys.Tag(layout.TagMeta), func(k, v []byte) error {
		id, ok := s.keys.meta(k)
		if !ok {
			return nil // not in the layout: kv counts it as a foreign key
		}
		if segment.IsReplaced(v) {
			return nil // compacted away
		}
		g := get(id)
		g.MetaBytes = len(v)
		m, err := decodeMeta(v)
		switch {
		case err != nil:
			g.MetaErr = fmt.Errorf("meta: %w", err)
		case m.ID != id:
			g.MetaErr = fmt.Errorf("%w: the meta of segment %d says segment %d", ErrCorrupt, id, m.ID)
		default:
			g.Meta = &m
		}
		return nil
	}, true)
	if err != nil {
		return nil, err
	}
	// The dictionaries of version 5 metas' parts, under keys of their
	// own, checked against the meta (segment.Part.SetDict).
	err = scan(s.eng, s.keys.Tag(layout.TagDict), func(k, v []byte) error {
		id, part, ok := s.keys.run(k, layout.TagDict)
		g := byID[id]
		if !ok || g == nil || g.Meta == nil || int64(part) >= int64(len(g.Meta.Parts)) {
			return nil // not in the layout, or garbage kv deletes
		}
		pt := &g.Meta.Parts[part]
		sp := segment.Part{Blocks: pt.Blocks, DictLen: pt.DictLen, DictID: pt.DictID}
		if !sp.NeedsDict() || pt.Dict != nil {
			return nil
		}
		if err := sp.SetDict(bytes.Clone(v)); err != nil {
			g.MetaErr = fmt.Errorf("part %d: %w", part, err)
			return nil
		}
		pt.Dict = sp.Dict
		return nil
	}, true)
	if err != nil {
		return nil, err
	}
	// The key filters of version 6 metas' runs, likewise.
	err = scan(s.eng, s.keys.Tag(layout.TagFilter), func(k, v []byte) error {
		id, run, ok := s.keys.run(k, layout.TagFilter)
		g := byID[id]
		if !ok || g == nil || g.Meta == nil || int64(run) >= int64(len(g.Meta.Filters)) {
			return nil // not in the layout, or garbage kv deletes
		}
		r := &g.Meta.Filters[run]
		sr := segment.FilterRun{Blocks: r.Blocks, Len: r.Len, ID: r.ID}
		if !sr.NeedsFilter() || r.Filter != nil {
			return nil
		}
		if err := sr.SetFilter(bytes.Clone(v)); err != nil {
			g.MetaErr = fmt.Errorf("key filter %d: %w", run, err)
			return nil
		}
		r.Filter = sr.Filter
		return nil
	}, true)
	if err != nil {
		return nil, err
	}
	err = scan(s.eng, s.keys.Tag(layout.TagSegment), func(k, _ []byte) error {
		id, last, ok := s.keys.block(k)
		if !ok {
			return nil
		}
		g := get(id)
		ref := BlockRef{Key: bytes.Clone(k)}
		ref.Last = ref.Key[len(k)-len(last):]
		if g.Meta != nil && bytes.Compare(ref.Last, g.Meta.LastKey) > 0 {
			g.Extra = append(g.Extra, ref)
		} else {
			g.Blocks = append(g.Blocks, ref)
		}
		return nil
	}, false)
	if err != nil {
		return nil, err
	}
	out := make([]*Segment, 0, len(byID))
	for _, g := range byID {
		if g.Meta != nil {
			g.dicts = make([]*blockenc.Dict, len(g.Meta.Parts))
			for i, pt := range g.Meta.Parts {
				if pt.DictLen > 0 && pt.Dict == nil && g.MetaErr == nil {
					g.MetaErr = fmt.Errorf("%w: part %d: dictionary of %d bytes missing", ErrCorrupt, i, pt.DictLen)
				}
				if len(pt.Dict) > 0 {
					if g.dicts[i], err = blockenc.NewDict(pt.Dict); err != nil {
						g.MetaErr = fmt.Errorf("meta: part %d: %w", i, err)
					}
				}
			}
			if g.MetaErr == nil {
				g.filters = &segment.Segment{Meta: segment.Meta{ID: g.ID}}
				for _, r := range g.Meta.Filters {
					g.filters.Meta.Filters = append(g.filters.Meta.Filters, segment.FilterRun{Blocks: r.Blocks, Len: r.Len, ID: r.ID, Filter: r.Filter})
				}
				if err := g.filters.SetFilters(); err != nil {
					g.MetaErr = err
				}
			}
		}
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *Segment) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out, nil
}

// Dict returns the dictionary that block i of g is compressed against
// (nil: none, or no meta).
func (g *Segment) Dict(i int) *blockenc.Dict {
	if g.Meta == nil {
		return nil
	}
	var n uint64
	for p, pt := range g.Meta.Parts {
		n += pt.Blocks
		if uint64(i) < n {
			return g.dicts[p]
		}
	}
	return nil
}

// MayHold reports whether block i of g may hold key by the key filter of
// its run (true when it has none).
func (g *Segment) MayHold(i int, key []byte) bool {
	return g.filters == nil || g.filters.MayHold(i, bloom.Hash(key))
}

// Block reads a block's bytes (a copy).
func (s *Store) Block(ref BlockRef) ([]byte, error) {
	var b []byte
	err := s.eng.Get(ref.Key, viewFunc(func(v []byte) error {
		b = bytes.Clone(v)
		return nil
	}))
	return b, err
}
