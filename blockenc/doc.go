// Package blockenc encodes a sorted run of cells as one data block and
// seeks in it without allocating: HBase's data block encodings (NONE,
// PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1) with our own byte layout.
//
// An Encoder takes cells in order (key ascending, then seq descending) and
// Finish returns the block. A Seeker reads a block: First, SeekGE, Next and
// Cell. The Key and Value slices Cell returns alias the block or a buffer
// of the Seeker (keys, decompressed cells, a value from a value column) and
// are valid until the Seeker's next move or Init.
//
// Options add, each off by default: LZ4 compression of the cells, whole
// or as sub-blocks with a preset dictionary (LZ4Dict, after Lucene's
// LUCENE-9447); dedupe of repeated values through a lossy hash table
// (after Kudu's change 15806); and an integer value column (shapeshift)
// when every value has the same width of 1, 2, 4 or 8 bytes. Columnar
// blocks (encoding 5) store the cells as columns, with dictionary,
// integer and bit-packed value forms, and take LZ4 or LZ4Dict on their
// value area. CompressionLevel trades encoding time for smaller LZ4 at the
// same decoding speed.
//
// # Block format, version 1 (and 2 for Columnar blocks that need it)
//
// Fixed-width integers are little-endian. Lengths and counts are unsigned
// LEB128 varints (encoding/binary's Uvarint, written "uv" below). Seqs are
// Hadoop WritableUtils vlongs (package vlong: big-endian payload after a
// length marker byte), as HBase writes memstoreTS.
//
//	block    := header | [values] | [seqs] | area | [restarts] | crc
//	header   := version u8 (=1) | encoding u8 | flags u8 | count uv
//	            | [interval uv]            (RowIndex only: restart interval)
//	values   := mode u8 | clen uv | column (flag bit 3: the values as a
//	                                        shapeshift integer column)
//	seqs     := mode u8 | clen uv | column (flag bit 4: the seqs as a
//	                                        shapeshift integer column)
//	area     := cells                      (no LZ4 flag)
//	          | rawlen uv | LZ4 block      (flag bit 0: LZ4)
//	          | nsub uv | sub * nsub | data (flag bit 1: LZ4Dict)
//	cells    := cell * count               (layout per encoding, below)
//	restarts := offset u32 * ceil(count/interval)
//	                                       (RowIndex only: offset of every
//	                                        interval-th cell from the start
//	                                        of the uncompressed cells; the
//	                                        first is 0; never compressed)
//	crc      := u32                        (CRC-32C, Castagnoli, of every
//	                                        byte before it)
//
// Flags (byte 2; part of the format, never reuse a bit):
//
//	bit 0  LZ4: the cells are one LZ4 block (compress.go)
//	bit 1  LZ4Dict: LZ4 sub-blocks against a preset dictionary (compress.go)
//	bit 2  value dedupe: value lengths doubled, odd ones back-references
//	       (dedupe.go)
//	bit 3  value column: the values in values, none in the cells
//	       (intvalues.go)
//	bit 4  seq column: the seqs in seqs, every seq in the cells 0
//	       (intvalues.go); only with bit 3
//	bits 5-7 must be 0; bits 0 and 1 exclude each other, as do 2 and 3.
//
// The features are additions to version 1, not a version 2: a block that
// uses none of them has flags 0 and is byte for byte what the first
// version of this package wrote (the golden files of every encoding are
// unchanged), and a block that uses one sets its bit, which a reader of
// the first version rejects (it refused every flag bit, reserved for these
// features) instead of misreading. A new version byte would have made
// every existing block unreadable by the new code's checks or needed two
// code paths for one layout. Encoding id 5 is Columnar (below), whose
// layout differs from the first byte after the header. The seq column
// (bit 4) came later the same way: blocks without it are unchanged (the
// golden files of the other features too), and a reader from before it
// rejects the bit as an unsupported flag. Version 2 is byte 0 of a
// Columnar block that uses packed keys or values or an LZ4Dict value area
// (forms a version 1 reader would take for unknown modes); every other
// block is still version 1, byte for byte, and readers take both.
//
// LZ4 and LZ4Dict compress the cells only: the header, the value and seq
// columns and the restart array stay uncompressed, so Init checks the restarts and
// a RowIndex seek reads them in place. Every length is stored, and a
// decompression that fails or gives another length is ErrCorrupt.
//
// The cell layouts ([x] is present only when its flag says so):
//
//	None      klen uv | vlen uv | key | value | kind u8 | seq vlong
//	Prefix    shared uv | slen uv | vlen uv | suffix | value | kind u8 | seq vlong
//	RowIndex  as Prefix; every interval-th cell has shared = 0 (key whole)
//	Diff      flags u8 | [klen uv] | [vlen uv] | shared uv | suffix | value
//	          | [kind u8] | seq vlong
//	FastDiff  flags u8 | [slen-15 uv] | [shared uv] | [vlen uv] | suffix
//	          | [value] | seq vlong
//
// shared is the length of the prefix the key has in common with the
// previous cell's key, suffix the rest (slen bytes). The cell before the
// first one is taken to have an empty key, an empty value and kind Put.
//
// Diff flags (other bits must be 0):
//
//	bit 0  key length equals the previous key's: klen omitted
//	bit 1  value length equals the previous value's: vlen omitted
//	bit 2  kind equals the previous kind: kind byte omitted
//
// FastDiff flags:
//
//	bits 0-3  suffix length 0..14; 15 means slen-15 follows as uv
//	bit 4     key length equals the previous key's: shared omitted (it is
//	          the previous key length minus slen)
//	bit 5     value length equals the previous value's: vlen omitted
//	bit 6     value equals the previous value: vlen and value omitted
//	          (bit 5 is then 0); the reader points at the previous value
//	bit 7     the kind: 1 Put, 0 Delete
//
// Kind and seq: FastDiff keeps the kind in a flags bit and Diff omits it
// when it repeats, so both pay nothing for it in runs of puts. None, Prefix
// and RowIndex keep HBase's separate type byte. Folding the kind into the
// seq vlong (seq<<1|kind) was weighed: it costs a byte whenever the doubled
// seq needs one more payload byte (one seq width in eight), so it saves
// less than a bit-flag where a flags byte exists, and would make a seq
// unreadable without its kind.
//
// # Worked example
//
// The same five cells in every encoding (RowIndex with interval 2); the
// bytes are hex, grouped per field. They are pinned by testdata/*.block
// and TestGolden.
//
//	"apple"  seq 9    Put    "red"
//	"apple"  seq 7    Delete ""
//	"applet" seq 8    Put    "red"
//	"apply"  seq 5    Put    "red"
//	"banana" seq 1000 Put    "yellow"
//
// "apple" is 61 70 70 6c 65, "banana" 62 61 6e 61 6e 61, "red" 72 65 64,
// "yellow" 79 65 6c 6c 6f 77. Seq 1000 is the vlong 8e 03 e8: marker
// 0x8e (-114) says two payload bytes, 0x03e8 = 1000; seqs up to 127 are
// one byte.
//
// None (72 bytes): klen vlen key value kind seq.
//
//	01 00 00 05                            version 1, None, flags 0, 5 cells
//	05 03 6170706c65 726564 01 09          "apple" "red" Put 9
//	05 00 6170706c65 00 07                 "apple" "" Delete 7
//	06 03 6170706c6574 726564 01 08        "applet" "red" Put 8
//	05 03 6170706c79 726564 01 05          "apply" "red" Put 5
//	06 06 62616e616e61 79656c6c6f77 01 8e03e8
//	53 91 0b a5                            CRC-32C
//
// Prefix (63 bytes): shared slen vlen suffix value kind seq.
//
//	01 01 00 05
//	00 05 03 6170706c65 726564 01 09       shares 0, suffix "apple"
//	05 00 00 00 07                         shares all 5 bytes, no suffix
//	05 01 03 74 726564 01 08               "apple" + "t"
//	04 01 03 79 726564 01 05               "appl" + "y"
//	00 06 06 62616e616e61 79656c6c6f77 01 8e03e8
//	fd 1f 8c 69
//
// Diff (63 bytes): flags [klen] [vlen] shared suffix value [kind] seq.
//
//	01 02 00 05
//	04 05 03 00 6170706c65 726564 09       kind Put as before: no kind byte
//	01 00 05 00 07                         same klen; vlen 0, shares 5, Delete
//	00 06 03 05 74 726564 01 08            nothing the same: klen 6 vlen 3
//	06 05 04 79 726564 05                  same vlen and kind; klen 5, shares 4
//	04 06 06 00 62616e616e61 79656c6c6f77 8e03e8
//	05 b2 b3 2e
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
//	01 04 00 05 02                         ... 5 cells, restart interval 2
//	00 05 03 6170706c65 726564 01 09       offset 0x00: restart 0
//	05 00 00 00 07
//	00 06 03 6170706c6574 726564 01 08     offset 0x12: restart 1, key whole
//	04 01 03 79 726564 01 05
//	00 06 06 62616e616e61 79656c6c6f77 01 8e03e8   offset 0x29: restart 2
//	00000000 12000000 29000000             restart offsets, u32 little-endian
//	85 47 7e 1b
//
// # Columnar (encoding 5)
//
// Columnar stores the cells column by column, as Kuzu stores strings (an
// index column, offsets and data) and Pebble v2's colblk stores keys (a
// prefix-compressed column with restarts). Each section starts with a mode
// byte; the Encoder writes every mode the cells allow and keeps the
// smallest block. Every integer column is a shapeshift column
// (blockenc/shapeshift: own header and CRC-32C, chunks of 256 values):
//
//	block    := header | keys | seqs | kinds | values | crc
//	header   := version u8 (1 or 2) | encoding u8 (=5) | flags u8
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
//	packed   := nvar u8 (0..64) | field * nvar | column
//	field    := pos uv | base u8 | bits u8 (1..8)
//	column   := clen uv | clen bytes of a shapeshift column
//	area     := rawlen uv | alen uv | alen bytes    (the values back to
//	                                            back: value i is area[end
//	                                            i-1 : end i]; with flag bit
//	                                            0 an LZ4 block decoding to
//	                                            rawlen bytes, else alen =
//	                                            rawlen and stored)
//	          | rawlen uv | nsub uv | (sublen uv | complen uv) * nsub
//	            | data                         (flag bit 1, version 2:
//	                                            LZ4Dict sub-blocks, below)
//
// Version: a block is version 1 unless it uses packed keys or values,
// zigzag delta columns or an LZ4Dict value area, which version 1 readers
// do not know; then it is version 2 (a version 1 block with any of them is
// corrupt, and so is a row block claiming version 2).
//
// Zigzag deltas (as the row blocks' value and seq columns, intvalues.go):
// the column holds (d << 1) ^ (d >> 63) of d = x[i] - x[i-1] (x[-1] = 0,
// wrapping int64 arithmetic). A block of several time series has seqs
// (ingest order) and values that step evenly within a series and jump,
// often down, between series; shapeshift's own Delta forms base a chunk
// at its smallest delta, so a jump down widens every value, where zigzag
// deltas leave it one exception. The Encoder writes both and keeps the
// smaller: kvbench's time series in Columnar blocks went from 4.03 to
// 1.85 B/cell (Pebble rowblk + zstd 7.72). Pinned by
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
// LZ4 left 5 bytes. The Encoder writes packed keys when they are smaller
// than fixed keys, packed values when smaller than the other forms.
// TPC-H lineitem keys of one column (name | orderkey | linenumber) vary in
// 3 bytes per block: with this mode the l_shipmode blocks of
// BenchmarkColumnar went from 6.1 to 1.6 B/cell. SeekGE binary-searches
// the fixed keys; prefix keys are searched as RowIndex cells are.
//
// Integer values: every value has the same width w and value i is its
// big-endian unsigned integer. The Encoder tries the three value forms and
// keeps the smallest: a dictionary (Kuzu's) for few distinct values, an
// integer column for fixed-width numbers, inline for the rest, with LZ4
// when the Options ask for compression and it pays. Flags: bit 0 (LZ4)
// or bit 1 (LZ4Dict), for the value area only; DedupeValues and
// IntValues are ignored (the dictionary and integer forms replace them).
//
// LZ4Dict value area (Lucene's layout, as for row blocks, but cut by
// bytes): the area's first DictSize bytes are sub-block 0, compressed
// alone, and the preset dictionary of every later sub-block of
// SubBlockSize bytes (the last fewer), each one LZ4 block (complen =
// sublen: stored). Cuts ignore values: a value may span sub-blocks, and
// nothing limits its length. Init reads the index and decompresses
// nothing; a move decompresses the dictionary and the sub-blocks holding
// the value it lands on, and then knows the run of cells whose values are
// in decompressed sub-blocks, so a scan checks one range per cell and a
// cold SeekGE decompresses about DictSize + SubBlockSize bytes of a
// 128 KiB area instead of all of it. Dictionary values (referenced in any
// order) are all decompressed on the first move. An area no longer than
// DictSize is compressed as one LZ4 block (flag bit 0) instead.
//
// Seqs: the column wins on every benchmark block (seqs in load order make
// Delta chunks of 0 bits: 22 bytes per 256 seqs, against 6-byte vlongs)
// and on random 50-bit seqs (BitPack, 6.25 bytes a seq against 8-byte
// vlongs); inline vlongs win for small unordered seqs in small blocks
// (TestColumnarForms has both).
//
// Init checks the checksum and every section (restarts increasing, ends
// non-decreasing and ending at the area's length, dictionary indexes
// below nd, integers within w bytes, fixed keys within nvar bytes; each
// range check one branch-free OR or max pass over the column, the
// culprit looked for only when it fails) and decodes the shapeshift
// columns into slices the Seeker keeps across Init, so a move reads plain
// []int64 and allocates nothing, and neither does Init once the slices
// have grown. shapeshift.Open was measured for
// this: 12-13 allocations and 9-24 us per 1600-value column against 0
// and 1.2-1.8 us for Decode into a reused slice. Cell's Value aliases the
// block, the Seeker's decompressed area, or (integer values) an 8-byte
// buffer of the Seeker; Key aliases the Seeker's key buffer. Size is an
// upper bound (the block with prefix keys, inline seqs and inline values,
// the ends column bounded): cut blocks by it and they come out smaller.
//
// The five cells of the worked example, interval 2 (118 bytes; prefix
// keys with seqs inline, inline values: the other forms are larger on so
// few cells):
//
//	01 05 00 05 02                         Columnar, 5 cells, interval 2
//	00 23                                  prefix keys, 35 bytes of kcells
//	00 05 6170706c65 09                    offset 0x00: restart 0, seq 9
//	05 00 07                               shares 5, no suffix, seq 7
//	00 06 6170706c6574 08                  offset 0x0b: restart 1, seq 8
//	04 01 79 05                            "appl" + "y", seq 5
//	00 06 62616e616e61 8e03e8              offset 0x18: restart 2, seq 1000
//	00000000 0b000000 18000000             restart offsets, u32 LE
//	00                                     seqs in the kcells
//	01 1d                                  kinds bitmap 0b11101: cell 1 Delete
//	00 26                                  inline values; ends, 38 bytes:
//	01 05 0a 000000010000000000 12000000   shapeshift v1, 5 values, chunks of
//	                                       2^10, one: BitPack, ending at 18
//	03 0300000000000000 04 00630c0000000000   min 3, 4 bits: ends 3 3 6 9 15
//	4afc16c8                               the column's CRC-32C
//	0f 0f 726564 726564 726564 79656c6c6f77   area: 15 bytes, stored
//	d2 8a 7a 2a                            CRC-32C
//
// Pinned by testdata/columnar.block and TestGolden (docBytes derived by
// hand; the column CRC computed separately from the Go code).
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
//
// BenchmarkColumnar (bench_columnar_test.go): TPC-H lineitem columns,
// 30000 synthetic rows, keys column name | orderkey | linenumber, seqs in
// load order, every variant storing the same cells in the same blocks
// (those of 32 KiB RowIndex blocks); seek is SeekGE on a Seeker already on
// its block, cold is Init and SeekGE, scan is Init, First and Next over
// every block reading Cell().Value (ns per cell); columnar is Columnar
// with LZ4 allowed on the value area, +lz4dict with an LZ4Dict one;
// medians of 5 runs of interleaved rounds (quiet machine, load about 1):
//
//	go test -run '^$' -bench Columnar -benchtime 1x -count 5 ./blockenc/
//
//	column        encoding          B/cell  seek ns  cold ns  scan ns/cell
//	shipmode      columnar            1.02      386     4202    10.6
//	(7 distinct)  fastdiff+lz4dict    5.17     4309     8134    24.1
//	              rowindex           18.80      395     1597     8.7
//	returnflag    columnar            0.88      382     5006    10.4
//	(3)           fastdiff+lz4dict    4.72     4560     9000    20.9
//	shipinstruct  columnar            0.99      399     3263    10.6
//	(4)           fastdiff+lz4dict    5.54     2896     7789    25.0
//	shipdate      columnar            2.41      439     3499    14.9
//	(~2500)       fastdiff+lz4dict    8.86     2222     6953    22.0
//	comment       columnar           13.41      414     8998    19.4
//	(distinct)    columnar+lz4dict   13.46      418     6848    21.7
//	              fastdiff+lz4dict   17.90     1451     6112    30.2
//	              fastdiff           40.35     3311     5828    17.0
//
// Goals: low-cardinality columns 5.1-5.6x smaller than FastDiff+LZ4Dict
// (met; 3.1-3.5x before packed keys and 1024-value chunks) and scanning
// 2.27x, 2.01x and 2.35x faster (shipmode, returnflag, shipinstruct: met,
// returnflag at the line: 2.31x, 1.98x and 2.52x in a run after the zigzag
// delta columns, which took returnflag to 0.87 B/cell); the mostly distinct comments are 0.75x the
// size of the smallest row encoding (met). On go-tpc's dbgen text with
// one seq for every cell (kvbench seek, table seek_columns_goals) a row
// encoding's seq costs a byte a cell instead of six, and the size and
// scan ratios there are smaller (see the README); Columnar's warm Next
// there is below Pebble rowblk's.
//
// Where a low-cardinality scan goes (perf, returnflag): Init about 30%
// (the PatchedDelta key column most, then seqs, dictionary indexes and
// the range checks), colNext about 45%, the benchmark loop and Cell the
// rest. Seeker.Next inlines as one indirect call to colNext (a wrapper
// that tested the encoding cost about 50 instructions a cell); a key's
// packed fields are all rewritten per cell (rewriting only the changed
// ones, a data-dependent branch, measured 5% slower). Init still decodes
// every column, and deferring one would not help a scan, which reads
// every column, or a SeekGE, which needs the seq and value of the cell it
// lands on; reading the columns in place (shapeshift.Column.Get) would
// need an Open into a reused Column (Open allocates a Column per call).
// Warm seeks are as fast as RowIndex's; a cold seek (Init included)
// costs 2.1-5.6x uncompressed RowIndex's, which only checks the CRC. An
// LZ4Dict value area takes the comment blocks' cold seek from 9.0 to
// 6.8 us (the dictionary and one sub-block decompressed, not the area).
// Against Pebble rowblk + zstd (checksum, decompress, seek; kvbench seek)
// Columnar's cold seeks take 0.13-0.34x the time. BenchmarkColumnarInit
// times Init alone and the scan alone, for profiles.
//
// # Worked examples of the features
//
// Pinned by testdata/{prefix-dedupe,fastdiff-ints,fastdiff-ints-seqs,none-lz4,none-lz4dict}.block
// and TestGoldenFeatures (which decodes the LZ4 bytes with pierrec/lz4).
//
// Value dedupe, Prefix, on the five cells above (63 bytes, no saving on so
// few cells; flags 04). Value length fields are doubled; the two later
// "red"s are back-references to the first, which is at offset 8 of the
// cells:
//
//	01 01 04 05                            Prefix, flags: dedupe
//	00 05 06 6170706c65 726564 01 09       vlen 06: 3 bytes follow
//	05 00 00 00 07                         vlen 00: empty
//	05 01 07 74 0e 01 08                   vlen 07: 3 bytes at 22-14 = 8
//	04 01 07 79 15 01 05                   vlen 07: 3 bytes at 29-21 = 8
//	00 06 0c 62616e616e61 79656c6c6f77 01 8e03e8
//	10 fa fc dc
//
// Value column, FastDiff, six cells "t0".."t5", seqs 10..15, 8-byte values
// 5000 + i*i (68 bytes; 110 with the values inline; the zigzag delta
// column would be larger here). The cells are written
// with empty values, which FastDiff's "same value" bit (0x40) makes free:
//
//	01 03 08 06                            FastDiff, flags: value column
//	08 26                                  width 8, no delta; 38-byte column:
//	01 06 08                               shapeshift v1, 6 values, 2^8 a chunk
//	000000010000000000 12000000            one BitPack chunk, ending at 18
//	03 8813000000000000 05 2090043300000000   BitPack, min 5000, 5 bits:
//	                                       0|1<<5|4<<10|9<<15|16<<20|25<<25
//	96cf46e6                               the column's CRC-32C
//	c2 00 7430 0a                          Put, same value, slen 2; "t0" seq 10
//	d1 31 0b  d1 32 0c  d1 33 0d  d1 34 0e  d1 35 0f
//	24 e3 87 d4
//
// Value and seq columns, FastDiff, eight cells "t0".."t7", values 5000 +
// i*i as above, seqs 2^40 + 200i (what one series of 200 gets when every
// tick writes all of them): 114 bytes, 122 with the seqs inline (7-byte
// vlongs), 147 with both inline. The cells' seqs are 0:
//
//	01 03 18 08                            FastDiff, flags: value and seq
//	                                       columns, 8 cells
//	08 26                                  values: width 8, 38-byte column:
//	01 08 08 000000010000000000 12000000   8 values, one BitPack chunk
//	03 8813000000000000 06 4040245046c60000   min 5000, 6 bits: sum of
//	                                       i*i << 6i = 0xc64650244040
//	2d932eeb                               the column's CRC-32C
//	00 26                                  seqs: no delta, 38-byte column:
//	01 08 08 000000000100000000 12000000   8 values, one Delta chunk
//	04 0000000000010000 c800000000000000 00   first 2^40, step 200, 0 bits
//	856d1f63                               the column's CRC-32C
//	c2 00 7430 00                          "t0", seq 0 (the column's)
//	d1 31 00  d1 32 00  d1 33 00  d1 34 00  d1 35 00  d1 36 00  d1 37 00
//	4b 64 b3 f6
//
// LZ4, None, four cells "user0".."user3" with value "value-value-value",
// seqs 9..6: 104 bytes of cells (26 a cell), 60 bytes of block. An LZ4
// sequence is token (literal count << 4 | match length - 4), literals,
// offset u16 LE, as in the LZ4 block format:
//
//	01 00 01 04 68                         None, flags: LZ4, 4 cells, 104 bytes
//	d7 05117573657230 76616c75652d 0600    13 literals, 11 bytes from 6 back
//	22 0109 1a00                           2 literals, 6 bytes from 26 back
//	17 31 1400                             "1", 11 bytes from 20 back
//	02 2000  22 0108 1a00  1e 32 1a00 12   ... cells 1 to 3
//	07 1a00  1a 33 1a00  50 6c75650106     last: 5 literals
//	c9 d4 b9 f5
//
// LZ4Dict, the same cells with sub-blocks cut at 40 bytes (the defaults
// are DictSize and SubBlockSize, 8 KiB each): sub-block 0, the dictionary,
// holds cells 0-1; sub-block 1 cells 2-3, and its first sequence copies 6
// bytes from 26 back, which is inside the dictionary:
//
//	01 00 02 04                            None, flags: LZ4Dict, 4 cells
//	02                                     2 sub-blocks
//	34 22                                  0: 52 bytes, 34 compressed
//	34 18 02 05 7573657232                 1: 52 bytes, 24 compressed,
//	                                          from cell 2, key "user2"
//	d7 05117573657230 76616c75652d 0600  22 0109 1a00  17 31 1400
//	80 2d76616c75650108                    sub-block 0 (cells 0-1)
//	02 1a00  17 32 1400 ...                sub-block 1 (cells 2-3)
//	0f 77 37 ae
//
// # Seeking
//
// An LZ4 block is decompressed by Init into a buffer the Seeker owns and
// reuses across Init calls. An LZ4Dict block is not: SeekGE binary-searches
// the first keys of the sub-blocks (read in place from the index), then
// decompresses the dictionary and the one sub-block the answer starts in,
// each at most once per Init; Next decompresses the next sub-block when it
// gets there. Each sub-block starts as a block does (from an empty previous
// cell; RowIndex: at a restart), so nothing before it is needed.
//
// RowIndex SeekGE binary-searches the restart keys (stored whole, read in
// place) for the last one below the target, then scans forward at most one
// interval. None, Prefix, Diff and FastDiff scan forward, as HBase's
// seekers do: from the current cell when the target is after it, else from
// the block start. Scans reconstruct each key into one reused buffer and
// decode a seq only for the cell they stop on. A Seeker never steps back,
// so reverse iteration is not offered rather than made quadratic
// (HBASE-28043).
//
// # Performance
//
// BenchmarkBlock, one ~32 KiB block per key set (the cells that fill a
// default RowIndex block; every encoding stores the same cells), 8-byte
// values, seqs of 5-7 byte vlongs; medians of 5 runs on a shared, loaded
// 2-core Xeon (go test -run '^$' -bench Block -benchtime 0.2s -count 5):
//
//	keys=user ("user/%08d/metric/%04d", 1530 cells)
//	encoding   B/cell  seekrandom  seekasc  scan ns/cell
//	none        41.97    11202 ns    113 ns   23.1
//	prefix      19.71     5277 ns     37 ns   20.2
//	diff        17.72     8528 ns     30 ns   13.7
//	fastdiff    16.73     5900 ns     31 ns   15.5
//	rowindex    21.42      263 ns     35 ns   14.8
//
//	keys=lineitem (8-byte orderkey + 4-byte linenumber, 1568 cells)
//	none        29.02     6533 ns     33 ns   17.9
//	prefix      20.05     8150 ns     44 ns   19.2
//	diff        18.05     7994 ns     45 ns   24.6
//	fastdiff    17.05    11728 ns     44 ns   20.2
//	rowindex    20.91      294 ns     47 ns   18.0
//
//	keys=random (16 random bytes, 982 cells)
//	none        33.05     5392 ns     39 ns   16.0
//	prefix      33.08     4186 ns     36 ns   17.6
//	diff        31.08     4939 ns     35 ns   17.1
//	fastdiff    31.04     6319 ns     44 ns   22.8
//	rowindex    33.39      303 ns     41 ns   15.4
//
// Every move allocates nothing (0 allocs/op), with or without the
// features below. The machine was noisy:
// repeated runs of the same benchmark differ by up to 1.5x, so compare
// rows within a table, not across runs.
//
// # Performance of the features
//
// BenchmarkGoals (bench_goals_test.go) measures each goal of the features
// as ratios, the variants interleaved round by round in one process
// (medians of 15 rounds; medians of 5 runs below), because the shared
// machine's load moved separate runs by up to 2x:
//
//	go test -run '^$' -bench Goals -benchtime 1x -count 5 ./blockenc/
//
// Lineitem rows (12-byte keys, 110-byte values of TPC-H-like columns,
// 4800 rows, RowIndex, blocks cut at 64 KiB of Size); seekcold is Init and
// SeekGE of a random key on its block (a point read of a cached block):
//
//	            B/cell  seekcold   LZ4Dict size  LZ4Dict seekcold
//	lz4 64k      54.59  33.7 us       1.047x          0.26x
//	lz4 16k      60.75   6.4 us       0.941x          1.30x
//	lz4 8k       65.25   3.7 us       0.876x          2.28x
//	lz4dict 64k  57.15   8.5 us
//
// LZ4Dict (8 KiB dictionary, 8 KiB sub-blocks) is 4.7% larger than LZ4 of
// the whole block and seeks about 4x faster; against LZ4 blocks of what its
// seek decompresses (16 KiB) it is 5.9% smaller at 1.3x the seek time
// (rounds ranged 1.2x-1.8x). The goal, 25% smaller than LZ4 at no
// more than 1.2x its SeekGE, is not met on this data: half of a row is
// random numbers no dictionary helps with, and a dictionary can only
// approach the whole-block ratio. The smallest dictionary arrangement
// measured (32 KiB dictionary, 8 KiB sub-blocks: 54.96 B/cell) is as small
// as whole-block LZ4. Decoding sub-blocks with pierrec's own dictionary
// support instead of the dictionary-as-literals path (compress.go) makes
// the LZ4Dict cold seek 11.9 us.
//
// Time series (200 series x 360 ticks, 8-byte key + 8-byte ms timestamp,
// half counters, half gauges, 8-byte values; seqs in ingest order, unique
// per cell), FastDiff, 64 KiB blocks:
//
//	inline + LZ4                   11.92 B/cell
//	value and seq columns           5.99 B/cell
//	value and seq columns + LZ4     2.26 B/cell   5.27x smaller than
//	                                              inline + LZ4
//	  keys and framing (LZ4)         0.14 B/cell
//	  values and seqs                2.12 B/cell (11.78 inline + LZ4)
//	seqs zeroed (bulk load)         2.04 vs 7.83 B/cell: 3.85x (inline
//	                                zeros: no seq column)
//	one seq per tick (batch)        4.38x
//
// The goal (2x) is met. With the value column alone (seqs inline) the
// blocks were 6.07 B/cell, 1.97x: the cells' 6-byte seqs, differing from
// series to series in the low byte, kept LZ4 from matching the series'
// identical timestamps (intvalues.go). The seq column costs encoding: the
// Encoder keeps a third encoding of the cells, and Add and Finish of
// these cells with IntValues and LZ4 run 22% more instructions (243.6M
// against 200.2M per 72000 cells, callgrind; FastDiff+LZ4 alone 117.9M).
// Scans of the blocks run fewer (Init, Next and Cell over every block:
// -15% FastDiff, -7% RowIndex), with less to decompress.
//
// Dedupe, the Kudu measure: cells of lineitem keys whose value is one
// column, l_shipmode (7 distinct) or l_shipdate (~2500 distinct), RowIndex
// 64 KiB blocks; encode is Add and Finish of 20000 cells, scan is Init and
// Next over every cell copying the value (as Kudu's serialization did);
// dedupe / without, medians of 7 runs (before: the first version of
// dedupe, 5 runs):
//
//	            size            encode          scan
//	shipmode   0.874            1.16x           1.06x (1.46-1.64x before)
//	shipdate   0.999 (0.952)    1.05x (1.26x)   1.02x (1.53-1.82x before)
//
// Met: shipmode smaller, shipdate encoding at most 1.10x and scanning at
// most 1.05x. Missed: shipmode scanning faster. Dedupe scans used to go
// through the general path (Init did not take the fast path with the
// dedupe flag); they take RowIndex's fast path now (scan_rowindex.go), and
// the encoder's adaptive cut-off (dedupe.go) turns the table off for
// mostly distinct values, which costs shipdate its 5% saving and keeps
// its scans on literals. A scan cannot get faster from back-references
// here: a Seeker never copies a value (Cell aliases it), so there is no
// memcpy for dedupe to save as in Kudu, and a back-reference costs a
// distance to decode and its copy's address (callgrind: 1.10x the
// instructions of the plain scan on shipmode, 1.03x on shipdate).
// Rounds spread by about +-10% on the loaded machine (shipdate encode
// 1.00x-1.09x in this run). 256 slots instead of 512 saved no
// measurable time and less space.
//
// Blocks without features pay for the tests that look for them (sub-block
// ends in Next and scan, the back-reference bit of value lengths, the value
// column in Cell). Against this package before the features (commit
// 88c780c), best of 8 alternating runs of BenchmarkBlock (user and
// lineitem keys, RowIndex and FastDiff): SeekGE +2-6%, Next scan +3-9%,
// encode -2 to +7%.
//
// # Checking
//
// NewSeeker and Init verify the CRC, the header and the restart array
// (HBase-style seekers trusted the bytes). Every read in the hot loop is
// bounds-checked, so a block with a correct CRC but hostile contents makes a
// move return false with Err wrapping ErrCorrupt, never a panic; a scan that
// reaches the end also checks that the cell count and the restart offsets
// match the cells. Cell order is not checked on the read path: Verify checks
// it, for blocks that did not come from this package's Encoder.
package blockenc
