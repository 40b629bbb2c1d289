// Package layout is kv's key layout: the keys a Store writes in its engine
// under its namespace (Keys), and the registry entry that claims the
// namespace (RegistryKey).
//
// # Key layout, version 2
//
// A Store owns the namespace N = Options.Prefix (P) + Separator (the byte
// 00): every key it writes starts with N, followed by a tag. Integers in
// keys are big-endian so that Badger's byte order is numeric order.
//
//	N 'w' | seq u64 | chunk u16            -> WAL record (chunk of it)
//	N 's' | segment id u64 | last key      -> block: the cells of one block,
//	                                          blockenc format; the key ends
//	                                          with the block's last cell key
//	N 'm' | segment id u64                 -> segment meta, or empty: the
//	                                          segment was compacted away
//	N 'd' | segment id u64 | part u32      -> the preset dictionary of one
//	                                          part of the segment (see
//	                                          package segment: meta version
//	                                          5 and later)
//	N 'f' | segment id u64 | run u32       -> the key filter of one run of
//	                                          the segment's blocks (see
//	                                          package segment: meta
//	                                          version 6 and later)
//	R | P                                  -> registry entry: layout u8 (=2)
//	                                          | engine data (none on Badger;
//	                                          the writer's lease on TiKV)
//
// R is ff "kvenc/store/" (ff 6b76656e632f73746f72652f): one key per Store
// of the DB, outside every namespace (R holds no 00 byte and a Prefix that
// starts with R is refused). For example with P = "P": seq 300 chunk 1 is
// 50 00 77 000000000000012c 0001; the block of segment 7 ending at "pear"
// is 50 00 73 0000000000000007 70656172; its meta is under 50 00 6d
// 0000000000000007, the dictionary of its part 1 under 50 00 64
// 0000000000000007 00000001, the key filter of its run 1 under 50 00 66
// 0000000000000007 00000001; the registry entry is ff
// 6b76656e632f73746f72652f 50 -> 02 (pinned by testdata/keys-v2.bin). The
// tags are part of the format ('w', 's', 'm', 'd', 'f'; never reuse
// them). A kvenc that writes no dictionary keys (segment meta versions
// before 5) or no key filter keys (before 6) counts them as foreign keys,
// and refuses the metas that name them.
//
// A compaction replaces the metas of the segments it merged with empty
// values in the transaction that writes its own meta; they are never
// deleted one by one, because an engine may hand a deleted key's old
// value back (Badger's value-log GC does), while an empty value is the
// key's newest version and hides every older one. Reclaiming space removes
// every version of them at once (Badger's DropPrefix). A kvenc that does
// not know empty metas refuses the store (a meta that does not decode is
// ErrCorrupt) rather than read it.
package layout
