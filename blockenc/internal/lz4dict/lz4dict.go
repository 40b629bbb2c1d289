// Package lz4dict is an LZ4 block compressor that can match into a preset
// dictionary, which pierrec/lz4/v4 cannot do (it only decompresses with one,
// through UncompressBlockWithDict). Its output is the plain LZ4 block format
// and is checked against pierrec's decoder in tests and fuzzing; kvenc uses
// it for LZ4Dict blocks (Lucene LUCENE-9447: the first part of a block is the
// dictionary for the sub-blocks after it).
//
// # Format
//
// The output is a standard LZ4 block: a run of sequences
//
//	token u8 | [literal length: 255-bytes + remainder] | literals | offset u16 LE | [match length: 255-bytes + remainder]
//
// where the token's high nibble is the literal length (15 = more follows) and
// its low nibble the match length minus 4. With a dictionary, an offset may
// reach back past the start of the output into the end of the dictionary, as
// if the dictionary preceded the output. The rules of the LZ4 specification
// are kept: offsets are 1..65535, the last match starts at least 12 bytes
// before the end of the input, the last 5 bytes are literals, and the final
// sequence has no match part.
//
// # Algorithm
//
// Compressor.Level picks the parse. Every level matches into the dictionary
// exactly as into earlier input, writes the same format, and stays within
// CompressBound; the decoder cannot tell them apart.
//
//	Level                  parse                  chain depth       64 KiB TPC-H-like comments
//	0 LevelFast (zero)     greedy, 6-byte hash    -                 ratio 0.372
//	1..9 (LevelHC = 9)     hash chains, lazy      1<<(Level-1)      9: ratio 0.253, 1/30 of fast's speed
//	10..12 (LevelOpt=10)   hash chains, optimal   256<<(Level-10)   10: ratio 0.246, 1/5 of level 9's speed
//
// (pierrec/lz4/v4 on the same data: fast 0.371, HC at depth 256 0.255 at
// about twice level 9's speed; see BenchmarkCompress for the other data sets.)
//
// LevelFast: greedy single-hash matching, like LZ4's fast mode: a table maps
// the hash of 6 bytes to the last position seen; every dictionary position
// is inserted first, then the input is scanned, extending each 4-byte hit
// backwards over pending literals and forwards as far as it goes. Misses
// accelerate the scan (one byte more per 128 bytes without a match).
//
// Levels 1..9, high compression in the spirit of LZ4HC. Every position of
// the dictionary tail and the input goes into hash chains: a head table maps
// the hash of 4 bytes to the latest position, and a chain table of up to 64K
// uint16 entries (one per window position) holds the distance back to the
// previous position with the same hash. The longest match for a position is
// found by walking its chain over at most 1<<(Level-1) candidates within the
// 65535-byte window; a candidate is only compared in full when the 4 bytes
// ending at the current best length match too. Parsing is lazy: before a
// match shorter than 14 bytes is taken (longer ones are taken at once: this
// was both smaller and faster on the test data), the positions one and two
// bytes later are searched, and a
// match there replaces it when it is longer by more than the one or two
// literals it adds (the winner is checked the same way); the chosen match is
// then extended backwards over pending literals. After 256 bytes without a
// match the scan takes longer steps, and skipped positions stay out of the
// chains. LevelHC (9) is the level for blocks written once and read often.
// (A prepared Dict is searched another way: see below.)
//
// Levels 10..12: optimal parsing. The longest match is searched at every
// position (depth 256, 512, 1024), then a shortest path over the positions
// picks for each one a literal (1 byte, plus a byte each time its run
// reaches 15, 270, ...) or a match of any length from 4 to the longest (3
// bytes, plus its length bytes). An LZ4 offset always costs 2 bytes, so the
// longest match at a position is the only one worth keeping. Matches of
// 64<<(Level-10) bytes or more are taken at once. It needs 16 bytes of
// memory per input byte (inputs over 16 MiB are parsed as at level 9) and is 3..70 times slower than level 9 (the most on
// sorted keys, where level 9 takes long matches without looking ahead) for
// a further 2..7% on the test data.
//
// Prepared dictionaries (Dict, CompressBlockDict): when many inputs are
// compressed against one dictionary, copying and hashing it for every
// input costs more than the input itself (a 64 KiB dictionary for 4 KiB
// inputs). A Dict builds the dictionary's tables once, on first use at a
// level, and never changes them afterwards; a compression hashes only its
// input and, at each position, searches its own table first and then the
// dictionary's (zstd's dictMatchState), whose positions stand before the
// input's: a match may start in the dictionary and run on into the input.
// At levels 1..9, for an input at most a sixteenth of the dictionary's
// size, the input's own table holds, per hash, the last position searched
// (no hash chains: the dictionary holds most of such an input's matches);
// a larger input keeps its hash chains. Fast mode:
// the dictionary's 6-byte hash table. Levels 1..9: a
// suffix array of the dictionary (every position with 8 bytes after it,
// sorted by the bytes from there on) finds the longest match in the whole
// dictionary, at any level, in a hash lookup of the first 4 bytes and a
// binary search (comparing the suffixes' bytes 4..15 kept beside them
// before any dictionary byte), where a hash chain walk finds it only
// within its depth and spends most of its time on the dictionary's many
// candidates. A search that needs 6 bytes or more (the lazy steps, and a
// position whose input table already found 5) first probes bit sets of
// the hashes of the suffixes' first 6 and 8 bytes, and stops there when
// the bit is clear: most such searches find nothing, and the output is
// the same.
// The dictionary is searched at every position the parse searches, except
// in the lazy steps: two bytes after a match never, one byte after it at
// levels 5..9 when the match is shorter than 2*Level-4 bytes. Levels 10..12
// compress as CompressBlock does with the dictionary's bytes.
//
// Memory: fast mode keeps a copy of dictionary+input and up to 256 KiB of
// hash table; levels 1..12 add up to 256 KiB of chain heads and 128 KiB of
// chain. All of it is kept in the Compressor, so a reused one allocates
// nothing. A Dict adds 128 KiB for the fast level's table and, for the HC
// levels, 14 bytes per dictionary byte for the suffix array and the
// bytes 4..15 of each suffix, plus 16 to 32 bytes per distinct 4-byte
// string in it for their hash table and 256 KiB for the two bit sets
// (64 KiB of text: about 1.4 MiB, built by prefix doubling), each built
// when first used.
package lz4dict

