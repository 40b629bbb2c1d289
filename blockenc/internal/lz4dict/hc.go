package lz4dict

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Compression levels for Compressor.Level. Levels are not part of the
// format (every level writes plain LZ4 blocks), only of the API.
const (
	// LevelFast is greedy single-hash matching, the zero value.
	LevelFast = 0
	// LevelHC is the default high-compression level: hash chains searched
	// 256 candidates deep, lazy matching (LZ4HC's default depth).
	LevelHC = 9
	// LevelOpt is the first optimal-parse level: 10, 11 and 12 find the
	// longest match at every position (256, 512 and 1024 candidates deep)
	// and choose the cheapest path through them (see compressOpt).
	LevelOpt = 10
	// LevelMax is the highest level; higher values are treated as it.
	LevelMax = 12
)

const (
	hcHashLogMin = 10
	hcHashLogMax = 16
	hcWindowLog  = 16 // the chain table never needs more than one entry per window position
	hcPrime4     = 2654435761
	// hcLazyMax: a match at least this long is taken without looking one
	// or two bytes further for a longer one. Measured at level 9 on the 64
	// KiB test data, 14 against 64: keys 20101 vs 20792 bytes, text 19171
	// vs 19253, comments and dates equal within 0.1%, and 1.3..4x faster
	// (12, 16 and 24 were each worse on one set or more).
	hcLazyMax = 14
	// hcSkipShift: after 1<<hcSkipShift bytes without a match the scan
	// takes steps of 2, then 3... (random data: 80 -> 2200 MB/s; no
	// measurable size change on the text-like test data).
	hcSkipShift = 8
)

// lazyDictLen returns, for HC level 1..LevelOpt-1 with a prepared Dict,
// the match length below which the lazy search one byte after a match
// looks in the dictionary too (the search two bytes after it never does):
// 0 (never) up to level 4, then 2*level-4, so 14 = hcLazyMax (always) at
// level 9. Chosen on 1 KiB sub-blocks of lineitem-like values against
// 64 KiB of others, with the thresholds varied by hand at a fixed level
// (BenchmarkCompressDictLevels reports ratio and speed per level; it does
// not vary the threshold): the dictionary search in the lazy steps took
// 40% of the time when done at both, and searching it two bytes on as
// well found no smaller output; at one byte on, always against never:
// 2.7% smaller output for 1.4x the time, below 6 bytes half of that gain
// for 1.1x.
func lazyDictLen(level int) int {
	if level <= 4 {
		return 0
	}
	return 2*level - 4
}

// hcDepth returns the number of chain candidates searched per position at
// HC level 1..LevelOpt-1: 1<<(level-1).
func hcDepth(level int) int { return 1 << (level - 1) }

// optParams returns the chain depth and the length taken without further
// search (nice) for optimal-parse level LevelOpt..LevelMax.
func optParams(level int) (depth, nice int) {
	i := level - LevelOpt
	return 256 << i, 64 << i
}

// noMatch is the position hcMatcher.find returns when it finds no match
// (positions in a Dict are negative: see hcMatcher).
const noMatch = math.MinInt

// hcMatcher finds the longest earlier match for a position of buf through
// hash chains, and with a prepared Dict in its suffix array too. head maps
// the hash of 4 bytes to the latest position with
// that hash (+1, 0 = none), chain[pos&mask] holds the distance from pos to
// the previous position with the same hash (capped at maxOffset, which ends
// the chain since the search never reaches that far back). Positions are
// inserted in order, lazily, just before a search at a later position; a
// chain entry is read only for a position less than maxOffset behind the
// search, which no later insertion has overwritten yet (mask+1 is at least
// min(len(buf), 65536)).
type hcMatcher struct {
	buf   []byte
	head  []int32
	chain []uint16
	mask  int
	shift uint // 32 - hash log
	next  int  // positions below next are inserted
	depth int  // candidates tried per search
	limit int  // matches end at or before limit (the last 5 bytes are literals)

	// A prepared Dict whose bytes precede buf: its suffix array, searched
	// after buf's chains (findDict). A match in it is returned at position
	// i - len(dict) for dictionary byte i (negative), so that offsets
	// are p - position as for matches in buf.
	dict []byte
	dsa  *suffixIndex // the dictionary's suffix array (Dict.suffixes)
	// light: buf is at most 1/lightShare of the dictionary's size, and
	// find searches it with findHead (no chains).
	light bool
}

