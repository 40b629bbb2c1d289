package lz4dict

import (
	"cmp"
	"encoding/binary"
	"math/bits"
	"slices"
)

// suffixIndex is a Dict's match finder for the HC levels, a suffix array:
//
//   - sa: the positions p of the dictionary with p+suffixKeyEnd <= its
//     length, ordered by the bytes from p to the dictionary's end (a
//     suffix that is a prefix of another sorts first);
//   - keys and more: beside each, its bytes 4..7 as a big-endian
//     uint32 and its bytes 8..15 as a big-endian uint64 (zeros past the
//     dictionary's end), so that the search through a run of suffixes
//     sharing their first 4 bytes reads no dictionary bytes until one
//     shares 16 bytes with q;
//   - groups: a hash table from each 4-byte prefix found to the run of sa
//     whose suffixes start with it (at most half full).
//
// Positions and indexes are below 65535: uint16. The suffixes sharing the
// longest prefix with any bytes q are the two on either side of the place
// where q would sort, so the longest match in the dictionary is found in
// a lookup and a binary search instead of a walk over every earlier
// position with the same hash; see findDict.
type suffixIndex struct {
	b      []byte // the dictionary
	sa     []uint16
	keys   []uint32
	more   []uint64
	groups []suffixGroup // open addressing, linear probing; n == 0: empty
	shift  uint          // 32 - log2(len(groups))
	// has6 and has8 are bit sets of the hashes (filterHash) of the first
	// 6 and 8 bytes of every suffix in sa: a clear bit proves that no
	// suffix starts with those bytes, so findDict gives up on a search
	// that needs a match of 6 bytes or more in a hash probe, before the
	// group lookup and the binary search (most of the searches one byte
	// after a match find nothing longer).
	has6, has8 []uint64
}

// filterLog is the log2 of the bits in each of a suffixIndex's filters:
// 2^20 bits for at most 65535 suffixes, so that about 6% of the bytes no
// suffix starts with pass.
const filterLog = 20

// filterMin is the shortest match length the filters decide on.
const filterMin = 6

// prime8 is the multiplier of filterHash (2^64 divided by the golden
// ratio, odd).
const prime8 = 0x9E3779B97F4A7C15

// filterHash hashes the first l bytes (6 or 8) of the little-endian
// word w to a bit of a filter.
func filterHash(w uint64, l int) uint {
	return uint((w << (64 - 8*uint(l))) * prime8 >> (64 - filterLog))
}

// mayHold reports whether a suffix may start with the first min(l, 8)
// bytes of w (l >= filterMin): false proves it does not.
func (x *suffixIndex) mayHold(w uint64, l int) bool {
	f := x.has6
	if l >= 8 {
		f, l = x.has8, 8
	} else {
		l = filterMin
	}
	h := filterHash(w, l)
	return f[h>>6]&(1<<(h&63)) != 0
}

// suffixGroup is the range sa[lo:lo+n] of the suffixes that start with the
// 4 bytes key (little-endian).
type suffixGroup struct {
	key   uint32
	lo, n uint16
}

// group returns the range of the suffixes that start with the 4 bytes key.
func (x *suffixIndex) group(key uint32) (lo, hi int) {
	mask := len(x.groups) - 1
	for h := int(key * hcPrime4 >> x.shift); ; h = (h + 1) & mask {
		g := x.groups[h]
		if g.n == 0 {
			return 0, 0
		}
		if g.key == key {
			return int(g.lo), int(g.lo) + int(g.n)
		}
	}
}

// suffixKeyEnd: the suffix array holds the suffixes of at least this many
// bytes (a match that starts in the dictionary's last 7 bytes is not
// found), and keeps their bytes from minMatch to it beside the positions.
const suffixKeyEnd = 8

// suffixMoreEnd: a suffixIndex keeps every suffix's bytes from
// suffixKeyEnd to it (zeros past the dictionary's end) beside its key.
const suffixMoreEnd = 16

