package memstore

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"unsafe"
)

// The skiplist: lock-free insertion (compare-and-swap on each level's
// link, lowest level first), no deletion, every node in one arena
// addressed by uint32 offsets. Offset 0 is nil; the head node, of maximum
// height, comes right after it.
//
// A node at offset nd, 8-byte aligned:
//
//	value  u64     atomic: value region offset << 32 | value length
//	seq    u64
//	klen   u16
//	height u16     1..maxHeight
//	tower  u32 * height   atomic: the next node at each level (0: none)
//	key    klen bytes
//	kind   u8      the cell's kind, then its value: the value region
//	value  bytes
//
// A node is written whole before the compare-and-swap that links it at
// level 0 publishes it, and never changes after, except its value word:
// an insert of a key and seq already present points the word at a new
// value region (or at the region of its own node when it lost a race to
// insert the same cell, which it then never links).
const (
	maxHeight = 20
	// pInv: a node reaches each level above the first with probability
	// 1/pInv.
	pInv = 4

	offValue  = 0
	offSeq    = 8
	offKeyLen = 16
	offHeight = 18
	offTower  = 20

	// maxNodeHead is the most arena bytes a node takes besides its key
	// and value region: a tower of maxHeight and the padding that aligns
	// the next allocation on 8 bytes.
	maxNodeHead = offTower + 4*maxHeight + 7
	// listHead is what a fresh list takes: the nil offset's 8 bytes and
	// the head node.
	listHead = 8 + (offTower+4*maxHeight+7)&^7
)

// splice is where a key goes at one level: between prev and next (0 when
// prev is the last node of the level).
type splice struct{ prev, next uint32 }

// inserter remembers the splices of the last insert: an insert of a key
// just after it starts from there instead of from the top of the list.
type inserter struct {
	spl    [maxHeight]splice
	height uint32 // levels of spl that are set; 0: none
}

type skiplist struct {
	buf    []byte // the arena, 8-byte aligned
	used   atomic.Uint32
	height atomic.Uint32 // levels in use, 1..maxHeight
	head   uint32
}

func newSkiplist(size int64) *skiplist {
	words := make([]uint64, (size+7)/8)
	s := &skiplist{buf: unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), size)}
	adviseHuge(s.buf)
	s.used.Store(8)
	s.head, _ = s.alloc(offTower + 4*maxHeight)
	binary.LittleEndian.PutUint16(s.buf[s.head+offHeight:], maxHeight)
	s.height.Store(1)
	return s
}

// alloc takes n bytes (rounded up to 8) from the arena, or reports that
// they do not fit.
func (s *skiplist) alloc(n int) (uint32, bool) {
	if n < 0 || uint64(n)+7 > uint64(len(s.buf)) {
		return 0, false
	}
	size := uint32(uint64(n)+7) &^ 7
	end := s.used.Add(size)
	if end < size || int(end) > len(s.buf) {
		return 0, false
	}
	return end - size, true
}

// size returns the arena bytes allocated, at most the arena's length.
func (s *skiplist) size() int64 { return min(int64(s.used.Load()), int64(len(s.buf))) }

// unsafePointer returns the address of b's first byte.
func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

func (s *skiplist) u32(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&s.buf[off])) }
func (s *skiplist) u64(off uint32) *uint64 { return (*uint64)(unsafe.Pointer(&s.buf[off])) }

// next returns the node after nd at level.
func (s *skiplist) next(nd uint32, level int) uint32 {
	return atomic.LoadUint32(s.u32(nd + offTower + 4*uint32(level)))
}

func (s *skiplist) nodeHeight(nd uint32) uint32 {
	return uint32(binary.LittleEndian.Uint16(s.buf[nd+offHeight:]))
}

// key returns nd's key, capacity cut to its length.
func (s *skiplist) key(nd uint32) []byte {
	kl := uint32(binary.LittleEndian.Uint16(s.buf[nd+offKeyLen:]))
	k := nd + offTower + 4*s.nodeHeight(nd)
	return s.buf[k : k+kl : k+kl]
}

func (s *skiplist) seq(nd uint32) uint64 { return binary.LittleEndian.Uint64(s.buf[nd+offSeq:]) }

// value returns nd's kind byte and value, capacity cut to its length.
func (s *skiplist) value(nd uint32) (byte, []byte) {
	w := atomic.LoadUint64(s.u64(nd + offValue))
	v, n := uint32(w>>32), uint32(w)
	return s.buf[v], s.buf[v+1 : v+1+n : v+1+n]
}

// cmp compares the cell (key, seq) with node nd in cell order: key
// ascending, then seq descending.
func (s *skiplist) cmp(key []byte, seq uint64, nd uint32) int {
	if c := bytes.Compare(key, s.key(nd)); c != 0 {
		return c
	}
	switch ns := s.seq(nd); {
	case seq > ns:
		return -1
	case seq < ns:
		return 1
	}
	return 0
}

func randomHeight() uint32 {
	h := uint32(1)
	for h < maxHeight && rand.Uint32() < math.MaxUint32/pInv {
		h++
	}
	return h
}

