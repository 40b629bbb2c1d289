package cache

// The eviction order of a shard is a CLOCK (second chance): its blocks
// sit in a ring with a hand pointing at the next one to consider. A hit
// sets the block's referenced bit and nothing else, so a lookup writes
// no shared structure. To make room, the hand moves around the ring: a
// block with the bit set has it cleared and is passed over (its second
// chance), the first block without it is evicted. A block hit since the
// hand last passed survives a whole turn of the hand, as LRU keeps a
// block used since the others were.
//
// Where a block enters the ring is its insertion point:
//   - hot (a Get's block, admitted at its second miss): just behind the
//     hand, the last block the hand reaches, as LRU puts it at its head;
//   - cold (an Iterator's block): at the hand, the next block it reaches:
//     the next eviction takes it unless it is read again first, as LRU's
//     tail (midpoint insertion). A scan bigger than the cache then evicts
//     its own blocks one by one and the hand never reaches the hot set.
//
// The ring and the hand are the shard writer's (under the shard's mutex);
// lookups touch only the referenced bit.

// link puts b into sh's ring, at the hand when cold, else just behind it.
func (sh *shard) link(b *Block, cold bool) {
	if sh.hand == nil {
		b.prev, b.next = b, b
		sh.hand = b
		return
	}
	h := sh.hand
	b.prev, b.next = h.prev, h
	h.prev.next = b
	h.prev = b
	if cold {
		sh.hand = b
	}
}

// unlink takes b out of sh's ring; the hand moves on past it.
func (sh *shard) unlink(b *Block) {
	if b.next == b {
		sh.hand = nil
	} else {
		b.prev.next, b.next.prev = b.next, b.prev
		if sh.hand == b {
			sh.hand = b.next
		}
	}
	b.prev, b.next = nil, nil
}

// victim moves the hand to the block to evict and returns it: the first
// from the hand without its referenced bit, clearing the bits it passes.
// A hand that has gone around the ring twice (hits setting bits again
// behind it all the way) takes the block it is at. The ring is not empty.
func (sh *shard) victim() *Block {
	for range 2*sh.count + 1 {
		b := sh.hand
		if !b.referenced.Load() {
			return b
		}
		b.referenced.Store(false)
		sh.hand = b.next
	}
	return sh.hand
}
