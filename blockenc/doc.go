// Package blockenc encodes a sorted run of cells as one data block and
// seeks in it without allocating: HBase's data block encodings (NONE,
// PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1) with our own byte layout, and a
// Columnar encoding that stores keys, seqs, kinds and values as columns.
//
// An Encoder takes cells in order (key ascending, then seq descending) and
// Finish returns the block. A Seeker reads a block: First, SeekGE and Next
// forward, Last, SeekLT and Prev backward, and Cell (or Key, Value, Seq,
// Kind). Cell returns a pointer to the Seeker's
// own current cell; it and the Key and Value slices alias the block or the
// Seeker's buffers and are valid until the next move or Init. Verify
// checks a block from elsewhere, including the order of its cells.
//
// # Choosing options
//
// DefaultOptions is RowIndex with a restart interval of 16: SeekGE is a
// binary search over restart keys and a scan of at most 16 cells, where
// the other row encodings scan from the block start (tens of times slower
// on 32 KiB blocks), and its Next is as fast as theirs. The others:
//
//	FastDiff        the smallest row encoding (RowIndex's restarts cost
//	                some bytes); for cold data that is mostly scanned
//	Columnar        keys, seqs, kinds and values as columns: cells of few
//	                distinct or fixed-format values, fixed-length keys,
//	                time series (float values of 8 or 4 bytes and decimal
//	                text like "64.2" or "49.0" become float columns)
//	None, Prefix,   HBase's layouts, kept for comparison and tests
//	Diff
//
//	Compression     LZ4 compresses the cells whole (a seek decompresses the
//	                block); LZ4Dict as 8 KiB sub-blocks against a shared
//	                dictionary (a seek decompresses the dictionary and one
//	                sub-block: faster cold seeks for a few percent of
//	                size). Cells that do not compress are stored as they
//	                are.
//	Dict            with LZ4Dict: a preset dictionary shared by many
//	                blocks (one per file, say) replaces the in-block one;
//	                the cells (Columnar: the value area) are cut into
//	                1 KiB sub-blocks, all compressed against it (smaller
//	                blocks, and a cold seek decompresses about 1 KiB).
//	                SampleDict makes one from sample values.
//	CompressionLevel 0 is LZ4's fast greedy parse; 1..9 hash-chain search,
//	                10..MaxCompressionLevel optimal parsing: smaller blocks,
//	                slower encoding, the same decoding speed.
//	DedupeValues    repeated values become back-references (few distinct
//	                values, uncompressed blocks)
//	IntValues       values of one width 1, 2, 4 or 8 as an integer column,
//	                and the seqs as a second column when that is smaller
//	                (counters, gauges, time series)
//
// Every option is off (zero) by default but Encoding and RestartInterval.
// Benchmarks: BenchmarkBlock (every encoding on three key sets),
// BenchmarkColumnar (TPC-H lineitem columns), BenchmarkLineitem,
// BenchmarkTimeSeries and BenchmarkDedupe (the options), BenchmarkRatios
// (what each option saves and costs, interleaved), and kvbench seek
// against Pebble's blocks; bench/RESULTS.md has the numbers.
//
// # Block format
//
// Fixed-width integers are little-endian. Lengths and counts are unsigned
// LEB128 varints ("uv"). Seqs are Hadoop WritableUtils vlongs (package
// vlong). Every block is
//
//	block  := version u8 | encoding u8 | flags u8 | count uv | ... | crc u32
//	crc    := CRC-32C (Castagnoli) of every byte before it (version 4:
//	          of every byte before the sub-blocks' data)
//
// Version is 1, or 2 for a Columnar block that uses a form version 1 did
// not have, or 3 for a row block compressed against a Dict (version 2
// readers do not know it), or 4 for a Columnar block compressed against a
// Dict, whose sub-blocks carry checksums of their own (version 3 readers
// do not know it; Columnar Dict blocks of version 3, without the sub-block
// checksums, still read), or 5 for a Columnar block whose values are
// floats (8 or 4 bytes, either byte order) or decimal text stored as a
// shapeshift float column (version 4 readers do not know it). The float
// column is shapeshift's version 3, or its version 4 when one of its
// integer chunks is Huffman coded; a block's version does not say which,
// and a reader whose shapeshift knows only version 3 refuses a version 4
// column as corrupt. Encoding is the Encoding id. Flags (never
// reuse a bit):
//
//	bit 0  LZ4: the cells (Columnar: the value area) are one LZ4 block
//	bit 1  LZ4Dict: LZ4 sub-blocks against a preset dictionary
//	bit 2  value dedupe: value lengths doubled, odd ones back-references
//	bit 3  value column: the values as an integer column
//	bit 4  seq column: the seqs as an integer column (only with bit 3)
//	bit 5  with bit 1: the sub-blocks against an external dictionary
//	       (a Dict), whose ID the block holds; versions 3 and 4 only
//	bits 6-7 are reserved; bits 0 and 1 exclude each other, as do 2 and 3.
//	Columnar blocks use bits 0, 1 and 5 only.
//
// A row block (encodings 0-4; internal/rowblk has the details) is
//
//	row      := header | [values] | [seqs] | cells | [restarts] | crc
//	header   := 1 u8 | encoding u8 | flags u8 | count uv | [interval uv]
//	cells    := cell * count, or with bit 0 rawlen uv | LZ4 block, or with
//	            bit 1 nsub uv | sub-block index and data (internal/lz4area),
//	            or with bits 1 and 5 id u32 | nsub uv | index and data
//	restarts := offset u32 * ceil(count/interval)   (RowIndex)
//	values   := mode u8 | clen uv | shapeshift column  (bit 3)
//	seqs     := mode u8 | clen uv | shapeshift column  (bit 4)
//
// with one cell layout per encoding ([x]: present when its flag says so):
//
//	None      klen uv | vlen uv | key | value | kind u8 | seq vlong
//	Prefix    shared uv | slen uv | vlen uv | suffix | value | kind u8 | seq
//	RowIndex  Prefix; every interval-th cell whole (shared 0), at the
//	          offsets of the restart array
//	Diff      flags u8 | [klen uv] | [vlen uv] | shared uv | suffix | value
//	          | [kind u8] | seq
//	FastDiff  flags u8 | [slen-15 uv] | [shared uv] | [vlen uv] | suffix
//	          | [value] | seq
//
// shared is the length of the prefix the key shares with the previous
// key, suffix the rest (slen bytes); the cell before the first has an
// empty key, an empty value and kind Put. Diff's flags say that the key
// length (bit 0), the value length (bit 1) or the kind (bit 2) repeat;
// FastDiff's hold the suffix length (bits 0-3, 15: more follows), "same
// key length" (bit 4), "same value length" (bit 5), "same value" (bit 6)
// and the kind (bit 7). LZ4 and LZ4Dict compress the cells only.
//
// A Columnar block (encoding 5; internal/colblk has the details) is
//
//	columnar := header | keys | seqs | kinds | values | crc
//	header   := version u8 | 5 u8 | flags u8 | count uv | interval uv
//	keys     := 0 u8 | klen uv | kcell * count | restarts    (prefix keys)
//	          | 1 u8 | fixed-length keys, the varying bytes as a column
//	          | 2 u8 | fixed-length keys, the varying bits as a column
//	kcell    := shared uv | slen uv | suffix | [seq vlong]
//	seqs     := 0 u8 (in the kcells) | 1 u8 | column | 2 u8 | delta column
//	kinds    := 0 u8 (every cell a Put) | 1 u8 | bitmap (1 bit a cell)
//	values   := 0 u8 | ends column | area              (inline)
//	          | 1 u8 | width u8 | column                (integers)
//	          | 2 u8 | nd uv | ends column | index column | area (dictionary)
//	          | 3 u8 | fixed-length values, the varying bits as a column
//	          | 4 u8 | width u8 | float column      (float64 or float32)
//	          | 5 u8 | style u8 | float column      (decimal text)
//	column   := clen uv | shapeshift column
//	area     := rawlen uv | alen uv | alen bytes (LZ4 with flag bit 0)
//	          | rawlen uv | nsub uv | LZ4Dict index and data (bit 1)
//	          | rawlen uv | id u32 | nsub uv | index and data
//	                                 (bits 1 and 5: against a Dict)
//
// The Encoder writes every form the cells allow and keeps the smallest.
//
// # Worked example
//
// The same five cells in every encoding (RowIndex with interval 2), bytes in
// hex grouped per field, pinned by testdata/*.block and TestGolden:
//
//	"apple"  seq 9    Put    "red"
//	"apple"  seq 7    Delete ""
//	"applet" seq 8    Put    "red"
//	"apply"  seq 5    Put    "red"
//	"banana" seq 1000 Put    "yellow"
//
// "apple" is 61 70 70 6c 65, "red" 72 65 64. Seq 1000 is the vlong 8e 03
// e8: marker 0x8e says two payload bytes, 0x03e8 = 1000; seqs up to 127
// are one byte.
//
// Prefix (63 bytes): shared slen vlen suffix value kind seq.
//
//	01 01 00 05                            version 1, Prefix, flags 0, 5 cells
//	00 05 03 6170706c65 726564 01 09       shares 0, suffix "apple", Put, 9
//	05 00 00 00 07                         shares all 5 bytes, Delete, 7
//	05 01 03 74 726564 01 08               "apple" + "t"
//	04 01 03 79 726564 01 05               "appl" + "y"
//	00 06 06 62616e616e61 79656c6c6f77 01 8e03e8
//	fd 1f 8c 69                            CRC-32C
//
// FastDiff (53 bytes): flags [slen-15] [shared] [vlen] suffix [value] seq.
//
//	01 03 00 05
//	85 00 03 6170706c65 726564 09          Put, slen 5; shares 0, vlen 3
//	10 00 07                               Delete, same klen, slen 0; vlen 0
//	81 05 03 74 726564 08                  Put, slen 1; shares 5, vlen 3
//	c1 04 79 05                            Put, same value, slen 1; shares 4
//	86 00 06 62616e616e61 79656c6c6f77 8e03e8
//	f6 1c 22 c6
//
// RowIndex, interval 2 (81 bytes): Prefix cells, cells 0, 2 and 4 whole.
//
//	01 04 00 05 02                         5 cells, restart interval 2
//	00 05 03 6170706c65 726564 01 09       offset 0x00: restart 0
//	05 00 00 00 07
//	00 06 03 6170706c6574 726564 01 08     offset 0x12: restart 1, key whole
//	04 01 03 79 726564 01 05
//	00 06 06 62616e616e61 79656c6c6f77 01 8e03e8   offset 0x29: restart 2
//	00000000 12000000 29000000             restart offsets
//	85 47 7e 1b
//
// Columnar, interval 2 (118 bytes; prefix keys with seqs inline and inline
// values: the other forms are larger on so few cells):
//
//	01 05 00 05 02                         Columnar, 5 cells, interval 2
//	00 23                                  prefix keys, 35 bytes of kcells
//	00 05 6170706c65 09                    offset 0x00: restart 0, seq 9
//	05 00 07                               shares 5, no suffix, seq 7
//	00 06 6170706c6574 08                  offset 0x0b: restart 1, seq 8
//	04 01 79 05                            "appl" + "y", seq 5
//	00 06 62616e616e61 8e03e8              offset 0x18: restart 2, seq 1000
//	00000000 0b000000 18000000             restart offsets
//	00                                     seqs in the kcells
//	01 1d                                  kinds bitmap 0b11101: cell 1 Delete
//	00 26 01050a...4afc16c8                inline values; 38-byte ends column
//	                                       (shapeshift: ends 3 3 6 9 15)
//	0f 0f 726564 726564 726564 79656c6c6f77   area: 15 bytes, stored
//	d2 8a 7a 2a
//
// None and Diff, and the options (dedupe, value and seq columns, LZ4,
// LZ4Dict, packed Columnar values), have worked examples in the internal
// packages' docs, pinned by the other files of testdata.
//
// # Shared dictionaries
//
// A block written with Options.Dict (LZ4Dict) stores its value area
// (Columnar) as sub-blocks of 1 KiB of uncompressed bytes, the last
// fewer, or its cells (row encodings) as sub-blocks that start at the
// first cell (RowIndex: restart) at or after every 1 KiB, with the keyed
// index of LZ4Dict row blocks (internal/lz4area). Each sub-block is one
// LZ4 block whose matches may reach back into the Dict's bytes as if they
// preceded it (each decodes with LZ4's dictionary decoding, pierrec/lz4's
// UncompressBlockWithDict, given the Dict's bytes), or stored when it
// does not shrink (complen = sublen). No sub-block depends on another: a
// move decompresses only the sub-blocks it reads (a SeekGE one, or two
// when the target starts the next). The block names the Dict by its ID,
// the CRC-32C of its bytes; a reader given no Dict or another one refuses
// the block (ErrWrongDict). A value area that does not shrink is stored,
// in a block without the flags, and so are row cells of one sub-block
// (later sub-blocks start from an empty previous cell: those cells stay
// compressed). A row block's cells are
//
//	cells := id u32 | nsub uv | keyed index and data  (internal/lz4area)
//
// and testdata/none-dict.block (TestGoldenOptions) pins one; a Columnar
// value area is
//
//	area  := rawlen uv | id u32 | nsub uv | entry * nsub | data
//	entry := sublen uv | complen uv | crc u32   (version 3: no crc)
//	data  := the sub-blocks, complen bytes each, in order, ending the
//	         block before its trailer
//
// The entry's crc is the CRC-32C of its sub-block's complen bytes, and the
// trailer's covers the block up to the data: a Get that decompresses one
// sub-block checks that sub-block and the head, not every byte of the
// block.
//
// Columnar, four cells "a".."d" (seqs 5..8) with the values "quickly
// carefully", "blithely slyly furiously", "slyly quickly blithely" and
// "carefully furiously", against the Dict "furiously quickly carefully
// blithely slyly" (42 bytes; "quickly" starts at byte 10, "blithely" at
// 28), with 32-byte sub-blocks (145 bytes):
//
//	04 05 22 04 02                         version 4, Columnar, flags 0x22, 4 cells
//	00 10 00016105 00016206 00016307 00016408   prefix keys, seqs inline
//	00000000 08000000                      restart offsets
//	00 00                                  seqs in the kcells, all Put
//	00 26 01040a...2dc9ff                  inline values; 38-byte ends
//	                                       column (ends 17 41 63 82)
//	52                                     area: 82 bytes
//	820fcd1a                               Dict ID 0x1acd0f82
//	03                                     3 sub-blocks:
//	20 0c b05e160d                         32 bytes in 12, CRC-32C 0x0d165eb0
//	20 13 f278bfa9                         32 in 19, CRC-32C 0xa9bf78f2
//	12 0d aa07515f                         18 in 13, CRC-32C 0x5f5107aa
//	0d 2000                                no literals, a match of 4+13 =
//	                                       17 bytes 32 back: Dict bytes
//	                                       10..26, "quickly carefully"
//	06 1f00                                10 bytes 31 back: bytes 28..37,
//	                                       "blithely s"
//	50 6c796c7920                          5 literals "lyly ", the end
//	052a00 37736c792f00 ...                sub-blocks 1 and 2 (32 bytes
//	                                       from 19, 18 from 13)
//	8d a3 8c 26                            CRC-32C of the 98 bytes before
//	                                       the sub-blocks
//
// Pinned by testdata/columnar-dict-v4.block and TestGoldenColumnarDict;
// the version 3 form (no entry crcs, the trailer over every byte) by
// testdata/columnar-dict.block and TestGoldenColumnarDictV3.
//
// # Reading and checking
//
// NewSeeker and Init check the checksum, the header, the restart array and
// (Columnar) every column once, and a move the checksum of every
// version 4 sub-block it decompresses; moves check every bound they read, so a
// block with a correct checksum but hostile contents makes a move return
// false with Err wrapping ErrCorrupt, never a panic, and a block Verify
// refuses for its structure makes a full scan fail too. Cell order is not
// checked on the read path: Verify checks it. RowIndex and Columnar
// SeekGE binary-search restart keys (or fixed-length keys) read in place;
// the other encodings scan forward from the current cell when the target
// is after it, else from the block start. An LZ4 block is decompressed by
// Init; an LZ4Dict block only the sub-blocks a move reaches (and, without
// a Dict, its dictionary sub-block).
//
// Backward moves (Last, SeekLT, Prev) visit the cells in the exact reverse
// of the forward order: SeekLT(key) lands on the last cell whose key is
// below key, which for a key with several versions is its oldest, and
// Prev moves on to newer versions, then to smaller keys. A row cell (and
// a Columnar prefix key) decodes only after the cells before it back to
// where the encoder starts over from an empty key: a RowIndex or Columnar
// restart, an LZ4Dict sub-block, the block start. So a move back to a
// cell decodes forward from the last such start before it and keeps the
// cells it passes, their keys copied, in a cache inside the Seeker (up to
// 256 cells and 128 KiB of keys, grown once and reused), from which the
// Prevs that follow take them without decoding; SeekLT scans as SeekGE
// does and keeps what it passes. The costs:
//
//	RowIndex, Columnar   a reverse scan decodes every restart interval
//	(prefix keys)        once and copies each cell back out of the cache;
//	                     SeekLT is a SeekGE that keeps its cells
//	Columnar (fixed      every column is read at any index: Prev costs
//	keys)                what Next does
//	None, Prefix, Diff,  a cache refill decodes from the block (or
//	FastDiff             sub-block) start: a reverse scan of n cells
//	                     decodes about n*n/512 cells, and a SeekLT scans
//	                     from the block start unless the Seeker is before
//	                     the target, keeping every cell it passes
//
// kvbench seek measures SeekLT and Prev against Pebble's row blocks.
package blockenc
