package lz4area

import "sync"

// decodeWindow decodes the LZ4 block src into w[base:], where w[:base]
// holds the dictionary its matches may reach into, and returns the bytes
// written, or -1 if src is not such a block or if it decodes to more than
// n bytes. It writes w up to its length, which may pass base+n.
//
// With the dictionary and the output in one buffer, a match is one copy
// from behind the output wherever it starts, with no test of where. Real
// sub-blocks of text rows mix matches into the dictionary and into their
// own output at random, so that test is a branch the processor
// mispredicts about as often as not. Literals and matches of up to 16
// bytes are one constant 16-byte copy (inlined by the compiler) when w
// has room for it, literals whatever their length (none included); the
// bytes past the sequence are overwritten by the next ones, as in
// pierrec's Go decoder. Over 1000 distinct 1 KiB sub-blocks of
// lineitem-like rows, this decodes about a third faster, the copy out
// included, than a decoder that keeps the dictionary apart and tests every
// match, and about twice as fast as pierrec's UncompressBlockWithDict,
// which calls memmove for every match that starts in the dictionary
// (BenchmarkDecodeDict). Fuzzed against pierrec (FuzzDecodeDict).
func decodeWindow(w []byte, base, n int, src []byte) int {
	var si uint
	di := uint(base)
	ls, lw := uint(len(src)), uint(len(w))
	for si < ls {
		tok := uint(src[si])
		si++
		lit := tok >> 4
		if lit == 15 {
			if lit, si = moreLen(src, si, lit); si == 0 {
				return -1
			}
		}
		if si+16 <= ls && di+16 <= lw && lit <= 16 {
			copy(w[di:di+16], src[si:si+16])
		} else {
			if lit > ls-si || lit > lw-di {
				return -1
			}
			copy(w[di:di+lit], src[si:si+lit])
		}
		si += lit
		di += lit
		if si+2 > ls {
			if si == ls && di <= uint(base+n) {
				return int(di) - base
			}
			return -1
		}
		off := uint(src[si]) | uint(src[si+1])<<8
		si += 2
		ml := tok&15 + 4
		if ml == 19 {
			if ml, si = moreLen(src, si, ml); si == 0 {
				return -1
			}
		}
		if off == 0 || off > di || ml > lw-di {
			return -1
		}
		s := di - off
		switch {
		case ml <= 16 && off >= 16 && di+16 <= lw:
			copy(w[di:di+16], w[s:s+16])
		case off >= ml:
			copy(w[di:di+ml], w[s:s+ml])
		default:
			for i := range ml {
				w[di+i] = w[s+i]
			}
		}
		di += ml
	}
	if ls == 0 || di > uint(base+n) {
		return -1
	}
	return int(di) - base
}

// windows is a pool of decoding windows for one dictionary: buffers that
// start with a copy of its bytes (see decodeWindow). The pool keeps one at
// hand per processor, so a window is copied once and then reused, by
// point reads as by scans. Under the race detector, which makes sync.Pool
// drop values at random, decoders take turns with one window instead, so
// that a decode allocates nothing there either.
type windows struct {
	dict []byte
	pool sync.Pool // of *[]byte
	mu   sync.Mutex
	one  []byte // race builds: the window, under mu
}

// windowSlack is the room a window keeps after the output it is made for,
// so that the last sequences still copy 16 bytes at a time.
const windowSlack = 16

// decode decodes src, an LZ4 block compressed against the dictionary,
// into dst, and returns the bytes written, or -1 if src is not such a
// block or does not fit dst. It writes nothing past len(dst).
func (ws *windows) decode(dst, src []byte) int {
	if raceBuild {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return ws.decodeIn(&ws.one, dst, src)
	}
	wp, _ := ws.pool.Get().(*[]byte)
	if wp == nil {
		wp = new([]byte)
	}
	n := ws.decodeIn(wp, dst, src)
	ws.pool.Put(wp)
	return n
}

// decodeIn is decode in the window *wp, which it makes or grows as needed
// (made with room for two sub-blocks of ExtSubBlockSize, the size a
// Columnar block cuts them to, so that a slightly longer one does not
// copy the dictionary again).
func (ws *windows) decodeIn(wp *[]byte, dst, src []byte) int {
	base := len(ws.dict)
	need := base + len(dst) + windowSlack
	w := *wp
	if len(w) < need {
		w = make([]byte, max(need, base+2*ExtSubBlockSize+windowSlack))
		copy(w, ws.dict)
		*wp = w
	}
	n := decodeWindow(w[:need], base, len(dst), src)
	if n >= 0 {
		copy(dst, w[base:base+n])
	}
	return n
}

// moreLen adds the length bytes at src[si:] (255s, then the rest) to n
// and returns it with the offset after them, or 0 for that offset if they
// run past src or add up to more than src can expand to.
func moreLen(src []byte, si, n uint) (uint, uint) {
	for si < uint(len(src)) && n <= uint(len(src))*MaxExpansion {
		b := uint(src[si])
		si++
		n += b
		if b != 255 {
			return n, si
		}
	}
	return 0, 0
}
