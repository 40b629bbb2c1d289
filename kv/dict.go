package kv

import (
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Segment dictionaries (see the package doc): package segwrite samples
// them, from the memstore of a flush or from a few blocks of a
// compaction's inputs, when the Store's options ask for them.

// segmentDicts reports whether the segments o writes have dictionaries:
// DictSize is positive and the blocks compress their values as LZ4Dict.
func (o Options) segmentDicts() bool {
	return o.DictSize > 0 && o.Block.Compression == blockenc.LZ4Dict
}

// memtableDict returns the dictionary of a flush of mt, or nil.
func (s *Store) memtableDict(mt *memtable) []byte {
	if !s.opts.segmentDicts() {
		return nil
	}
	return s.sw.SampleMemstore(mt.ms)
}

// compactionDict returns the dictionary of a compaction that merges in,
// or nil.
func (s *Store) compactionDict(in []*segment.Segment) ([]byte, error) {
	if !s.opts.segmentDicts() {
		return nil, nil
	}
	return s.sw.SampleSegments(in)
}
