// Package shapeshift stores an int64 column as chunks that each pick their
// own encoding ("form"), after Druid's shape-shifting columns (PR #6016):
// zero and constant chunks cost a byte or nine, sorted chunks store
// bit-packed deltas, sparse chunks store exceptions, repetitive chunks are
// run-length or LZ4 coded, and everything else is frame-of-reference packed.
// Unlike Druid's, the format is one deterministic pure-Go byte layout.
//
// Float columns (EncodeFloat64, EncodeFloat32) hold float64 or float32
// values bit for bit (-0, infinities, subnormals, every NaN payload). Each
// chunk takes the smallest of three float forms: Decimal, ALP's decimal
// transform (Afroozeh, Kuffo and Boncz, "ALP: Adaptive Lossless
// floating-Point Compression", SIGMOD 2024) whose integers are stored as an
// integer chunk of any form above or Huffman (an entropy code of offsets
// or deltas), so that a smooth or repetitive series gets Delta,
// PatchedDelta or Huffman where ALP itself only bit-packs; FrontBits, ALP_rd's split
// of each bit pattern into a dictionary-coded front and a back stored as an
// integer chunk, for doubles that are not short decimals (coordinates,
// results of arithmetic); and Raw.
//
// Encode picks each chunk's form from cheap per-chunk metrics (min, max,
// runs, longest run, min and max delta, a histogram of value widths for
// exception counts, and a repeated-pair count that gates the LZ4 trial):
// every form's size is computed exactly from them, multiplied by a speed
// factor for the Target (see factors.go), and the lowest score wins. Only
// LZ4 is trial-encoded; Huffman's size is computed from the code it would
// build. Decode decodes a whole column; Open validates a column once so
// that Column.Get cannot fail.
//
// # Format (versions 1 and 2: integer columns)
//
// All fixed-width integers are little-endian. uvarint is encoding/binary's
// unsigned varint. Version 2 adds one form, PatchedDelta (id 9), and with
// it a tenth composition entry; nothing else differs. Encode writes version
// 2 only for a column that has a PatchedDelta chunk, so every column that
// version 1 can hold is still written byte for byte as version 1.
//
//	column := version u8 (1 or 2)
//	          count uvarint            number of values, <= MaxLen (2^28)
//	          k u8                     log2 of values per chunk, 8..16
//	          composition [F]uvarint   chunks per form, in form id order
//	                                   0..F-1; F = 9 (version 1), 10 (version 2)
//	          ends [nChunks]u32        end of each chunk, relative to data
//	          data                     the chunks, back to back
//	          crc u32                  CRC-32C (Castagnoli) of all bytes before it
//
// nChunks = ceil(count / 2^k); every chunk holds 2^k values except the last,
// which holds the rest. Chunk c spans data[ends[c-1]:ends[c]] (ends[-1] = 0);
// ends are strictly increasing and the last equals len(data). A chunk is a
// form byte followed by the form's payload. In the payloads, "min" is an
// int64, "offsets" are min-relative values taken as uint64 (value - min with
// two's-complement wrap-around, so a range may span the whole int64 line),
// and n is the chunk's value count.
//
//	form          id  payload
//	Zero           0  (none)                                       every value is 0
//	Constant       1  value i64                                    every value equals it
//	BytePack       2  min i64 | w u8 (1..8) | n*w bytes | 8-w zero bytes
//	BitPack        3  min i64 | b u8 (1..64) | bits(n, b)
//	Delta          4  first i64 | dmin i64 | b u8 (0..64) | bits(n-1, b)
//	RunLength      5  min i64 | runs-1 u16 | vw u8 (1..8) | lw u8 (1..2) |
//	                  runs*lw bytes lengths-1 | runs*vw bytes values | 8-vw zero bytes
//	Patched        6  min i64 | b u8 (0..63) | hb u8 (1..64-b) | e u16 (1..n-1) |
//	                  bits(n, b) low parts | e*u16 positions | bits(e, hb) high parts
//	LZ4            7  min i64 | w u8 (1..8) | LZ4 block decompressing to the n*w bytes
//	                  that BytePack would store (without its padding)
//	Raw            8  n*i64
//	PatchedDelta   9  first i64 | dmin i64 | b u8 (0..63) | hb u8 (1..64-b) |
//	                  e u16 (1..n-2) | bits(n-1, b) low parts | e*u16 positions |
//	                  bits(e, hb) high parts                       (version 2)
//
// bits(n, b) is n fields of b bits: field j occupies stream bits
// [j*b, j*b+b), stream bit i being bit i%8 of byte i/8 (least significant
// first), zero-padded to a multiple of 8 bytes, ceil(n*b/64)*8 bytes in all.
// The padding lets readers load whole little-endian words: BytePack and
// RunLength pad so that the last w-byte field can be read with one 8-byte
// load.
//
// Decoding, per form: BytePack and BitPack value j = min + field j. Delta
// value 0 = first, value j = value j-1 + dmin + field j-1. RunLength repeats
// min + value r for length r + 1 values, run after run; the lengths must sum
// to n. Patched value j = min + low field j, then for exception x at
// (strictly increasing) position p: value p += high field x << b. LZ4 is
// BytePack after decompression. PatchedDelta is Delta whose delta j is
// dmin + low field j, plus high field x << b when exception x is at
// (strictly increasing) position j < n-1; it is for sorted chunks whose
// deltas are mostly narrow with rare wide jumps (TPC-H order keys: deltas
// 0, 1 and 25). All arithmetic wraps.
//
// Form ids are part of the format and are never reused. Open and Decode
// check, in this order, the checksum, the header, the ends, every chunk's
// length against its form and n, and the content that lengths cannot vouch
// for (run lengths, exception positions, the LZ4 block, BytePack padding);
// any failure is an error wrapping ErrCorrupt.
//
// # Worked examples
//
// Each example is one chunk body, form byte first (TestDocExamples checks
// these bytes).
//
// Zero, [0 0 0 0]:
//
//	00
//
// Constant, [7 7 7 7]:
//
//	01 | 07 00 00 00 00 00 00 00
//
// BytePack, [1000 1001 1300 1002]: min 1000, offsets 0 1 300 2 fit in w=2:
//
//	02 | e8 03 00 00 00 00 00 00 | 02 | 00 00  01 00  2c 01  02 00 | 00 00 00 00 00 00
//
// BitPack, [3 5 4 10]: min 3, offsets 0 2 1 7 in b=3 bits: 000 010 001 111
// at stream bits 0, 3, 6, 9, so byte 0 = 0x50 (bits 4 and 6) and byte 1 =
// 0x0e (stream bits 9..11), padded to one word:
//
//	03 | 03 00 00 00 00 00 00 00 | 03 | 50 0e 00 00 00 00 00 00
//
// Delta, [100 110 120 131]: first 100, deltas 10 10 11, dmin 10, fields
// 0 0 1 in b=1 bit (stream bit 2 set, byte 0x04):
//
//	04 | 64 00 00 00 00 00 00 00 | 0a 00 00 00 00 00 00 00 | 01 | 04 00 00 00 00 00 00 00
//
// RunLength, [5 5 5 9 9 5]: min 5, three runs (3x5, 2x9, 1x5), lengths-1
// 2 1 0 in lw=1 byte, offsets 0 4 0 in vw=1 byte, 7 zero bytes of padding:
//
//	05 | 05 00 00 00 00 00 00 00 | 02 00 | 01 | 01 | 02 01 00 | 00 04 00 | 00 00 00 00 00 00 00
//
// Patched, [1 0 2 1 0 900 3 1]: min 0, b=5 low bits, one exception: 900 =
// 28<<5 + 4 at position 5, high part 28 in hb=5 bits. Low fields 1 0 2 1 0
// 4 3 1 at stream bits 0, 5, 10, ... give bytes 01 88 00 c8 08:
//
//	06 | 00 00 00 00 00 00 00 00 | 05 | 05 | 01 00 | 01 88 00 c8 08 00 00 00 | 05 00 |
//	1c 00 00 00 00 00 00 00
//
// LZ4, 64 values cycling 70000 70001 70300: min 70000, w=2, BytePack body
// 00 00 01 00 2c 01 repeated (128 bytes); the LZ4 block is a 6-byte literal
// run, a 108-byte match at distance 6 (token 0x6f, length byte 0x59), and 14
// final literals (token 0xe0):
//
//	07 | 70 11 01 00 00 00 00 00 | 02 | 6f 00 00 01 00 2c 01 06 00 59
//	e0 00 00 01 00 2c 01 00 00 01 00 2c 01 00 00
//
// PatchedDelta, [100 100 101 101 126 127]: first 100, deltas 0 1 0 25 1,
// dmin 0, b=2 low bits (fields 0 1 0 1 1 at stream bits 0, 2, 4, 6, 8:
// bytes 44 01), one exception: 25 = 6<<2 + 1 at delta position 3, high
// part 6 in hb=3 bits:
//
//	09 | 64 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 00 | 02 | 03 | 01 00 |
//	44 01 00 00 00 00 00 00 | 03 00 | 06 00 00 00 00 00 00 00
//
// Raw, [-1 2]:
//
//	08 | ff ff ff ff ff ff ff ff | 02 00 00 00 00 00 00 00
//
// A whole column: 256 zeros then [3 5 4 10], k=8 (two chunks, Zero then
// the BitPack chunk above, ending at data offsets 1 and 19):
//
//	01 | 84 02 | 08 | 01 00 00 01 00 00 00 00 00 | 01 00 00 00 | 13 00 00 00 |
//	00 | 03 03 00 00 00 00 00 00 00 03 50 0e 00 00 00 00 00 00 | 94 66 90 e3
//
// # Float columns (versions 3 and 4)
//
// A float column has the integer column's layout with a width byte after
// the version and a composition of three entries, the chunk counts of the
// float forms Raw, Decimal and FrontBits, in that order:
//
//	column := version u8 (3 or 4) | width u8 (8: float64, 4: float32) |
//	          count uvarint | k u8 (8..16) | composition [3]uvarint |
//	          ends [nChunks]u32 | data | crc u32
//
// Values are handled as their bit patterns (w = width bytes, a float32's
// pattern in the low 32 bits of a 64-bit one). A float chunk is a form byte
// and its payload; "int chunk" is an integer chunk of n values exactly as
// in an integer column (form byte first, any form of ids 0..9) or, in
// version 4 only, a Huffman chunk (id 12, below), and positions are u16
// (0..n-1, strictly increasing). Version 4 differs from version 3 in
// nothing else; EncodeFloat64 and EncodeFloat32 write version 4 only for a
// column that has a Huffman chunk, so a column without one keeps its
// version 3 bytes.
//
//	form       id  payload
//	Raw         8  n*w bytes: the bit patterns, little-endian
//	Decimal    10  e u8 (0..18) | f u8 (0..18) | x u16 (0..n-1) |
//	               x*u16 positions | x*w bytes exception values | int chunk
//	FrontBits  11  l u8 (1..16) | d u8 (1..8) | d*u16 dictionary | x u16 (0..n-1) |
//	               x*u16 positions | x*u16 exception fronts | ilen u32 |
//	               int chunk of indexes (ilen bytes) | int chunk of backs
//
// Decimal: value j is decimal(x_j) = (float64(x_j) * 10^f) * 10^-e, with
// x_j the int chunk's value j, 10^f the exact double, 10^-e the double
// nearest 10^-e (what Go's constant 1e-e is), each multiplication rounded
// to a double, then narrowed to float32 in a float32 column; the value at
// exception position p is the exception's bit pattern instead (the int
// chunk holds some integer there, which is ignored). FrontBits: with
// r = 8w-l, value j's bit pattern is dictionary[index_j] << r | back_j;
// at exception position p the front is the exception front instead of the
// dictionary entry. Every index is below d, every back below 2^r, every
// dictionary entry and exception front below 2^l.
//
// The encoder picks each chunk's exponent e and factor f from a sample
// (pickDecimal): x = round(v * 10^e * 10^-f) is kept when decimal(x) gives
// v's exact bit pattern back, and every value that does not is an
// exception, so any e and f decode correctly and only the size depends on
// the choice. It tries FrontBits when Decimal leaves more than 8w-16 bits
// per value, with the cut l and the dictionary (the most frequent fronts)
// from the same sample, and keeps the smallest of Decimal, FrontBits and
// Raw.
//
// Decimal, [20.5 20.25 20.75 21 21.25 21.5 -0 21.75], a whole float64
// column: e=14, f=12 (x = v*100), one exception (-0 does not come back
// from x = 0) at position 6, and the integers 2050 2025 2075 2100 2125 2150
// 2150 2175 (the exception repeats its predecessor) as a BitPack int chunk,
// min 2025 and 8-bit offsets 25 0 50 75 100 125 125 150:
//
//	03 | 08 | 08 | 0a | 00 01 00 | 21 00 00 00 |
//	0a | 0e | 0c | 01 00 | 06 00 | 00 00 00 00 00 00 00 80 |
//	03 e9 07 00 00 00 00 00 00 08 19 00 32 4b 64 7d 7d 96 | 03 54 00 b0
//
// FrontBits, [1/3 2/3 -1/3 1/3] (bit patterns 3fd5555555555555,
// 3fe5555555555555, bfd5555555555555, 3fd5555555555555), one chunk: l=16,
// dictionary 3fd5 3fe5 bfd5 (most frequent first), no exception, indexes
// 0 1 2 0 as a BitPack int chunk of 2 bits (18 bytes), backs all
// 0x555555555555 as a Constant int chunk:
//
//	0b | 10 | 03 | d5 3f e5 3f d5 bf | 00 00 | 12 00 00 00 |
//	03 00 00 00 00 00 00 00 00 02 24 00 00 00 00 00 00 00 |
//	01 55 55 55 55 55 55 00 00
//
// # Huffman int chunks (version 4)
//
// A Huffman chunk codes each value's residual with a canonical Huffman
// code (lengths up to 11 bits) over symbols that are literals (residuals
// listed in the chunk) or buckets (all residuals of one bit length):
//
//	Huffman  12  mode u8 (0: offsets, 1: deltas) | base i64 | nl u8 | nb u8 (0..47) |
//	             slen [4]u16 | literals: nl uvarints | lengths: (nl+nb) u4 |
//	             4 code streams (slen[k] bytes each) | bucket bits
//
// Mode 0: r = n residuals, residual j = value j - base (taken as uint64,
// base being the minimum); mode 1: r = n-1 residuals, residual j is the
// zigzag of value j+1 - value j (d<<1 ^ d>>63) and value 0 = base. Symbol s
// is literal s for s < nl and bucket c = s-nl otherwise. The literals are
// strictly increasing: the first is stored as itself, each next one as
// its difference from the previous minus one. Bucket 0 is residual 0,
// bucket 1 residual 1, bucket c >= 2 the residuals 2^(c-1) + (c-1 bits)
// in [2^(c-1), 2^c), the c-1 bits below the leading one stored in the
// bucket bits. Each symbol's code length is 4 bits (0: unused, 1..11), two
// a byte, the lower nibble first; at least two are not 0, and the lengths
// make a complete code (the sum of 2^-length is 1). The canonical code
// numbers the symbols by length, then symbol number, each code the
// previous one plus one, shifted left when the length grows (DEFLATE's
// codes); each code is stored first bit first.
//
// Stream k (0..3) holds the codes of residuals [k*r/4, (k+1)*r/4) in
// order; the bucket bits hold, for every residual in order that is in a
// bucket c >= 2, its c-1 low bits. Bits fill bytes from the least
// significant bit; each stream and the bucket bits end with the byte of
// their last bit, zero-padded, and the bucket bits end the chunk. Codes
// are split in four streams so that a decoder can follow more than one
// chain of table lookups at a time.
//
// Huffman, [7 7 8 7 9 7 7 20] as offsets from 7 (residuals 0 0 1 0 2 0 0
// 13), no literals, buckets 0..4 with code lengths 1 3 3 0 2 (codes: bucket
// 0 "0", bucket 4 "10", bucket 1 "110", bucket 2 "111"); streams of two
// residuals each: 00, 110 0, 111 0, 0 10 (bytes 00 03 07 02); bucket bits:
// 0 for residual 2 (bucket 2) and 101 for 13 (bucket 4), byte 0a:
//
//	0c | 00 | 07 00 00 00 00 00 00 00 | 00 | 05 | 01 00 01 00 01 00 01 00 |
//	31 03 02 | 00 | 03 | 07 | 02 | 0a
//
// Huffman, [500 505 505 500 495 500 505 505 510] as deltas (5 0 -5 -5 5
// 5 0 5, zigzag 10 0 9 9 10 10 0 10), literals 0 9 10 (stored 0, 8, 0)
// with code lengths 2 2 1 (codes: 10 "0", 0 "10", 9 "11"), no buckets and
// so no bucket bits:
//
//	0c | 01 | f4 01 00 00 00 00 00 00 | 03 | 00 | 01 00 01 00 01 00 01 00 |
//	00 08 00 | 22 01 | 02 | 0f | 00 | 01
//
// The encoder tries Huffman for the integer chunks of float columns, with
// both modes, with and without literals (the up to 64 most frequent
// residuals seen twice or more), and keeps it when its score is the
// lowest, as for any other form.
//
// # Reading
//
// Column.Get reads every chunk with one unaligned 8-byte load, a shift and
// a mask. Zero, Constant, BytePack, Raw and BitPack chunks are read in
// place, except the last fields of a column (too close to its end for an
// 8-byte load), which Open copies with padding. Open decodes every other
// chunk once (it has to, to validate it) and keeps it frame-of-reference
// byte-packed, as it does BitPack chunks of 57..63 bits (whose fields can
// span 9 bytes); this costs w bytes of memory per such value, w being the
// bytes its chunk's value range needs. Get never allocates or mutates the
// Column.
//
// FloatColumn.Get reads a chunk's integer chunks the same way, after one
// bit test in a bitmap of the chunk's exception positions (built by
// OpenFloat64 for the chunks that have exceptions; an exception is found
// by binary search), then multiplies (Decimal) or looks the front up
// (FrontBits).
package shapeshift