import (
	"encoding/binary"
	"math/bits"
)

const (
	minMatch     = 4
	maxOffset    = 65535
	lastLiterals = 5  // the last 5 bytes are always literals
	mfLimit      = 12 // the last match starts at least 12 bytes before the end
	maxHashLog   = 16
	minHashLog   = 8
	skipShift    = 7 // one more byte of stride per 128 bytes without a match
	prime6       = 227718039650203
)

// MaxDictLen is the largest dictionary prefix a match can reach: offsets are
// at most 65535, so bytes further back than that are never used.
const MaxDictLen = maxOffset

// CompressBound returns the largest output CompressBlock can produce for n
// input bytes (the LZ4 bound: every byte a literal, plus length bytes and a token).
func CompressBound(n int) int { return n + n/255 + 16 }

// Compressor compresses LZ4 blocks, optionally against a dictionary. Its zero
// value is ready to use and compresses in fast mode; reuse one to keep its
// buffers (CompressBlock then allocates nothing). Not safe for concurrent
// use.
type Compressor struct {
	// Level selects the parse (see the package doc): LevelFast (0, the
	// zero value) is greedy single-hash matching; 1..9 is the
	// high-compression mode, hash chains searched 1<<(Level-1) candidates
	// deep with lazy matching (LevelHC, 9, is the usual choice: depth 256);
	// LevelOpt..LevelMax (10..12) parse optimally. Negative levels are
	// LevelFast, levels above LevelMax are LevelMax. Level only changes which
	// matches are chosen: every level writes the same format. It may be
	// changed between calls.
	Level int

	buf   []byte  // dictionary tail followed by the input
	table []int32 // fast: hash -> position in buf + 1; 0 means empty

	hcHead  []int32  // HC: hash of 4 bytes -> latest position in buf + 1; 0 means empty
	hcChain []uint16 // HC: position & mask -> distance to the previous position with the same hash

	opt     []optNode  // optimal parse: one node per input position
	optSeqs []optMatch // optimal parse: the chosen matches, last first
}