// lightShare: an input at most 1/lightShare the size of its prepared Dict
// is searched by findHead. Larger inputs hold more matches of their own
// that the dictionary lacks (20,000 bytes of TestDictRoundTrip's keys
// against its 64 KiB of text: 13% larger without chains), so they keep
// the chains.
const lightShare = 16

// at returns the byte at position v: buf[v], or for negative v the
// dictionary's byte len(dict)+v.
func (m *hcMatcher) at(v int) byte {
	if v >= 0 {
		return m.buf[v]
	}
	return m.dict[len(m.dict)+v]
}

// insertUpTo inserts the positions up to p (exclusive) into the chains.
// Every inserted position i has i+4 <= len(buf).
func (m *hcMatcher) insertUpTo(p int) {
	buf, head, chain := m.buf, m.head, m.chain
	for i := m.next; i < p; i++ {
		h := binary.LittleEndian.Uint32(buf[i:]) * hcPrime4 >> m.shift
		// head[h] is the previous position + 1; the distance is i - prev.
		chain[i&m.mask] = uint16(min(i+1-int(head[h]), maxOffset))
		head[h] = int32(i + 1)
	}
	m.next = max(m.next, p)
}

// find returns the longest match for position p that is longer than best
// bytes and ends at or before m.limit, as its length and the position it
// copies from, or (best, noMatch) if there is none within m.depth
// candidates in buf and then (with dict) in the dictionary. Among
// equally long matches in buf the nearest wins; the dictionary's match
// replaces buf's only when longer. It needs p+mfLimit <= len(buf) and
// best >= minMatch-1.
func (m *hcMatcher) find(p, best int, dict bool) (int, int) {
	maxLen := m.limit - p
	if best >= maxLen {
		return best, noMatch
	}
	found := noMatch
	if m.light {
		best, found = m.findHead(p, best)
	} else {
		best, found = m.findChain(p, best, maxLen)
	}
	if !dict || m.dict == nil || best >= maxLen {
		return best, found
	}
	if l, dc := m.findDict(p, best); dc != noMatch {
		return l, dc
	}
	return best, found
}

// findChain is find's search of buf through the hash chains, depth
// candidates deep (best < maxLen = m.limit-p).
func (m *hcMatcher) findChain(p, best, maxLen int) (int, int) {
	m.insertUpTo(p)
	buf := m.buf
	first := binary.LittleEndian.Uint32(buf[p:])
	// A candidate can only beat best if it matches the 4 bytes ending at
	// byte best too: p+best+1 <= m.limit, so the load is in buf.
	tail := binary.LittleEndian.Uint32(buf[p+best-3:])
	found := noMatch
	h := first * hcPrime4
	cand := int(m.head[h>>m.shift]) - 1
	for try := m.depth; try > 0 && cand >= 0 && p-cand <= maxOffset; try-- {
		if binary.LittleEndian.Uint32(buf[cand+best-3:]) == tail &&
			binary.LittleEndian.Uint32(buf[cand:]) == first {
			if l := minMatch + matchLen(buf, cand+minMatch, p+minMatch, m.limit); l > best {
				best, found = l, cand
				if l >= maxLen {
					break
				}
				tail = binary.LittleEndian.Uint32(buf[p+best-3:])
			}
		}
		cand -= int(m.chain[cand&m.mask])
	}
	return best, found
}

// findHead is find's search of buf against a prepared Dict at least
// lightShare times the size of buf (m.light): buf's own earlier bytes are
// looked up in head alone, which holds for each hash the last position
// searched (as the fast level's table does), not in chains of every
// position. The inputs compressed against a Dict are short beside it (1
// KiB sub-blocks against 64 KiB), so the dictionary holds most of their
// matches: on lineitem values at level 9, the chains' inserts and walks
// took 22% of the time and made the output 0.09% smaller (1 KiB
// sub-blocks; 0.22% at 4 KiB). An input that repeats itself still finds
// those repeats, through head.
func (m *hcMatcher) findHead(p, best int) (int, int) {
	buf := m.buf
	first := binary.LittleEndian.Uint32(buf[p:])
	h := first * hcPrime4 >> m.shift
	cand := int(m.head[h]) - 1
	m.head[h] = int32(p + 1)
	// cand == p when the lazy steps searched p before.
	if cand >= 0 && cand < p && p-cand <= maxOffset && binary.LittleEndian.Uint32(buf[cand:]) == first {
		if l := minMatch + matchLen(buf, cand+minMatch, p+minMatch, m.limit); l > best {
			return l, cand
		}
	}
	return best, noMatch
}

