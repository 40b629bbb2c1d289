// Package vlong reads and writes Hadoop's WritableUtils variable-length
// longs ("vlongs"), bit for bit, the way HBase writes each cell's MVCC
// sequence number (memstoreTS) after the cell in an HFile data block.
//
// # Format
//
// A vlong is 1 to 9 bytes. Values in -112..127 are the single byte int8(v):
//
//	+--------+
//	| v (i8) |     -112 <= v <= 127
//	+--------+
//
// Every other value is a marker byte followed by n = 1..8 payload bytes,
// big-endian, with leading zero bytes dropped:
//
//	+--------+-----------------------------+
//	| marker | payload: n bytes, big-endian |
//	+--------+-----------------------------+
//	  v >= 0:  marker = -112 - n   (0x8f for n=1 .. 0x88 for n=8), payload = v
//	  v <  0:  marker = -120 - n   (0x87 for n=1 .. 0x80 for n=8), payload = ^v
//
// Negative values store their one's complement, so small negative numbers
// stay short. The marker alone gives the total length (LenFromFirstByte),
// which is what lets a reader fetch the payload in as few loads as possible.
//
// Worked examples (value -> bytes), all from Hadoop's own WritableUtils:
//
//	0                    -> 00
//	127                  -> 7f
//	-112                 -> 90
//	-113                 -> 87 70                 (^-113 = 112 = 0x70, one byte)
//	128                  -> 8f 80                 (marker -113: one payload byte)
//	256                  -> 8e 01 00
//	564069676            -> 8c 21 9f 05 2c        (an MVCC number from a real HBase server)
//	1700104028981        -> 8a 01 8b d6 18 c3 35  (epoch milliseconds)
//	9223372036854775807  -> 88 7f ff ff ff ff ff ff ff
//	-9223372036854775808 -> 80 7f ff ff ff ff ff ff ff
//
// Decoders accept the non-minimal forms Hadoop's readVLong accepts: 8f 05
// reads as 5, and a positive marker with eight payload bytes whose top bit is
// set reads as the negative int64 those bits spell, exactly as Java does.
//
// # Decoders
//
// Three decoders return identical results; they exist to be measured against
// each other (see the benchmarks and README):
//
//   - DecodeBytewise: Hadoop's loop, one payload byte at a time (the reference).
//   - Decode: the default. HBASE-14186's reader as merged in HBASE-28256:
//     the payload is read 4 bytes, then 2, then 1 at a time, never past the
//     end of the value. The 4-byte read is masked as unsigned (the first HBase
//     version was not, and decoded 2^31 as -2^31). A caller's loop inlines
//     the one-byte case with OneByte and calls Decode for longer values.
//   - DecodeWide: one 8-byte load when at least 9 bytes are readable
//     (HBASE-28256's first idea), else the Decode path.
//
// Every decoder returns an error wrapping ErrTruncated when b is shorter than
// the encoding its first byte announces (empty input included). No input
// makes a decoder panic.
package vlong
