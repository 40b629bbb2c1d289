package engine

// Op is one write of a Batch: a set of Key to Value, or a delete of Key.
// Large hints that Value is large (a data block): an engine that places
// large values apart from its index may place it there.
type Op struct {
	Key, Value []byte
	Delete     bool
	Large      bool
}

// Batch is a list of sets and deletes that Engine.Write applies at once.
// It keeps the slices it is given (no copy): they must not change until
// the write is done. The zero value is an empty batch.
type Batch struct {
	ops    []Op
	size   int
	unseen bool
}

// SetUnseen marks the batch as writing only keys that no read looks up
// until a later write without the mark makes them reachable: the blocks
// and dictionaries of a segment before its meta, WAL records, and deletes
// of keys that no read reaches any longer (WAL records flushed, blocks
// without a meta). An engine that lends its readers snapshots (Badger's
// lent read transactions) may keep lending those taken before such a
// write, as no read they serve can miss it. Reset clears the mark.
func (b *Batch) SetUnseen() { b.unseen = true }

// Unseen reports whether SetUnseen marked the batch.
func (b *Batch) Unseen() bool { return b.unseen }

// Set adds a set of key to value.
func (b *Batch) Set(key, value []byte) { b.add(Op{Key: key, Value: value}) }

// SetLarge adds a set of key to value, hinting that value is large.
func (b *Batch) SetLarge(key, value []byte) { b.add(Op{Key: key, Value: value, Large: true}) }

// Delete adds a delete of key.
func (b *Batch) Delete(key []byte) { b.add(Op{Key: key, Delete: true}) }

func (b *Batch) add(o Op) {
	b.ops = append(b.ops, o)
	b.size += len(o.Key) + len(o.Value)
}

// Ops returns the operations in order; the caller must not change them.
func (b *Batch) Ops() []Op { return b.ops }

// Len returns the number of operations.
func (b *Batch) Len() int { return len(b.ops) }

// Size returns the sum of the lengths of the keys and values.
func (b *Batch) Size() int { return b.size }

// Reset empties the batch, keeping its memory.
func (b *Batch) Reset() {
	clear(b.ops)
	b.ops = b.ops[:0]
	b.size = 0
	b.unseen = false
}

// Split returns the batches of the first half and the rest of b's
// operations (marked as b is) (for a caller that need not write b atomically and got
// ErrTooLarge). b must hold at least two.
func (b *Batch) Split() (*Batch, *Batch) {
	h := len(b.ops) / 2
	x, y := &Batch{unseen: b.unseen}, &Batch{unseen: b.unseen}
	for _, o := range b.ops[:h] {
		x.add(o)
	}
	for _, o := range b.ops[h:] {
		y.add(o)
	}
	return x, y
}
