package kv

import (
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segread"
)

// The Store's reads of its segments are package segread's (s.rd); the
// hooks below are how writes, flush, compaction and dictionary sampling
// reach them.

// newReader returns the segment reader of s, whose engine, keys and cache
// are set.
func (s *Store) newReader() *segread.Reader {
	return segread.New(segread.Config{
		Engine:    s.eng,
		Keys:      s.keys,
		Prefix:    s.opts.Prefix,
		Cache:     s.cache,
		Pool:      &s.pool,
		BlockSize: s.opts.BlockSize,
		Closing:   s.closed.Load,
		ErrClosed: s.errClosed,
		EngineErr: s.dbClosed,
	})
}

// getFrom looks key up in g at read point rp (segread.Reader.Get).
func (s *Store) getFrom(g *segment.Segment, key []byte, rp uint64, dst []byte) (val []byte, kind blockenc.Kind, seq uint64, found bool, err error) {
	return s.rd.Get(g, key, rp, dst)
}

// readBlock reads block i of g after a cache miss
// (segread.Reader.ReadBlock).
func (s *Store) readBlock(g *segment.Segment, i int, fill, cold bool, sp *segread.Spare, cur *segread.Cursor) (*cache.Block, *cache.RefBuf, error) {
	return s.rd.ReadBlock(g, i, fill, cold, sp, cur)
}

// viewBlock lends v the bytes of block i of g (segread.Reader.ViewBlock).
func (s *Store) viewBlock(g *segment.Segment, i int, v engine.Viewer) error {
	return s.rd.ViewBlock(g, i, v)
}

// cursor reads the blocks of one segment in order (segread.Cursor).
type cursor struct{ c *segread.Cursor }

// newCursor returns a cursor on the blocks of g, or nil when the Store is
// closing.
func (s *Store) newCursor(g *segment.Segment, reverse bool) *cursor {
	c := s.rd.NewCursor(g, reverse)
	if c == nil {
		return nil
	}
	return &cursor{c}
}

func (c *cursor) view(i int, v engine.Viewer) error { return c.c.View(i, v) }

// close closes c (nil: nothing to close).
func (c *cursor) close() {
	if c != nil {
		c.c.Close()
	}
}

// cursors ends the block reads of open Iterators at Close.
type cursors struct{ rd *segread.Reader }

func (c cursors) shut() { c.rd.Shut() }
