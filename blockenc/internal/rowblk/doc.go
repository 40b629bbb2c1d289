// Package rowblk writes and reads the row encodings of blockenc blocks:
// None, Prefix, Diff, FastDiff and RowIndex (blockenc's doc has the block
// format and the Prefix, FastDiff and RowIndex examples), with the options
// that change how cells are stored: LZ4 and LZ4Dict cells
// (internal/lz4area), value dedupe and value and seq columns
// (internal/intcol). A Writer builds a block; a Reader seeks in it, its
// RowIndex Next (next.go) reading the common cell in one function and
// leaving any other to the general path (step.go).
//
// Kind and seq: FastDiff keeps the kind in a flags bit and Diff omits it
// when it repeats, so both pay nothing for it in runs of puts. None, Prefix
// and RowIndex keep HBase's separate type byte. Folding the kind into the
// seq vlong (seq<<1|kind) costs a byte whenever the doubled seq needs one
// more payload byte, and would make a seq unreadable without its kind.
//
// The five cells of blockenc's worked example in the other two layouts:
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
// Diff (63 bytes): flags [klen] [vlen] shared suffix value [kind] seq.
//
//	01 02 00 05
//	04 05 03 00 6170706c65 726564 09       kind Put as the cell before: no kind byte
//	01 00 05 00 07                         same klen; vlen 0, shares 5, Delete
//	00 06 03 05 74 726564 01 08            nothing the same: klen 6 vlen 3
//	06 05 04 79 726564 05                  same vlen and kind; klen 5, shares 4
//	04 06 06 00 62616e616e61 79656c6c6f77 8e03e8
//	05 b2 b3 2e
//
// # Value dedupe (flag bit 2)
//
// After Kudu's lossy-hash string dedupe: while encoding, a 512-slot table
// remembers where recent values are; a value found there (and not the
// previous value, which FastDiff already omits) is written as a
// back-reference:
//
//	value length field := vlen<<1        the value follows, vlen bytes
//	                    | vlen<<1 | 1    a back-reference follows:
//	backref            := dist uv        the value is the vlen bytes that
//	                                     start dist bytes before the dist
//	                                     field (dist >= vlen), in the same
//	                                     LZ4Dict sub-block
//
// Diff and FastDiff omit the field when the length repeats; a
// back-reference always writes it. The format does not say which values
// must be back-references: a literal is always valid, and the Writer turns
// its table off for blocks of mostly distinct values (dedupe.go).
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
// # Value and seq columns (flag bits 3 and 4)
//
// When every value of a block has the same width w in {1, 2, 4, 8}, the
// values may be stored as one shapeshift column before the cells, and the
// cells are written as if every value were empty (None, Prefix and
// RowIndex keep a 0 length byte per cell, Diff and FastDiff omit it through
// their "same length" and "same value" flags). With a value column the
// seqs may be a second column, after it, and every cell's seq vlong is
// then 0:
//
//	values := mode u8 | clen uv | column    mode: w (bits 0-6) | delta (bit 7)
//	seqs   := mode u8 | clen uv | column    mode: 0 | delta (bit 7)
//
// Value i is the big-endian unsigned integer of its w bytes; for w = 8 the
// int64 with the same bits. With delta the column holds the zigzag deltas
// of the values (internal/intcol): a block of several series steps evenly
// within a series and jumps between them, and deltas make the jumps a few
// exceptions. Chunks are 256 values. The Writer keeps three encodings of
// the cells (values inline; a value column; both columns) and Finish
// returns the smallest. A value or a seq in the cells of a block with the
// column is corrupt.
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
// are 8 KiB each): sub-block 0, the dictionary,
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
package rowblk
