package cache

import "fmt"

// check verifies sh under -tags invariants: the ring holds count blocks
// linked both ways, their costs add up to size within max, and the index
// holds exactly the ring's blocks. A failure is a bug in the cache, not
// bad input: it panics. The caller holds sh.mu.
func (sh *shard) check() {
	t := sh.tab.Load()
	n, size := 0, int64(0)
	if sh.hand != nil {
		b := sh.hand
		for {
			if b.next.prev != b {
				panic(fmt.Sprintf("cache: ring broken after block %v", b.ID))
			}
			if t.find(b.ID, blockHash(b.ID)) != b {
				panic(fmt.Sprintf("cache: block %v in the ring, not in the index", b.ID))
			}
			n++
			size += b.Cost
			if b = b.next; b == sh.hand || n > sh.count {
				break
			}
		}
	}
	if n != sh.count || n != t.live || size != sh.size || size > sh.max {
		panic(fmt.Sprintf("cache: ring of %d blocks (%d bytes), count %d, index %d, size %d, max %d",
			n, size, sh.count, t.live, sh.size, sh.max))
	}
	used := 0
	for i := range t.slots {
		if t.slots[i].Load() != nil {
			used++
		}
	}
	if used != t.used || 2*used > len(t.slots) {
		panic(fmt.Sprintf("cache: index of %d slots has %d used, counted %d", len(t.slots), used, t.used))
	}
}
