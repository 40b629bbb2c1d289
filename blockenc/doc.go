// Package blockenc encodes a sorted run of cells as one data block and
// seeks in it without allocating: HBase's data block encodings (NONE,
// PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1) with our own byte layout.
//
// An Encoder takes cells in order (key ascending, then seq descending) and
// Finish returns the block. A Seeker reads a block: First, SeekGE, Next and
// Cell. The Key and Value slices Cell returns alias the block or the
// Seeker's key buffer and are valid until the Seeker's next move or Init.
//
// # Block format, version 1
//
// Fixed-width integers are little-endian. Lengths and counts are unsigned
// LEB128 varints (encoding/binary's Uvarint, written "uv" below). Seqs are
// Hadoop WritableUtils vlongs (package vlong: big-endian payload after a
// length marker byte), as HBase writes memstoreTS.
//
//	block    := header | cells | [restarts] | crc
//	header   := version u8 (=1) | encoding u8 | flags u8 (=0) | count uv
//	            | [interval uv]            (RowIndex only: restart interval)
//	cells    := cell * count               (layout per encoding, below)
//	restarts := offset u32 * ceil(count/interval)
//	                                       (RowIndex only: offset of every
//	                                        interval-th cell from the start
//	                                        of cells; the first is 0)
//	crc      := u32                        (CRC-32C, Castagnoli, of every
//	                                        byte before it)
//
// Version 1 writes flags 0 and rejects any set bit, and rejects encoding id
// 5. Both are kept for later features: flag bits 0-3 for LZ4, LZ4 with a
// preset dictionary, value dedupe and integer value columns; encoding 5 for
// a columnar layout. A reader that does not know a feature refuses the block
// instead of misreading it.
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
// # Seeking
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
// Every move allocates nothing (0 allocs/op). The machine was noisy:
// repeated runs of the same benchmark differ by up to 1.5x, so compare
// rows within a table, not across runs.
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
