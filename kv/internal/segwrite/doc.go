// Package segwrite writes a Store's segments into its engine (package
// kv/engine): the blocks of a flush or a compaction as they fill
// (Writer.Add), blocks copied as they are from another segment
// (Writer.CopyBlocks, CopyRuns), the preset dictionaries they are
// compressed against (sampled by SampleMemstore and SampleSegments), and
// last the segment's meta (Writer.Finish), whose bytes package
// kv/internal/segment specifies. It deletes them again: a segment cut
// short (Writer.Abort) or compacted away (Store.DeleteSegment).
//
// # Order of the writes
//
// A segment is written in this order:
//
//	block 0 [dict 0] block 1 ... block n-1   batches of about 1 MiB,
//	filter                                    not atomic together
//	meta [replaced meta ...]                  one transaction, last
//
// Blocks go under layout.Keys.Block(id, lastKey) in key order, each
// compressed by a pool of goroutines while the caller encodes the next
// and written by one more goroutine in order. A part's dictionary goes
// under layout.Keys.Dict(id, part) in the batch of the part's first
// block: a segment whose blocks all share one dictionary stores it once,
// and a meta names its parts' dictionaries by length and ID only. The
// key filter of the segment's keys (package kv/internal/bloom), built as
// the cells are added and the blocks copied, goes under
// layout.Keys.Filter(id, run) in the batch of the last blocks. The
// meta comes last because it is what makes the segment exist: Open loads
// only segments with a meta and deletes every block, dictionary and key filter
// without one, so a flush or compaction cut short at any point before
// the meta's commit leaves garbage, never a segment missing blocks. The
// meta's transaction also sets the metas of the segments a compaction
// replaces to segment.Replaced, so that the output and the end of its
// inputs become visible at once.
//
// An extension (Store.ExtendWriter) writes its blocks under the id of
// the segment it extends, after that segment's blocks, with a key filter
// of its own for them (a run: a Bloom filter cannot grow), and then that
// segment's meta again counting them; until the new meta commits, its
// blocks sort past the old meta's last key and Open deletes them.
//
// # Batches
//
// The blocks go in batches of about 1 MiB (segBatchBytes), each split
// further as the engine needs (engine.WriteSplit): Badger writes a
// transaction into one value-log file, so a segment written in one
// transaction would fill a file of its own size, where value-log GC
// cannot free the garbage that later shares the file. The batches of
// blocks, dictionaries and filters, and the deletes of what a failed
// writer wrote, are unseen (engine.Batch.SetUnseen): no read looks those
// keys up before the meta commits, so an engine that lends snapshots to
// readers keeps lending them until the meta's write.
//
// The compressors finish blocks into buffers the Store keeps: once a
// batch is written the engine holds none of its values (Engine.Write), so
// its blocks' buffers take the next blocks, of the same segment or a later
// one. The Store keeps at most two batches of free buffers.
//
// Errors from stored bytes (a block copied whose head does not decode)
// wrap blockenc.ErrCorrupt; a segment or meta too large for the engine
// wraps Config.TooLarge.
package segwrite