// matchLen returns how many bytes from buf[a:] equal those from buf[b:],
// a < b, counting no further than buf[limit-1] on the b side.
func matchLen(buf []byte, a, b, limit int) int {
	n := 0
	for b+n+8 <= limit {
		if x := binary.LittleEndian.Uint64(buf[a+n:]) ^ binary.LittleEndian.Uint64(buf[b+n:]); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for b+n < limit && buf[a+n] == buf[b+n] {
		n++
	}
	return n
}

// matcher returns an hcMatcher over buf with emptied chains, its tables
// kept in c, and d's suffix array if d is not nil.
func (c *Compressor) matcher(buf []byte, depth int, d *Dict) hcMatcher {
	n := len(buf)
	hashLog := min(max(bits.Len(uint(n)), hcHashLogMin), hcHashLogMax)
	head := sized(&c.hcHead, 1<<hashLog)
	clear(head)
	chainLog := min(bits.Len(uint(n-1)), hcWindowLog)
	m := hcMatcher{
		buf:   buf,
		head:  head,
		chain: sized(&c.hcChain, 1<<chainLog),
		mask:  1<<chainLog - 1,
		shift: uint(32 - hashLog),
		depth: depth,
		limit: n - lastLiterals,
	}
	if d != nil {
		m.dict = d.b
		m.dsa = d.suffixes()
		m.light = n*lightShare <= len(d.b)
	}
	return m
}

// compressHC is the high-compression parse of buf[start:], matching back
// into buf[:start] and, if d is not nil, into d (start is then 0),
// searching depth chain candidates per position; the lazy search one byte
// after a match shorter than lazyDict looks in d too (lazyDictLen).
func (c *Compressor) compressHC(dst, buf []byte, start, depth int, d *Dict, lazyDict int) []byte {
	n := len(buf)
	if n-start < mfLimit {
		return appendSequence(dst, buf[start:], 0, 0)
	}

	m := c.matcher(buf, depth, d)
	return parseHC(dst, &m, start, lazyDict)
}

// parseHC is compressHC's parse of m.buf[start:] with the matcher m.
func parseHC(dst []byte, m *hcMatcher, start, lazyDict int) []byte {
	buf := m.buf
	n := len(buf)
	lo := -len(m.dict) // matches start at or after position lo

	anchor, p := start, start
	for p+mfLimit <= n {
		ml, cand := m.find(p, minMatch-1, true)
		if cand == noMatch {
			// Misses accelerate the scan past incompressible runs, and
			// the positions skipped stay out of the chains.
			if step := 1 + (p-anchor)>>hcSkipShift; step > 1 {
				if !m.light {
					m.insertUpTo(p + 1)
					m.next = p + step
				}
				p += step
			} else {
				p++
			}
			continue
		}
		// Lazy matching: a match starting one or two bytes later wins if
		// it is longer by more than the one or two literals it costs
		// (measured on the test data: requiring just "longer" gave
		// 0.1..1.5% larger output). Repeat from the winner. The
		// dictionary is searched only one byte on, and only after a
		// match shorter than lazyDict.
		for ml < hcLazyMax {
			if q := p + 1; q+mfLimit <= n {
				if ml1, c1 := m.find(q, ml+1, ml < lazyDict); c1 != noMatch {
					p, ml, cand = q, ml1, c1
					continue
				}
			}
			if q := p + 2; q+mfLimit <= n {
				if ml2, c2 := m.find(q, ml+2, false); c2 != noMatch {
					p, ml, cand = q, ml2, c2
					continue
				}
			}
			break
		}
		// Extend backwards over pending literals.
		for p > anchor && cand > lo && buf[p-1] == m.at(cand-1) {
			p--
			cand--
			ml++
		}
		dst = appendSequence(dst, buf[anchor:p], p-cand, ml)
		p += ml
		anchor = p
	}
	return appendSequence(dst, buf[anchor:n], 0, 0)
}

// compressHCDict is compressHC of src against d's suffix array at HC
// level level.
func (c *Compressor) compressHCDict(dst, src []byte, d *Dict, level int) []byte {
	return c.compressHC(dst, src, 0, hcDepth(level), d, lazyDictLen(level))
}
