// Package colblk writes and reads Columnar blocks (blockenc encoding 5):
// the cells stored column by column, as Kuzu stores strings (an index
// column, offsets and data) and Pebble v2's colblk stores keys (a
// prefix-compressed column with restarts, internal/prefixkeys). Each
// section starts with a mode byte; the Writer writes every mode the cells
// allow and keeps the smallest block. Every integer column is a shapeshift
// column (blockenc/shapeshift: own header and CRC-32C) read and written by
// internal/intcol:
//
//	            | count uv | interval uv       (restart interval)
//	keys     := 0 u8 | klen uv | kcell * count | restarts     (prefix)
//	          | 1 u8 | L uv | template (L bytes) | nvar u8 (0..8)
//	            | pos uv * nvar | column       (fixed: count values)
//	          | 2 u8 | L uv | template | packed (packed: count values;
//	                                            version 2)
//	kcell    := shared uv | slen uv | suffix | [seq vlong]
//	                                           (the seq when seqs is 0;
//	                                            every interval-th cell has
//	                                            shared = 0)
//	restarts := offset u32 * ceil(count/interval)   (in the kcells)
//	seqs     := 0 u8                           (in the kcells; prefix keys only)
//	          | 1 u8 | column                  (count seqs)
//	          | 2 u8 | column                  (count zigzag deltas of the
//	                                            seqs; version 2)
//	kinds    := 0 u8                           (every cell a Put)
//	          | 1 u8 | bitmap                  (ceil(count/8) bytes; bit i%8 of
//	                                            byte i/8 is cell i: 1 Put,
//	                                            0 Delete; spare bits 0)
//	values   := 0 u8 | column | area           (inline: count ends)
//	          | 1 u8 | w u8 (1..8) | column    (integer: count values;
//	                                            w | 0x80: count zigzag
//	                                            deltas of them, version 2)
//	          | 2 u8 | nd uv | column | column | area
//	                                           (dictionary: nd ends of the
//	                                            distinct values, then count
//	                                            indexes into them)
//	          | 3 u8 | L uv (1..32) | template | packed
//	                                           (packed: count values;
//	                                            version 2)
//	          | 4 u8 | fw u8 | fcolumn         (float: count values of
//	                                            fw &^ 0x80 = 8 or 4 bytes,
//	                                            little-endian with fw bit
//	                                            0x80, else big-endian;
//	                                            version 5)
//	          | 5 u8 | style u8 | fcolumn      (decimal text: count values,
//	                                            style 0 or 1; version 5)
//	packed   := nvar u8 (0..64) | field * nvar | column
//	field    := pos uv | base u8 | bits u8 (1..8)
//	column   := clen uv | clen bytes of a shapeshift column
//	fcolumn  := clen uv | clen bytes of a shapeshift float column (float64,
//	            or float32 for float values of 4 bytes)
//	area     := rawlen uv | alen uv | alen bytes    (the values back to
//	                                            back: value i is area[end
//	                                            i-1 : end i]; with flag bit
//	                                            0 an LZ4 block decoding to
//	                                            rawlen bytes, else alen =
//	                                            rawlen and stored)
//	          | rawlen uv | nsub uv | (sublen uv | complen uv) * nsub
//	            | data                         (flag bit 1, version 2:
//	                                            LZ4Dict sub-blocks, below)
//	          | rawlen uv | id u32 | nsub uv | (sublen uv | complen uv
//	            | crc u32) * nsub | data       (flag bits 1 and 5,
//	                                            version 4: sub-blocks
//	                                            against an external
//	                                            dictionary, below;
//	                                            version 3: no crc)
//
// Version: a block is version 1 unless it uses packed keys or values,
// zigzag delta columns or an LZ4Dict value area, which version 1 readers
// do not know; then it is version 2 (a version 1 block with any of them is
// corrupt, and so is a row block claiming version 2). A block whose value
// area is compressed against an external dictionary is version 4, flags
// 0x22 exactly (version 3 readers do not know it; a version 3 or 4 block
// with other flags is corrupt), and may use every version 2 form. Its
// trailer is the CRC-32C of the bytes before the sub-blocks' data, which
// end the block, and every sub-block's entry holds the CRC-32C of its data:
// Init checks the trailer once it has parsed the index (every byte it
// reads is then checked, the columns by their own checksums too), a move
// checks every sub-block before it decompresses it. Version 3 is the same
// area without the entry crcs and with the trailer over every byte; it
// reads.
//
// Version 5: a block whose values are float or decimal text values (modes
// 4 and 5) is version 5, flags 0 (no value area), and may use every
// version 2 form; version 4 readers do not know it. A version 5 block with
// other values, or an older block with these, is corrupt.
//
// Float values: every value has the same width, 8 or 4 bytes, and value i
// is the bit pattern of float column value i in the byte order fw says.
// The Writer tries both byte orders when a sample of the values looks like
// floats in that order (three quarters of 32 sampled values zero or of
// magnitude 1e-18 to 1e18, which integers and text seen as floats are
// not), and keeps the form when it is the smallest; shapeshift's Decimal
// float form then stores decimal readings (prices, temperatures) as small
// integers, in delta forms when they move smoothly.
//
// Decimal text values: value i is the text of float column value v_i in
// the block's style: style 0 is what strconv.FormatFloat(v, 'f', -1, 64)
// writes, an optional '-', the integer digits without leading zeros ("0"
// for none) and, when v has a fraction, '.' and the fewest fraction digits
// that name v exactly ("64.2", "0.25", "-3", "1700000000", "-0"); style 1
// is the same with ".0" after an integral value ("64.2", "-3.0", "49.0"),
// as Python's repr and the CSV writers built on it print floats. The
// Writer keeps the form when every value, parsed as a float64, is finite,
// formats back to exactly its own bytes in one style and is at most 24
// bytes, and the form is the smallest; "64.20", "+1", ".5", "1e3", "NaN"
// and values mixing "49" with "49.0" stay as they are. A move formats the
// value into a buffer of the Reader (a float format per cell, 10 to 60 ns,
// where other forms point into the block).
//
// Zigzag deltas (as the row blocks' value and seq columns):
// the column holds (d << 1) ^ (d >> 63) of d = x[i] - x[i-1] (x[-1] = 0,
// wrapping int64 arithmetic). A block of several time series has seqs
// (ingest order) and values that step evenly within a series and jump,
// often down, between series; shapeshift's own Delta forms base a chunk
// at its smallest delta, so a jump down widens every value, where zigzag
// deltas leave it one exception. The Writer writes both and keeps the
// deltas when they are an eighth smaller. Pinned by
// testdata/columnar-deltas.block (TestGoldenColumnarDeltas walks it with
// its own decoder).
//
// Fixed keys: every key of the block has length L and differs from the
// first key (the template) in at most 8 byte positions pos (increasing);
// value i of the column is key i's bytes at those positions, big-endian.
// Packed keys and values: every key (value) has length L, and the bytes
// that vary are fields: at position pos, the byte minus base (the
// smallest byte seen there) in bits bits (enough for the largest), the
// fields of one key concatenated, the first most significant, in at most
// 64 bits. Key i is the template with, from the last field back, byte pos
// = base + the low bits bits of integer i, which is then shifted right by
// bits. The fields keep the keys' order, so the packed integers of sorted
// keys ascend: lineitem keys (orderkey | linenumber) pack the line number
// into 3 bits instead of 8 and make smaller deltas; TPC-H's l_shipdate
// text ("1995-03-13", 5 digits vary in a block) packs into 14 bits where
// LZ4 left 5 bytes. The Writer writes packed keys when they are smaller
// than fixed keys, packed values when smaller than the other forms.
// SeekGE binary-searches the fixed keys; prefix keys are searched as
// RowIndex cells are.
//
// Integer values: every value has the same width w and value i is its
// big-endian unsigned integer. The Writer tries the three value forms and
// keeps the smallest: a dictionary (Kuzu's) for few distinct values, an
// integer column for fixed-width numbers, inline for the rest, with LZ4
// when the Options ask for compression and it pays. Flags: bit 0 (LZ4)
// or bit 1 (LZ4Dict), for the value area only; DedupeValues and
// IntValues are ignored (the dictionary and integer forms replace them).
//
// LZ4Dict value area (Lucene's layout, as for row blocks, but cut by
// bytes): the area's first 8 KiB are sub-block 0, compressed
// alone, and the preset dictionary of every later sub-block of
// 8 KiB (the last fewer), each one LZ4 block (complen =
// sublen: stored). Cuts ignore values: a value may span sub-blocks, and
// nothing limits its length. Init reads the index and decompresses
// nothing; a move decompresses the dictionary and the sub-blocks holding
// the value it lands on, and then knows the run of cells whose values are
// in decompressed sub-blocks, so a scan checks one range per cell and a
// cold SeekGE decompresses about 16 KiB of a
// 128 KiB area instead of all of it. Dictionary values (referenced in any
// order) are all decompressed on the first move. An area no longer than
// the dictionary is compressed as one LZ4 block (flag bit 0) instead.
//
// External dictionary (blockenc.Dict, flag bits 1 and 5, version 3): the
// area is cut every lz4area.ExtSubBlockSize (1 KiB) bytes, and every
// sub-block, the first too, is an LZ4 block whose matches may reach into
// the dictionary's bytes, or stored; id is the dictionary's CRC-32C, which
// Init compares with the dictionary it was given (frame.ErrWrongDict when
// it has none or another). A move decompresses the sub-blocks holding the
// value it lands on and nothing else. An area that does not shrink is
// stored (flags 0) instead; blockenc's package doc has a worked example.
//
// Init checks the checksum and every section (restarts increasing, ends
// non-decreasing and ending at the area's length, dictionary indexes
// below nd, integers within w bytes, fixed keys within nvar bytes; each
// range check one branch-free OR or max pass over the column, the
// culprit looked for only when it fails) and decodes the shapeshift
// columns into slices the Reader keeps across Init, so a move reads plain
// []int64 and allocates nothing, and neither does Init once the slices
// have grown (shapeshift.Open would allocate a Column per column and
// Init). The current value aliases the block, the Reader's decompressed
// area, or (integer and float values) an 8-byte buffer of the Reader, or
// (decimal text) a text buffer of the Reader; the key the
// Reader's key buffer. Size is an
// upper bound (the block with prefix keys, inline seqs and inline values,
// the ends column bounded): cut blocks by it and they come out smaller.
//
// Packed values (version 2): four dates with prefix keys "a" to "d", seqs
// 5 to 8 inline (91 bytes):
//
//	02 05 00 04 02                         version 2, Columnar, 4 cells, interval 2
//	00 10 00016105 00016206 00016307 00016408   prefix keys, seqs inline
//	00000000 08000000                      restart offsets
//	00 00                                  seqs in the kcells, all Put
//	03 0a 313939352d30332d3133             packed values, L 10, template "1995-03-13"
//	05                                     5 fields (pos, base, bits):
//	03 35 01  05 30 01  06 31 02           digit 3 from '5' in 1 bit, 5 from
//	08 30 02  09 30 03                     '0' in 1, 6 from '1' in 2, 8 in 2, 9 in 3
//	26 01 04 0a ... 91d8                   column of 38 bytes: 75 79 258 184
//	                                       ("1995-03-13" = 0 0 10 01 011 = 75)
//	.. .. .. ..                            CRC-32C
//
// Pinned by testdata/columnar-packed.block and TestGoldenColumnarPacked.
package colblk
