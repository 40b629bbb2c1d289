package cache

import "sync/atomic"

// table is a shard's index from block id to block: open addressing with
// linear probing over atomic slots, read without a lock and written only
// under the shard's mutex. A lookup loads the slots of its probe run until
// it finds the block or an empty slot. A writer stores a block into an
// empty or deleted slot, or marks a slot deleted: each store is one
// atomic pointer write, so a lookup running beside it sees the slot
// either before or after, never half written.
//
// A table is never more than half full counting deleted slots (used), so
// every probe run ends at an empty slot. When an insertion would pass
// that, the writer builds a new table from the live blocks (dropping the
// deleted marks) and publishes it; lookups still probing the old one
// finish there and find a block that was current when they started, as a
// lookup just before the change would have.
type table struct {
	slots []atomic.Pointer[Block]
	mask  uint64
	used  int // slots not empty: live blocks and deleted marks (writer only)
	live  int // live blocks (writer only)
}

// deleted marks a slot whose block left the table: a lookup probes on
// past it, an insertion may reuse it.
var deleted = new(Block)

// minTableSlots is the size of a shard's first table.
const minTableSlots = 16

func newTable(slots int) *table {
	n := minTableSlots
	for n < slots {
		n *= 2
	}
	return &table{slots: make([]atomic.Pointer[Block], n), mask: uint64(n - 1)}
}

// home is the first slot of the probe run of a block with hash h. The
// shard takes h's high bits; the table mixes them into the low ones.
func (t *table) home(h uint64) uint64 { return (h ^ h>>29) & t.mask }

// find returns the block id, or nil. It takes no lock.
func (t *table) find(id ID, h uint64) *Block {
	for i := t.home(h); ; i = (i + 1) & t.mask {
		b := t.slots[i].Load()
		if b == nil {
			return nil
		}
		if b != deleted && b.ID == id {
			return b
		}
	}
}

// full reports whether one more insertion would leave fewer than half of
// t's slots empty.
func (t *table) full() bool { return 2*(t.used+1) > len(t.slots) }

// insert adds b, known to be absent, to t, which is not full. Writer only.
func (t *table) insert(b *Block, h uint64) {
	for i := t.home(h); ; i = (i + 1) & t.mask {
		switch t.slots[i].Load() {
		case nil:
			t.used++
			fallthrough
		case deleted:
			t.slots[i].Store(b)
			t.live++
			return
		}
	}
}

// remove takes b out of t. Writer only. The slot becomes empty when the
// next one is (no probe run passes through it), and so do the deleted
// marks just before it; otherwise it is marked deleted.
func (t *table) remove(b *Block, h uint64) {
	i := t.home(h)
	for t.slots[i].Load() != b {
		i = (i + 1) & t.mask
	}
	t.live--
	if t.slots[(i+1)&t.mask].Load() != nil {
		t.slots[i].Store(deleted)
		return
	}
	for {
		t.slots[i].Store(nil)
		t.used--
		i = (i - 1) & t.mask
		if t.slots[i].Load() != deleted {
			return
		}
	}
}

// rebuilt returns a new table holding t's live blocks, a quarter full at
// most. Writer only.
func (t *table) rebuilt() *table {
	n := newTable(4 * (t.live + 1))
	for i := range t.slots {
		if b := t.slots[i].Load(); b != nil && b != deleted {
			n.insert(b, blockHash(b.ID))
		}
	}
	return n
}
