// Package segment is the format of kv's segments: the meta that
// describes one (Meta, Append, DecodeMeta), the settings its blocks were
// made with (Settings), and the in-memory Segment a Store reads through:
// the block index (the last key of every block, FindBlock), the range
// tombstones (package rangedel), the preset dictionaries of its parts and
// the key filters of its runs of blocks (package bloom, MayHold).
//
// # Meta, version 6
//
// Written after all of the segment's blocks, in its own transaction (which
// for a compaction also deletes the metas of the segments it replaces): a
// segment without a meta is garbage from a flush or compaction cut short,
// and Open deletes its blocks. A flush that extends a segment (see package
// kv, Writes, flush and recovery) writes the segment's meta again, under its id, after
// the new blocks: Open deletes a segment's blocks whose key sorts after
// its meta's lastKey, left by an extension cut short. Integers
// little-endian:
//
//	meta := version u8 (=6) | id u64 | walSeq u64 | minSeq u64 | maxSeq u64
//	        | blocks u64 | cells u64 | keys u64 | bytes u64
//	        | firstKeyLen uv | firstKey | lastKeyLen uv | lastKey
//	        | dels uv | del * dels | tombstones uv
//	        | settingsLen uv | settings | parts uv | part * parts
//	        | filters uv | filter * filters | crc32c u32
//	del    := seq u64 | startLen uv | start | endLen uv | end
//	part   := blocks uv | dictLen uv | [dictID u32, when dictLen > 0]
//	filter := blocks uv | filterLen uv | [filterID u32, when filterLen > 0]
//
// walSeq: every write with a seq at or below it is in a segment; Open
// replays only the WAL records above the largest walSeq (and deletes the
// others). keys counts distinct keys: a segment with as many keys as cells
// holds one version per key, and its readers skip no older versions (no key
// comparison per cell). blocks must equal the number of block keys found at Open, else
// Open fails with ErrCorrupt. The dels are the segment's range tombstones
// (see package kv, Range deletes), sorted by start, then end, then seq descending; each
// has start < end and a seq within minSeq..maxSeq, else Open fails with
// ErrCorrupt. They live in the meta, not in the blocks: Open reads them
// into memory with the meta. minSeq and maxSeq cover the tombstones' seqs
// too (a segment may hold tombstones and no cell); a segment with
// neither, left by a compaction, has the seqs of the segments it
// replaced (0 and 0 in metas of earlier versions). tombstones counts the
// Delete cells among the cells (at most cells). settings records how the
// blocks were made:
//
//	settings := version u8 (=1) | encoding u8 | compression u8 | level u8
//	            | flags u8 | restartInterval uv | blockSize uv | dictSize uv
//
// with the blockenc.Options fields of those names (flags: 1 DedupeValues,
// 2 IntValues), Options.BlockSize, and Options.DictSize + 1 (0: no segment
// dictionaries); a compaction copies a segment's blocks only when they are
// what it would write (see package kv, Writes, flush and recovery). The parts cut the
// blocks, in order, into runs (each of at least one block, together all of
// them) that share a preset dictionary (see package kv, Segment dictionaries): a
// flushed segment has one part, a compaction's output one per run of the
// blocks it copied and wrote in which the dictionary stays the same. Every
// block of a part whose value area is compressed against a dictionary uses
// the part's, and a block's dictionary ID must match it; dictLen 0: the
// part's blocks carry their own. The dictionary itself (dictLen bytes
// whose CRC-32C is dictID) is stored once, under a key of its own (see
// package layout: the segment id and the part's number), written with the
// part's first blocks, before the meta; a meta that an extension writes
// again does not repeat it, so a meta stays small enough to live inline in
// Badger's LSM tree. A dictionary whose length or CRC-32C differs from its
// part's, or a part without its dictionary, is ErrCorrupt (Part.SetDict).
// Open keeps the dictionaries in memory with the meta.
//
// The filters cut the blocks, in order, into runs (each of at least one
// block, together all of them; none in a segment without blocks) whose
// cells' keys one key filter holds (package bloom, 10 bits per key: about
// 1% false positives). kv writes none for the oldest segment
// (filters 0: its blocks are searched for every key). A flushed or compacted segment has one run; an
// extension adds one for its blocks, since a Bloom filter cannot grow. A
// point read looks a key up in the block of a segment that may hold it
// only when that block's run's filter passes the key. The filter
// (filterLen bytes whose CRC-32C is filterID) is stored under a key of
// its own (see package layout: the segment id and the run's number),
// written with the run's last blocks, before the meta; filterLen 0: the
// run has no filter and its blocks are searched for every key. A filter
// whose length or CRC-32C differs from its run's, that does not decode,
// or a run without its filter, is ErrCorrupt (FilterRun.SetFilter). Open
// keeps the filters in memory with the meta: about 1.25 bytes per
// distinct key.
//
// Worked example, pinned by testdata/meta-v6.bin: segment 7, walSeq 300,
// seqs 1..300, 2 blocks, 1000 cells of 800 keys (5 of them tombstones),
// 40000 bytes, keys "apple".."pear", one range tombstone ["b", "d") at
// seq 250, the settings of DefaultOptions' compactions (Columnar, LZ4Dict,
// level 9, both flags, restart interval 16, 16 KiB blocks, 64 KiB - 1 of
// dictionary), two parts of one block, with the dictionaries "|N|O|"
// and "|A|R|" (CRC-32C 8e9598f1 and 9e28884f), and one filter run of both
// blocks whose filter is package bloom's example (01 07 60 f4 0b de,
// CRC-32C f9cdb208):
//
//	06 0700000000000000 2c01000000000000 0100000000000000 2c01000000000000
//	0200000000000000 e803000000000000 2003000000000000 409c000000000000
//	05 6170706c65 04 70656172
//	01 fa00000000000000 01 62 01 64
//	05                                    5 tombstones
//	0c 01 05 02 09 03 10 808001 808004    settings, 12 bytes
//	02 01 05 f198958e 01 05 4f88289e      2 parts: blocks, dictLen, dictID
//	01 02 06 08b2cdf9                     1 filter: blocks, filterLen, filterID
//	7073c4a2                              CRC-32C
//
// Version 5 (testdata/meta-v5.bin) is version 6 without filters and their
// count (version byte 05, the CRC-32C ff 00 9f a0); it is still read, as a
// segment without key filters whose blocks are searched for every key. A
// kvenc that reads at most version 5 refuses a version 6 meta.
//
// Version 4 (testdata/meta-v4.bin) is version 5 with each part's
// dictionary inline, part := blocks uv | dictLen uv | dict (the example's
// parts are 02 01 05 7c4e7c4f7c 01 05 7c417c527c); it is still read, the
// dictionaries from the meta. Version 3 (testdata/meta-v3.bin) is version 4 without tombstones,
// settings and parts, and with one dictLen and dict after the dels for all
// blocks: it is read as one part, and its blocks are never copied (their
// settings are unknown). Version 2 is version 3 without dictLen and dict
// (version byte 02), read as a segment whose blocks carry their own
// dictionaries; version 1 is version 2 without the dels count and dels
// (version byte 01), read as a segment without range tombstones
// (testdata/meta-v3.bin, meta-v2.bin and meta-v1.bin hold the example
// above in those versions, with one part and no tombstone count).
package segment
