// Package wal is kv's write-ahead log: the record that holds one batch
// (Append, or AppendUnsealed then Seal once the seq is known; Decode),
// the files a Store on a directory keeps them in, one per memstore
// (Files, File, OpenFiles, DecodeFile), and the keys a Store whose WAL is
// in its engine keeps them under (EngineBatch, ReadEngine, EngineKeys).
//
// # Record, version 2
//
// One record per Put, Delete, DeleteRange or Apply of a kv Store. A Store
// on a directory writes it to a WAL file (below); a Store whose WAL is in
// its engine writes it there in one transaction, in chunks of at most
// Chunk (256 KiB) under consecutive chunk numbers. Either way a batch is
// atomic also across a crash (a record is replayed whole or not at all).
// Integers little-endian, "uv" an unsigned LEB128 varint:
//
//	record := version u8 (=2) | seq u64 | count uv | op * count | crc32c u32
//	op     := kind u8 | klen uv | key | [vlen uv | value]
//
// The op kinds are part of the format (never reused): 1 Put (the value
// follows), 0 Delete (no value), 2 DeleteRange (key is the range's start,
// value its end, start < end). The CRC (Castagnoli) covers every byte
// before it. Worked example, pinned by testdata/wal-v2.bin: seq 300, Put
// "apple"="red", Delete "pear", DeleteRange ["b", "d"):
//
//	02                       version 2
//	2c01000000000000         seq 300
//	03                       3 ops
//	01 05 6170706c65 03 726564   Put, "apple", "red"
//	00 04 70656172           Delete, "pear"
//	02 01 62 01 64           DeleteRange, "b", "d"
//	2b 21 3f 47              CRC-32C
//
// Version 1 is the same without op kind 2; Open replays version 1
// records (testdata/wal-v1.bin: the first two ops, version byte 01).
//
// # File, version 1
//
// A Store that Open opened on a directory keeps its WAL records in files
// in its subdirectory wal: one file per memstore, created at its first
// write and removed once the memstore is in a segment, named by a number
// (16 hexadecimal digits, ascending) and ".log":
//
//	file  := magic "kvencWAL" | version u8 (=1) | frame*
//	frame := length u32 | record
//
// The records of a file follow in the order their writes reached it: in
// seq order when each writer took its seq as its record queued (kv does,
// but for records larger than 64 KiB), else not necessarily. Open reads
// every file, replays the records above the largest walSeq in seq order,
// and removes each file once the memstores replayed from it are flushed. A write in flight when the
// process died leaves a last frame cut short or failing its record's CRC:
// Open leaves it out (that write never completed). A bad frame before the
// last one, or a bad header, fails Open with ErrCorrupt. Writers that
// write at once share one write of their frames (group commit, see File);
// SyncWrites fsyncs the file after each write, so a write is durable when
// it returns; without it a record survives a crash of the process, not of
// the machine (as Badger's value log without SyncWrites). Buffered
// (Files.SetBuffered) a writer does not wait for the write at all: a
// goroutine writes the frames queued, in queue order, so a crash of the
// process loses the frames still queued, a suffix of the file's. The worked
// example above as a file, pinned by testdata/walfile-v1.bin:
//
//	6b76656e6357414c 01      magic, version 1
//	24000000                 frame of 36 bytes
//	02 2c01000000000000 ...  the record above
//
// Why kv keeps the WAL out of Badger, and when a Store replays it: see
// package kv.
package wal