// CompressBlock appends the LZ4 block encoding of src to dst, matching into
// dict (which may be nil), and returns the extended slice. The result decodes
// with pierrec/lz4/v4's UncompressBlockWithDict(out, dst, dict) (or
// UncompressBlock when dict is empty) into exactly src. Output may be larger
// than src for incompressible input, at most CompressBound(len(src)) bytes;
// callers that care store src raw then. The output depends only on src, dict
// and c.Level, never on earlier calls.
func (c *Compressor) CompressBlock(dst, src, dict []byte) []byte {
	if len(dict) > MaxDictLen {
		dict = dict[len(dict)-MaxDictLen:]
	}
	c.buf = append(append(c.buf[:0], dict...), src...)
	switch level := min(c.Level, LevelMax); {
	case level >= LevelOpt:
		depth, nice := optParams(level)
		return c.compressOpt(dst, len(dict), depth, nice)
	case level > LevelFast:
		return c.compressHC(dst, c.buf, len(dict), hcDepth(level), nil, 0)
	}
	return c.compressFast(dst, len(dict))
}

// emptyTable returns the fast level's hash table for an input of n bytes,
// emptied, kept in c, and its log2 size.
func (c *Compressor) emptyTable(n int) ([]int32, int) {
	hashLog := min(max(bits.Len(uint(n)), minHashLog), maxHashLog)
	table := sized(&c.table, 1<<hashLog)
	clear(table)
	return table, hashLog
}

// sized returns *buf cut to n entries, first replacing it with a new slice
// of n when it holds fewer.
func sized[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// compressFast is the greedy single-hash parse of c.buf[start:], matching
// back into c.buf[:start].
func (c *Compressor) compressFast(dst []byte, start int) []byte {
	buf := c.buf
	n := len(buf)
	table, hashLog := c.emptyTable(n)
	// Hash 6 bytes (a match is still verified on 4): on text, hashing only
	// 4 bytes let short, frequent matches evict the long ones (measured on
	// the test corpus: text 45.4 KB vs 33.7 KB with 6 bytes and 2^16 slots).
	// Every hashed position p has p+8 <= n, so the 8-byte load stays in buf.
	hash := func(p int) uint32 {
		return uint32(hash6(buf, p) >> (64 - hashLog))
	}

	for p := 0; p < start && p+8 <= n; p++ {
		table[hash(p)] = int32(p + 1)
	}

	anchor, p := start, start
	matchLimit := n - lastLiterals // a match may not cover the last 5 bytes
	for p+mfLimit <= n {
		h := hash(p)
		cand := int(table[h]) - 1
		table[h] = int32(p + 1)
		if cand < 0 || p-cand > maxOffset ||
			binary.LittleEndian.Uint32(buf[cand:]) != binary.LittleEndian.Uint32(buf[p:]) {
			p += 1 + (p-anchor)>>skipShift
			continue
		}
		// Extend backwards over pending literals, then forwards.
		for p > anchor && cand > 0 && buf[p-1] == buf[cand-1] {
			p--
			cand--
		}
		m := minMatch
		for p+m+8 <= matchLimit {
			if x := binary.LittleEndian.Uint64(buf[p+m:]) ^ binary.LittleEndian.Uint64(buf[cand+m:]); x != 0 {
				m += bits.TrailingZeros64(x) >> 3
				goto matched
			}
			m += 8
		}
		for p+m < matchLimit && buf[cand+m] == buf[p+m] {
			m++
		}
	matched:
		dst = appendSequence(dst, buf[anchor:p], p-cand, m)
		p += m
		anchor = p
		if p-2 >= start && p-2+8 <= n {
			table[hash(p-2)] = int32(p - 2 + 1)
		}
	}
	return appendSequence(dst, buf[anchor:n], 0, 0)
}

// appendSequence appends one LZ4 sequence: the literals, then a match of
// length m at offset off (m == 0: the final, literal-only sequence).
func appendSequence(dst, lit []byte, off, m int) []byte {
	ml := m - minMatch
	tok := byte(min(len(lit), 15)) << 4
	if m > 0 {
		tok |= byte(min(ml, 15))
	}
	dst = append(dst, tok)
	if len(lit) >= 15 {
		dst = appendLength(dst, len(lit)-15)
	}
	dst = append(dst, lit...)
	if m == 0 {
		return dst
	}
	dst = append(dst, byte(off), byte(off>>8))
	if ml >= 15 {
		dst = appendLength(dst, ml-15)
	}
	return dst
}

// appendLength appends an LZ4 length continuation: 255s, then the remainder.
func appendLength(dst []byte, n int) []byte {
	for n >= 255 {
		dst = append(dst, 255)
		n -= 255
	}
	return append(dst, byte(n))
}
