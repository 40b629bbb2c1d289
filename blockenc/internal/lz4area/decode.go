package lz4area

// decodeDict decodes the LZ4 block src, whose matches may reach back past
// dst's start into the end of dict, into dst, and returns the bytes
// written, or -1 if src is not such a block or does not fit dst; it writes
// nothing past len(dst). It does what pierrec/lz4's
// UncompressBlockWithDict does, faster on blocks compressed against an
// external dictionary: pierrec's assembly calls memmove for every match
// that starts in the dictionary, and such blocks are mostly short matches
// into it. Here literals and matches of up to 16 bytes, wherever they
// start, are one constant 16-byte copy (inlined by the compiler) when
// dst has room for it (the bytes past the sequence are overwritten by the
// next ones), as pierrec's Go decoder does for matches inside dst.
// Fuzzed against pierrec (FuzzDecodeDict).
func decodeDict(dst, src, dict []byte) int {
	var si, di uint
	ls, ld, lk := uint(len(src)), uint(len(dst)), uint(len(dict))
	for si < ls {
		tok := uint(src[si])
		si++
		if lit := tok >> 4; lit > 0 {
			if lit == 15 {
				if lit, si = moreLen(src, si, lit); si == 0 {
					return -1
				}
			}
			if lit <= 16 && si+16 <= ls && di+16 <= ld {
				copy(dst[di:di+16], src[si:si+16])
			} else {
				if lit > ls-si || lit > ld-di {
					return -1
				}
				copy(dst[di:di+lit], src[si:si+lit])
			}
			si += lit
			di += lit
		}
		if si+2 > ls {
			if si == ls {
				return int(di) // the last sequence: literals only (its match nibble is ignored, as LZ4's own decoder does)
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
		if off == 0 || ml > ld-di {
			return -1
		}
		if off > di { // starts in the dictionary, k bytes before its end
			k := off - di
			if k > lk {
				return -1
			}
			if ml <= 16 && k >= 16 && di+16 <= ld {
				copy(dst[di:di+16], dict[lk-k:lk-k+16])
				di += ml
				continue
			}
			n := uint(copy(dst[di:di+min(ml, k)], dict[lk-k:]))
			di += n
			if ml -= n; ml == 0 {
				continue
			}
			// It runs on from dst's start (now off == di).
		}
		s := di - off
		switch {
		case ml <= 16 && off >= 16 && di+16 <= ld:
			copy(dst[di:di+16], dst[s:s+16])
		case off >= ml:
			copy(dst[di:di+ml], dst[s:s+ml])
		default: // overlapping: a run repeating the last off bytes
			for i := range ml {
				dst[di+i] = dst[s+i]
			}
		}
		di += ml
	}
	if ls == 0 {
		return -1 // a block has a token at least
	}
	return int(di) // ending with a match, which pierrec takes too
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