// newSuffixIndex builds the suffix index of b (len(b) <= MaxDictLen) by
// prefix doubling: the suffixes are bucket-sorted on their first two bytes,
// then every group of suffixes that still share their first h bytes is
// sorted on the rank of the suffix h bytes on (the group its first h bytes
// put it in), which orders them on 2h bytes, with h doubling until every
// group has one suffix. Rounds: about log2 of the longest repeat in b; each
// sorts only the groups left (BenchmarkNewSuffixIndex).
func newSuffixIndex(b []byte) suffixIndex {
	n := len(b)
	idx := suffixIndex{has6: make([]uint64, 1<<(filterLog-6)), has8: make([]uint64, 1<<(filterLog-6))}
	if n < suffixKeyEnd {
		idx.groups, idx.shift = make([]suffixGroup, 1), 32
		idx.b = b
		return idx
	}
	// All n suffixes take part in the sort (a suffix's rank h bytes on
	// may be one of the shortest); only those with suffixKeyEnd bytes are
	// kept. The key of the first two bytes counts a missing second byte
	// as below every byte: key(p) = b[p]*257 + b[p+1]+1, or b[p]*257.
	const keys = 256 * 257
	key := func(p int) int {
		if p+1 < n {
			return int(b[p])*257 + int(b[p+1]) + 1
		}
		return int(b[p]) * 257
	}
	start := make([]int32, keys+1)
	for p := range n {
		start[key(p)+1]++
	}
	for k := 1; k <= keys; k++ {
		start[k] += start[k-1]
	}
	sa := make([]int32, n)
	rank := make([]int32, n) // the group of a suffix: the index its group starts at in sa
	fill := slices.Clone(start[:keys])
	for p := range n {
		k := key(p)
		sa[fill[k]] = int32(p)
		fill[k]++
		rank[p] = start[k]
	}
	// groups: the [start, end) ranges of sa whose suffixes share their
	// first h bytes and are not yet ordered.
	var groups [][2]int32
	for k := range keys {
		if start[k+1]-start[k] > 1 {
			groups = append(groups, [2]int32{start[k], start[k+1]})
		}
	}
	next := make([]int32, n) // the rank h bytes on, per index of sa, in the round
	var left [][2]int32      // the groups the round leaves
	for h := 2; len(groups) > 0; h *= 2 {
		rankAt := func(p int32) int32 {
			if int(p)+h < n {
				return rank[int(p)+h]
			}
			return -1 // the suffix ends within h bytes: it sorts first
		}
		for _, g := range groups {
			s := sa[g[0]:g[1]]
			slices.SortFunc(s, func(x, y int32) int { return cmp.Compare(rankAt(x), rankAt(y)) })
			for i, p := range s {
				next[int(g[0])+i] = rankAt(p)
			}
		}
		// Split the groups on the rank h bytes on; the new ranks are set
		// after every group of the round is sorted on the old ones.
		left = left[:0]
		for _, g := range groups {
			for i := g[0]; i < g[1]; {
				j := i + 1
				for j < g[1] && next[j] == next[i] {
					j++
				}
				for k := i; k < j; k++ {
					rank[sa[k]] = i
				}
				if j-i > 1 {
					left = append(left, [2]int32{i, j})
				}
				i = j
			}
		}
		groups, left = left, groups
	}
	// Keep the suffixes of suffixKeyEnd bytes or more with their keys,
	// and index the runs that share their first 4 bytes.
	out := make([]uint16, 0, n-suffixKeyEnd+1)
	idx.keys = make([]uint32, 0, n-suffixKeyEnd+1)
	idx.more = make([]uint64, 0, n-suffixKeyEnd+1)
	var pad [suffixMoreEnd]byte
	for _, p := range sa {
		if int(p)+suffixKeyEnd <= n {
			out = append(out, uint16(p))
			idx.keys = append(idx.keys, binary.BigEndian.Uint32(b[int(p)+minMatch:]))
			clear(pad[:])
			copy(pad[:], b[p:])
			idx.more = append(idx.more, binary.BigEndian.Uint64(pad[suffixKeyEnd:]))
			w := binary.LittleEndian.Uint64(b[p:])
			h6, h8 := filterHash(w, 6), filterHash(w, 8)
			idx.has6[h6>>6] |= 1 << (h6 & 63)
			idx.has8[h8>>6] |= 1 << (h8 & 63)
		}
	}
	runs := 0
	for i := range out {
		if i == 0 || binary.LittleEndian.Uint32(b[out[i]:]) != binary.LittleEndian.Uint32(b[out[i-1]:]) {
			runs++
		}
	}
	log := max(4, bits.Len(uint(2*runs-1)))
	idx.groups = make([]suffixGroup, 1<<log)
	idx.shift = uint(32 - log)
	mask := len(idx.groups) - 1
	for i := 0; i < len(out); {
		key := binary.LittleEndian.Uint32(b[out[i]:])
		j := i + 1
		for j < len(out) && binary.LittleEndian.Uint32(b[out[j]:]) == key {
			j++
		}
		h := int(key * hcPrime4 >> idx.shift)
		for idx.groups[h].n != 0 {
			h = (h + 1) & mask
		}
		idx.groups[h] = suffixGroup{key: key, lo: uint16(i), n: uint16(j - i)}
		i = j
	}
	idx.sa, idx.b = out, b
	return idx
}

