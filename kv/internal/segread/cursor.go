package segread

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Cursor reads the blocks of one segment in order, for a scan, through
// one engine iterator over the segment's block keys. In Badger a Get per
// block searches every level of its tree and builds a table iterator for
// it; the iterator's Next reaches the next block's key for about a
// quarter of that.
//
// The iterator lives from the cursor's first read to Close, which a
// scan calls when it ends, turns or seeks. Like any Badger iterator it
// holds a read transaction, so Badger keeps what was deleted after it
// began (and the value-log files that hold it) until it closes. A Cursor
// serves one goroutine at a time; Reader.Shut closes every Cursor still
// open, after which reads fail with ErrClosed.
type Cursor struct {
	r       *Reader
	g       *segment.Segment
	reverse bool

	mu     sync.Mutex // held by a read and by close
	it     engine.Iter
	closed bool
	seeks  int // iterator seeks, for tests
}

// CursorSkip is how many times a cursor steps on with Next to reach the
// block it is asked for, before it seeks instead: its reads go in order
// but skip the blocks a scan finds in the cache. A step costs little
// against a block's decoding (in Badger about a tenth of a seek), and on
// an engine that fetches blocks in batches (TiKV) a seek would fetch
// again blocks the batch already holds.
const CursorSkip = 16

// cursors are a Reader's open cursors.
type cursors struct {
	mu     sync.Mutex
	open   map[*Cursor]struct{}
	closed bool
}

// NewCursor returns a cursor on the blocks of g, read forward or, with
// reverse, backward, or nil when the Store is closing (reads then take
// the way without one and fail with its error).
func (r *Reader) NewCursor(g *segment.Segment, reverse bool) *Cursor {
	cs := &r.cursors
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return nil
	}
	c := &Cursor{r: r, g: g, reverse: reverse}
	if cs.open == nil {
		cs.open = map[*Cursor]struct{}{}
	}
	cs.open[c] = struct{}{}
	return c
}

// shut closes every open cursor and refuses new ones.
func (cs *cursors) shut() {
	cs.mu.Lock()
	cs.closed = true
	open := cs.open
	cs.open = nil
	cs.mu.Unlock()
	for c := range open {
		c.release()
	}
}

// Close closes c (nil: nothing to close).
func (c *Cursor) Close() {
	if c == nil {
		return
	}
	cs := &c.r.cursors
	cs.mu.Lock()
	delete(cs.open, c)
	cs.mu.Unlock()
	c.release()
}

// release ends c's iterator and transaction.
func (c *Cursor) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.it != nil {
		c.it.Close()
		c.it = nil
	}
	c.closed = true
}

// Seeks returns how many times c's iterator seeked (for tests).
func (c *Cursor) Seeks() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seeks
}

// View lends v the bytes of block i as the engine holds them, as
// Reader.ViewBlock does.
func (c *Cursor) View(i int, v engine.Viewer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.r.c.ErrClosed()
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

// reach steps the iterator on to key, by at most CursorSkip Nexts, and
// reports whether it got there.
func (c *Cursor) reach(key []byte) bool {
	for range CursorSkip + 1 {
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
func (c *Cursor) open() (err error) {
	if err := c.r.c.EngineErr(); err != nil {
		return err
	}
	id := c.g.Meta.ID
	c.it, err = c.r.c.Engine.NewIter(engine.IterOptions{Lower: c.r.c.Keys.Segment(id), Upper: c.r.c.Keys.Segment(id + 1), Reverse: c.reverse})
	if err != nil {
		return fmt.Errorf("kv: store %q: %w", c.r.c.Prefix, err)
	}
	return nil
}
