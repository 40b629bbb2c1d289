package lz4dict

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// dictHashLog is the hash log of a Dict's tables: one slot per possible
// dictionary position (a Dict holds at most 65535 bytes).
const dictHashLog = 16

// Dict is a preset dictionary prepared for many CompressBlockDict calls
// (see the package doc): its match finder tables are built on first use
// at a level (the fast level's hash table; the suffix array of levels
// 1..9) and then only read. A Dict is immutable and safe for concurrent use by many
// Compressors.
type Dict struct {
	b []byte

	fastOnce sync.Once
	fast     []uint16 // fast: hash of 6 bytes -> last position + 1; 0 empty

	hcOnce sync.Once
	hc     suffixIndex // HC: the dictionary's suffix array (newSuffixIndex)
}

// NewDict returns a Dict of the last MaxDictLen bytes of b (a copy).
func NewDict(b []byte) *Dict {
	if len(b) > MaxDictLen {
		b = b[len(b)-MaxDictLen:]
	}
	return &Dict{b: append([]byte(nil), b...)}
}

// Bytes returns the dictionary's bytes; do not modify them.
func (d *Dict) Bytes() []byte { return d.b }

// fastTable returns the fast level's table: every position p with p+8 <=
// len(d.b) (the 8-byte hash load stays in the dictionary), the last one of
// each hash kept, as compressFast's own table keeps them.
func (d *Dict) fastTable() []uint16 {
	d.fastOnce.Do(func() {
		t := make([]uint16, 1<<dictHashLog)
		for p := 0; p+8 <= len(d.b); p++ {
			t[hash6(d.b, p)>>(64-dictHashLog)] = uint16(p + 1)
		}
		d.fast = t
	})
	return d.fast
}

// suffixes returns the suffix index of the dictionary (newSuffixIndex).
func (d *Dict) suffixes() *suffixIndex {
	d.hcOnce.Do(func() { d.hc = newSuffixIndex(d.b) })
	return &d.hc
}

// hash6 is the fast level's hash of the 6 bytes at b[p:] (b[p:p+8] must
// exist), before the shift to a table size.
func hash6(b []byte, p int) uint64 {
	return (binary.LittleEndian.Uint64(b[p:]) << 16) * prime6
}

// CompressBlockDict is CompressBlock(dst, src, d.Bytes()) with the
// dictionary's tables prepared: the output decodes with pierrec/lz4/v4's
// UncompressBlockWithDict(out, dst, d.Bytes()). It may choose other
// matches than CompressBlock (each position looks for a match in the input
// first, then in the dictionary), and like it depends only on src, d and
// c.Level.
func (c *Compressor) CompressBlockDict(dst, src []byte, d *Dict) []byte {
	level := min(c.Level, LevelMax)
	switch {
	case len(d.b) == 0 || level >= LevelOpt:
		return c.CompressBlock(dst, src, d.b)
	case level > LevelFast:
		return c.compressHCDict(dst, src, d, level)
	}
	return c.compressFastDict(dst, src, d)
}

// dictMatchLen returns how many bytes from dict[a:], and on from src[0:]
// past the dictionary's end, equal those from src[b:], counting no
// further than src[limit-1].
func dictMatchLen(dict []byte, a int, src []byte, b, limit int) int {
	n := 0
	for a+n+8 <= len(dict) && b+n+8 <= limit {
		if x := binary.LittleEndian.Uint64(dict[a+n:]) ^ binary.LittleEndian.Uint64(src[b+n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for a+n < len(dict) && b+n < limit {
		if dict[a+n] != src[b+n] {
			return n
		}
		n++
	}
	if a+n < len(dict) || b+n >= limit {
		return n
	}
	// The match runs on past the dictionary into the input's start.
	return n + matchLen(src, 0, b+n, limit)
}

// compressFastDict is compressFast of src against d: a position that finds
// no match in the input's own table looks in the dictionary's.
func (c *Compressor) compressFastDict(dst, src []byte, d *Dict) []byte {
	n := len(src)
	dict, dt := d.b, d.fastTable()
	dl := len(dict)
	table, hashLog := c.emptyTable(n)

	anchor, p := 0, 0
	matchLimit := n - lastLiterals
	for p+mfLimit <= n {
		h64 := hash6(src, p)
		h := h64 >> (64 - hashLog)
		cand := int(table[h]) - 1
		table[h] = int32(p + 1)
		var off, m int
		if cand >= 0 && p-cand <= maxOffset &&
			binary.LittleEndian.Uint32(src[cand:]) == binary.LittleEndian.Uint32(src[p:]) {
			for p > anchor && cand > 0 && src[p-1] == src[cand-1] {
				p--
				cand--
			}
			off, m = p-cand, minMatch+matchLen(src, cand+minMatch, p+minMatch, matchLimit)
		} else if dc := int(dt[h64>>(64-dictHashLog)]) - 1; dc >= 0 && dl-dc+p <= maxOffset &&
			binary.LittleEndian.Uint32(dict[dc:]) == binary.LittleEndian.Uint32(src[p:]) {
			for p > anchor && dc > 0 && src[p-1] == dict[dc-1] {
				p--
				dc--
			}
			off, m = dl-dc+p, minMatch+dictMatchLen(dict, dc+minMatch, src, p+minMatch, matchLimit)
		} else {
			p += 1 + (p-anchor)>>skipShift
			continue
		}
		dst = appendSequence(dst, src[anchor:p], off, m)
		p += m
		anchor = p
		if p-2+8 <= n {
			table[hash6(src, p-2)>>(64-hashLog)] = int32(p - 2 + 1)
		}
	}
	return appendSequence(dst, src[anchor:n], 0, 0)
}