// suffixCmp compares suffix with q, whose first k bytes it is known to
// share, and returns the length of their common prefix and whether the
// suffix sorts before q.
func suffixCmp(suffix, q []byte, k int) (int, bool) {
	n := min(len(suffix), len(q))
	for k+8 <= n {
		if x := binary.LittleEndian.Uint64(suffix[k:]) ^ binary.LittleEndian.Uint64(q[k:]); x != 0 {
			k += bits.TrailingZeros64(x) >> 3
			return k, suffix[k] < q[k]
		}
		k += 8
	}
	for ; k < n; k++ {
		if suffix[k] != q[k] {
			return k, suffix[k] < q[k]
		}
	}
	return k, len(suffix) < len(q)
}

// suffixWalk bounds how many suffixes out of the window findDict steps
// over on each side of the place of the searched bytes.
const suffixWalk = 8

// findDict returns the longest match for position p in the dictionary,
// longer than best, as find does (its length and position, negative), or
// (best, noMatch). With q = buf[p:m.limit]: the group of q's first 4
// bytes (none: no match); in it, the place of q (place: one binary
// search). The suffixes on either
// side of that place share the longest prefixes with q; one that starts
// too far back for an offset (65535) is passed over for the next one out,
// at most suffixWalk of them. A match that reaches the dictionary's end
// runs on into the input.
func (m *hcMatcher) findDict(p, best int) (int, int) {
	dict, buf := m.dict, m.buf
	dl := len(dict)
	q := buf[p:m.limit]
	x := m.dsa
	// A longer match shares best+1 bytes with q (best+1 <= len(q), and
	// q's first 8 bytes are in buf: p+mfLimit <= len(buf)).
	if best+1 >= filterMin && !x.mayHold(binary.LittleEndian.Uint64(buf[p:]), best+1) {
		return best, noMatch
	}
	first, end := x.group(binary.LittleEndian.Uint32(q))
	if first == end {
		return best, noMatch
	}
	sa, keys, more := x.sa[:end], x.keys[:end], x.more[:end]
	var qk uint32 // q's key (q has at least mfLimit-lastLiterals = 7 bytes)
	if len(q) >= suffixKeyEnd {
		qk = binary.BigEndian.Uint32(q[minMatch:])
	} else {
		var b [suffixKeyEnd]byte
		copy(b[:], q)
		qk = binary.BigEndian.Uint32(b[minMatch:])
	}
	// q's bytes 8..15 (qm), if it has them (else qm is never used).
	var qm uint64
	qMore := len(q) >= suffixMoreEnd
	if qMore {
		qm = binary.BigEndian.Uint64(q[suffixKeyEnd:])
	}
	lo := x.place(q, qk, qm, first, end)
	if best >= suffixKeyEnd-1 && (lo == end || keys[lo] != qk) && (lo == first || keys[lo-1] != qk) {
		return best, noMatch // no suffix shares suffixKeyEnd bytes with q
	}
	// lcp returns the length of the prefix q shares with sa[i], as the
	// search compares them.
	lcp := func(i int) int {
		if d := keys[i] ^ qk; d != 0 {
			return minMatch + bits.LeadingZeros32(d)>>3
		}
		s := int(sa[i])
		if d := more[i] ^ qm; d != 0 && qMore {
			return min(suffixKeyEnd+bits.LeadingZeros64(d)>>3, dl-s)
		}
		l, _ := suffixCmp(dict[s:], q, suffixKeyEnd)
		return l
	}
	lowest := dl + p - maxOffset // the farthest dictionary byte an offset reaches
	found := noMatch
	// take reports whether sa[i], sharing l bytes with q, is a longer
	// match in reach; if so it is the match found.
	take := func(i, l int) bool {
		s := int(sa[i])
		if s < lowest {
			return false
		}
		if s+l == dl {
			// The match runs on past the dictionary into the input.
			l += matchLen(buf, 0, p+l, m.limit)
		}
		best, found = l, s-dl
		return true
	}
	// From the place down (sa[lo-1], ...), then up (sa[lo], ...): the
	// first suffix in reach, if it shares more than best bytes.
	for i, w := lo-1, 0; w < suffixWalk && i >= first; i, w = i-1, w+1 {
		l := min(lcp(i), len(q))
		if l <= best || take(i, l) {
			break
		}
	}
	for i, w := lo, 0; w < suffixWalk && i < end; i, w = i+1, w+1 {
		l := min(lcp(i), len(q))
		if l <= best || take(i, l) {
			break
		}
	}
	return best, found
}

