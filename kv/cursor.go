package kv

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// cursor reads the blocks of one segment in order, for a scan, through
// one engine iterator over the segment's block keys. In Badger a Get per
// block searches every level of its tree and builds a table iterator for
// it; the iterator's Next reaches the next block's key for about a
// quarter of that.
//
// The iterator lives from the cursor's first read to close, which a
// scan calls when it ends, turns or seeks. Like any Badger iterator it
// holds a read transaction, so Badger keeps what was deleted after it
// began (and the value-log files that hold it) until it closes. A cursor
// serves one goroutine at a time; Store.Close closes every cursor still
// open (cursors.shut), after which reads fail with ErrClosed.
type cursor struct {
	s       *Store
	g       *segment.Segment
	reverse bool

	mu     sync.Mutex // held by a read and by close
	it     engine.Iter
	closed bool
	seeks  int // iterator seeks, for tests
}

// cursorSkip is how many times a cursor steps on with Next to reach the
// block it is asked for, before it seeks instead: the scan and its
// read-ahead each read runs of blocks and skip the other's runs.
const cursorSkip = max(readerRun, scanRun) + 1

// cursors are a Store's open cursors.
type cursors struct {
	mu     sync.Mutex
	open   map[*cursor]struct{}
	closed bool
}

// newCursor returns a cursor on the blocks of g, read forward or, with
// reverse, backward, or nil when the Store is closing (reads then take
// the way without one and fail with its error).
func (s *Store) newCursor(g *segment.Segment, reverse bool) *cursor {
	r := &s.cursors
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	c := &cursor{s: s, g: g, reverse: reverse}
	if r.open == nil {
		r.open = map[*cursor]struct{}{}
	}
	r.open[c] = struct{}{}
	return c
}

// shut closes every open cursor and refuses new ones.
func (r *cursors) shut() {
	r.mu.Lock()
	r.closed = true
	open := r.open
	r.open = nil
	r.mu.Unlock()
	for c := range open {
		c.release()
	}
}

// close closes c (nil: nothing to close).
func (c *cursor) close() {
	if c == nil {
		return
	}
	r := &c.s.cursors
	r.mu.Lock()
	delete(r.open, c)
	r.mu.Unlock()
	c.release()
}

// release ends c's iterator and transaction.
func (c *cursor) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.it != nil {
		c.it.Close()
		c.it = nil
	}
	c.closed = true
}

// view lends v the bytes of block i as the engine holds them, as
// Store.viewBlock does.
func (c *cursor) view(i int, v engine.Viewer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.s.errClosed()
	}
	key := c.g.BlockKeys[i]
	fresh := c.it == nil
	if fresh {
		if err := c.open(); err != nil {
			return err
		}
	}
	if fresh || !c.reach(key) {
		c.it.Seek(key)
		c.seeks++
	}
	if !c.it.Valid() || !bytes.Equal(c.it.Key(), key) {
		if err := c.it.Err(); err != nil {
			return c.g.ReadErr(i, err)
		}
		return c.g.Missing(i)
	}
	if err := c.it.Value(v); err != nil {
		return c.g.ReadErr(i, err)
	}
	return nil
}

// reach steps the iterator on to key, by at most cursorSkip Nexts, and
// reports whether it got there.
func (c *cursor) reach(key []byte) bool {
	for range cursorSkip + 1 {
		if !c.it.Valid() {
			return false
		}
		switch d := bytes.Compare(c.it.Key(), key); {
		case d == 0:
			return true
		case (d > 0) != c.reverse: // past it
			return false
		}
		c.it.Next()
	}
	return false
}

// open starts c's iterator over the segment's block keys.
func (c *cursor) open() (err error) {
	if err := c.s.dbClosed(); err != nil {
		return err
	}
	id := c.g.Meta.ID
	c.it, err = c.s.eng.NewIter(engine.IterOptions{Lower: c.s.keys.Segment(id), Upper: c.s.keys.Segment(id + 1), Reverse: c.reverse})
	if err != nil {
		return fmt.Errorf("kv: store %q: %w", c.s.opts.Prefix, err)
	}
	return nil
}