// add inserts the cell (key, seq, kind, value), or when a node of key and
// seq is there points it at the new kind and value. It reports false
// when the arena has no room left (callers reserve room first, so that
// this never happens).
func (s *skiplist) add(key []byte, seq uint64, kind byte, value []byte, ins *inserter) bool {
	if found := s.findSplice(key, seq, ins); found != 0 {
		v, ok := s.alloc(1 + len(value))
		if !ok {
			return false
		}
		s.buf[v] = kind
		copy(s.buf[v+1:], value)
		atomic.StoreUint64(s.u64(found+offValue), uint64(v)<<32|uint64(len(value)))
		return true
	}
	h := randomHeight()
	nd, ok := s.alloc(offTower + 4*int(h) + len(key) + 1 + len(value))
	if !ok {
		return false
	}
	b := s.buf[nd:]
	binary.LittleEndian.PutUint64(b[offSeq:], seq)
	binary.LittleEndian.PutUint16(b[offKeyLen:], uint16(len(key)))
	binary.LittleEndian.PutUint16(b[offHeight:], uint16(h))
	k := offTower + 4*h
	copy(b[k:], key)
	v := nd + k + uint32(len(key))
	s.buf[v] = kind
	copy(s.buf[v+1:], value)
	binary.LittleEndian.PutUint64(b[offValue:], uint64(v)<<32|uint64(len(value)))

	for lh := s.height.Load(); h > lh; lh = s.height.Load() {
		if s.height.CompareAndSwap(lh, h) {
			break
		}
	}
	// Link from the lowest level up: once linked at level 0 the node is
	// in the list; a search finds it at a higher level only after that.
	fresh := true
	for i := 0; i < int(h); i++ {
		prev, next := ins.spl[i].prev, ins.spl[i].next
		if uint32(i) >= ins.height {
			// A level above the list's height when the splice was found.
			prev, next = s.head, 0
		}
		for {
			atomic.StoreUint32(s.u32(nd+offTower+4*uint32(i)), next)
			if atomic.CompareAndSwapUint32(s.u32(prev+offTower+4*uint32(i)), next, nd) {
				break
			}
			// Another insert went between prev and next: search again
			// from prev at this level.
			fresh = false
			var found uint32
			prev, next, found = s.findSpliceForLevel(key, seq, i, prev)
			if found != 0 {
				// The same cell, inserted meanwhile (found at level 0
				// only: this node is not linked yet). Take its node,
				// with this node's value region.
				atomic.StoreUint64(s.u64(found+offValue), uint64(v)<<32|uint64(len(value)))
				ins.height = 0
				return true
			}
		}
	}
	if fresh {
		// The splices held: the node is the next insert's prev at its
		// levels.
		for i := range h {
			ins.spl[i].prev = nd
		}
	} else {
		ins.height = 0
	}
	return true
}

// findSplice sets ins.spl to where (key, seq) goes at every level of the
// list, starting from ins's splices where they still bracket the key, and
// returns the node of key and seq if there is one (else 0).
func (s *skiplist) findSplice(key []byte, seq uint64, ins *inserter) uint32 {
	lh := s.height.Load()
	level := lh
	prev := s.head
	if ins.height >= lh {
		// The lowest level whose splice is still tight (nothing inserted
		// between) and brackets the key: the levels above bracket it too.
		for l := uint32(0); l < lh; l++ {
			sp := ins.spl[l]
			if s.next(sp.prev, int(l)) != sp.next {
				continue
			}
			if (sp.prev != s.head && s.cmp(key, seq, sp.prev) <= 0) || (sp.next != 0 && s.cmp(key, seq, sp.next) >= 0) {
				break // outside: search from the top
			}
			level, prev = l, sp.prev
			break
		}
	}
	ins.height = lh
	for i := int(level) - 1; i >= 0; i-- {
		var found uint32
		prev, ins.spl[i].next, found = s.findSpliceForLevel(key, seq, i, prev)
		ins.spl[i].prev = prev
		if found != 0 {
			ins.height = 0
			return found
		}
	}
	return 0
}

// findSpliceForLevel walks level from start (a node before (key, seq),
// or the head) to where (key, seq) goes: after prev, before next. found
// is the node of key and seq if the walk meets it.
func (s *skiplist) findSpliceForLevel(key []byte, seq uint64, level int, start uint32) (prev, next, found uint32) {
	prev = start
	for {
		next = s.next(prev, level)
		if next == 0 {
			return prev, 0, 0
		}
		switch c := s.cmp(key, seq, next); {
		case c == 0:
			return prev, next, next
		case c < 0:
			return prev, next, 0
		}
		prev = next
	}
}

// seekGE returns the first node at or after (key, seq), or 0.
func (s *skiplist) seekGE(key []byte, seq uint64) uint32 {
	prev := s.head
	for level := int(s.height.Load()) - 1; level >= 0; level-- {
		for {
			next := s.next(prev, level)
			if next == 0 || s.cmp(key, seq, next) <= 0 {
				if level == 0 {
					return next
				}
				break
			}
			prev = next
		}
	}
	return 0
}

// seekLT returns the last node before (key, seq), or 0.
func (s *skiplist) seekLT(key []byte, seq uint64) uint32 {
	prev := s.head
	for level := int(s.height.Load()) - 1; level >= 0; level-- {
		for {
			next := s.next(prev, level)
			if next == 0 || s.cmp(key, seq, next) <= 0 {
				break
			}
			prev = next
		}
	}
	if prev == s.head {
		return 0
	}
	return prev
}

// last returns the last node, or 0.
func (s *skiplist) last() uint32 {
	prev := s.head
	for level := int(s.height.Load()) - 1; level >= 0; level-- {
		for next := s.next(prev, level); next != 0; next = s.next(prev, level) {
			prev = next
		}
	}
	if prev == s.head {
		return 0
	}
	return prev
}