// place returns the place of q among the suffixes sa[first:end] that
// share its first 4 bytes (the index of the first one that does not sort
// before q), qk and qm being q's bytes 4..7 and 8..15 (findDict): one
// binary search comparing bytes 4..7 (keys), then, where they are
// equal, bytes 8..15 (more), and only where those are equal too, or
// sa[mid] or q is shorter than 16 bytes, the dictionary's bytes from the
// 16th (suffixCmp). more is zero past the dictionary's end: a difference
// there means the suffix ends first, a prefix of q. A function of its
// own, so that the loop's values stay in registers.
func (x *suffixIndex) place(q []byte, qk uint32, qm uint64, first, end int) int {
	dict := x.b
	dl := len(dict)
	sa, keys, more := x.sa[:end], x.keys[:end], x.more[:end]
	qMore := len(q) >= suffixMoreEnd
	// Every suffix in sa[lo:hi] shares min(llo, lhi) bytes with q: llo
	// with sa[lo-1], lhi with sa[hi].
	lo, hi := first, end
	llo, lhi := minMatch, minMatch
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		var l int
		var less bool
		if d := keys[mid] ^ qk; d != 0 {
			l, less = minMatch+bits.LeadingZeros32(d)>>3, keys[mid] < qk
		} else if s, d := int(sa[mid]), more[mid]^qm; d != 0 && qMore {
			l, less = suffixKeyEnd+bits.LeadingZeros64(d)>>3, more[mid] < qm
			if l >= dl-s {
				l, less = dl-s, true
			}
		} else {
			l, less = suffixCmp(dict[s:], q, max(min(llo, lhi), suffixKeyEnd))
		}
		if less {
			lo, llo = mid+1, l
		} else {
			hi, lhi = mid, l
		}
	}
	return lo
}
