package kv

import (
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segread"
)

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
