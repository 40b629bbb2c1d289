// Package kv is kvenc's store: sorted key/value cells kept in Badger as
// encoded data blocks (package blockenc), HBase style. A Store either owns
// its Badger DB (Open) or lives under a key prefix inside the caller's DB
// (Wrap) and never touches a key outside its namespace and its registry
// entry.
//
//	write:  Put/Delete/DeleteRange/Apply -> seq (mvcc) -> WAL record (file, or Badger) -> memstore -> complete
//	flush:  memstore full -> freeze -> encode blocks -> segment in Badger -> drop WAL records
//	read:   memstores + segments, merged, versions above the read point hidden
//
// # Engines
//
// A Store keeps its keys in an engine: an ordered, transactional key-value
// store behind the small interface of package kv/engine (point reads,
// atomic batches, bounded iteration both ways, range deletes). Open and
// Wrap use Badger; OpenEngine opens a Store on any other engine (the
// kvtikv module's TiKV engine keeps a Store in a TiKV cluster), which
// then also holds the WAL. Package kv/engine/enginetest wraps an engine
// to fail its Nth call, to test what a Store does about engine errors.
// The formats a Store writes are specified by the packages that write
// them: kv/internal/layout (keys), kv/internal/wal (WAL records and
// files), kv/internal/segment (segment metas); blocks are package
// blockenc's.
//
// # Key layout, version 2
//
// A Store owns the namespace N = Options.Prefix (P) + Separator (the byte
// 00): every key it writes in its engine starts with N, followed by a tag
// (WAL record, block, segment meta), and one registry entry outside every
// namespace claims the prefix. Package kv/internal/layout specifies the
// bytes, with a worked example.
//
// Namespaces: stores with prefixes "u", "us", "user" and "users" live in
// one DB side by side ("u" 00 and "us" 00 share no key), and an app key
// under P but outside N (such as "idx/s-my-own-key" next to a Store with
// Prefix "idx/") is never read or deleted. Only a prefix that extends
// another by the Separator byte ("u" and "u" 00 "x") shares keys with it:
// Open and Wrap read the registry and refuse such a prefix with
// ErrPrefixInUse naming both. They also refuse a new prefix whose
// namespace already holds keys (no Store wrote them), and a second Store
// on a prefix of a DB on which one is open in this process. Keys in the
// namespace of a Store that are not in this layout (another tag, a wrong
// length) are counted and reported by ForeignKeys, never read or deleted;
// keys in the layout are the Store's (a block without a meta is garbage
// and deleted at Open).
//
// Layout 1 (P 'w' ..., P 's' ..., P 'm' ... with no separator and no
// registry) let overlapping prefixes read and delete each other's keys.
// It is not migrated: Open and Wrap of a prefix without a registry entry
// under which a layout 1 segment meta or WAL record lies fail with
// ErrFormat and leave its keys alone; read its cells with the kvenc
// version that wrote it and write them into a Store of this version.
//
// A key's versions never straddle two blocks, so the last keys of a
// segment's blocks are strictly increasing and the Badger key of a block is
// unique. They are also the segment's block index: Open reads them (keys
// only) into memory, and a Get binary-searches it for the first block whose
// last key is >= the key, then seeks inside that one block. No Badger
// iterator is needed on the read path: a cache hit touches no Badger at all,
// a miss is one Badger point Get.
//
// # WAL
//
// One WAL record per Put, Delete, DeleteRange or Apply, its bytes
// specified by package kv/internal/wal (record and file formats, with
// worked examples). A Store that Open opened on a directory writes it to
// a WAL file in the directory's subdirectory wal (one file per memstore,
// removed once the memstore is in a segment); a Store in a shared DB
// (Wrap), on another engine (OpenEngine) or in memory writes it into the
// engine in one transaction, in chunks of at most 256 KiB under
// consecutive chunk numbers (key N 'w' seq chunk above). Either way a
// batch is atomic also across a crash (a record is replayed whole or not
// at all). Open reads every file and the records in the engine, replays
// the records above the largest walSeq of the segments in seq order, and
// leaves out a write the process did not finish (a last frame cut short
// or failing its CRC); a bad record before the last one fails Open with
// ErrCorrupt.
//
// Durability. Apply returns once its record is in the WAL file: written
// (the operating system holds it: the write survives a crash of the
// process, not of the machine, as with Badger's SyncWrites off), or with
// Options.SyncWrites fsynced (it survives a power loss too, as with
// Badger's SyncWrites or Pebble's Sync). Writers that Apply at once share
// the file's writes (group commit): the first to find no write in
// progress writes the records of every writer queued so far with one
// write and, with SyncWrites, one fsync, so that durable writes from many
// goroutines cost about one fsync per group rather than one per Apply. A
// writer takes its seq as its record joins the queue, so that the groups
// are written in seq order. It inserts its cells into the memstore while
// its record is being written; readers see them only once the write and
// every write with a lower seq have returned. A failed WAL write fails its whole group, and
// the Store then refuses reads and writes until it is reopened.
//
// Options.WALBuffered (Pebble's Sync false) makes Apply return once its
// record is queued in memory: the first writer to find no write in
// progress starts a goroutine that writes the queued records, one write
// per group, in seq order, until none is left, and a writer waits while
// WALBufferSize (1 MiB) of records are queued. A memstore's queued
// records are written before the next memstore's file takes one, and
// Flush, Close and Sync write every queued record first. A failed
// background write fails every later write with its error (reads go on:
// the writes it lost were acknowledged and are in the memstore, which a
// Flush still writes to a segment). What survives, by setting:
//
//	setting        kill -9 of the process          power loss
//	SyncWrites     every acknowledged write        every acknowledged write
//	default        every acknowledged write        what the OS wrote back
//	WALBuffered    the acknowledged writes but a   what the OS wrote back
//	               suffix: those still queued
//
// A suffix: a write that survives has every write acknowledged before
// it began survive too (the records are written in seq order, and a
// write's seq is above those of every write acknowledged before it
// began), so a crash loses the last writes, never one in the middle.
// Sync makes every write acknowledged before it survive a power loss
// under any setting (it writes the queued records and fsyncs the WAL
// files and Badger).
//
// Keeping the WAL out of Badger keeps its bytes out of Badger's value log,
// where the blocks are: a write costs one file write instead of a Badger
// transaction, and Badger's single write goroutine carries only blocks
// and metas. Open replays WAL records found in Badger too (written by a
// Store of an earlier version), deletes them as their memstores flush,
// and drops them from Badger at the next Compact. Wrap reads no WAL file:
// a Store on a directory whose process died is reopened with Open first.
//
// # Segments
//
// A flush or compaction writes a segment: its blocks first, then its meta
// (counts, key range, range tombstones, block settings, dictionaries, key
// filters),
// whose bytes package kv/internal/segment specifies (versions 1 to 6, with
// a worked example). A segment without a meta is garbage from a flush or
// compaction cut short, and Open deletes its blocks; a segment's blocks
// past its meta's last key are an extension cut short (see Writes, flush
// and recovery), deleted too. A compaction sets the metas of the
// segments it replaces to a one-byte marker (00, package
// kv/internal/segment) in the transaction of its output's meta rather
// than deleting them, since an engine may show a deleted key's old value
// again (Badger v4.9.6's value-log GC writes back a value it finds at its
// own version, beneath a tombstone that a compaction then drops with the
// version under it); the marker hides every older version of the meta,
// Open takes its blocks for garbage, and space reclaiming removes it. A
// meta whose seqs lie within those of a segment with a higher id is one a
// compaction replaced too (from a store written before the markers,
// or shown again anyway), and Open deletes it and its blocks; an empty
// compaction output keeps the seqs of the segments it replaced for this.
// Open replays only the WAL records above the largest walSeq of the
// metas, and fails with ErrCorrupt when a meta's block count differs from
// the blocks found.
//
// # Writes, flush and recovery
//
// A write takes a seq from mvcc, writes its WAL record, adds its cells to
// the active memstore (memory for them is reserved first, so a batch never
// lands half in one memstore) and waits until the read point covers it.
// With WAL files (Open on a directory) the record is written to the
// memstore's file, then the cells added; a failed file write fails that
// write and the later ones into the same memstore (Flush starts a new
// one). In memory (Open with no directory) the cells go into the memstore
// while Badger commits the WAL record, invisible to readers until the
// write completes; if that commit fails, the Store fails every later
// read, write and flush with the commit's error (no reader sees the
// write, no segment holds it). A Store in a shared DB (Wrap) adds the
// cells after the commit, so that a commit another user of the DB makes
// fail costs only that write. A
// full memstore is frozen (no write is in flight then, so it holds exactly
// the seqs after the previous freeze) and flushed in the background: its
// cells are encoded into blocks of about BlockSize, the blocks written,
// the meta written last, then its WAL records deleted. Frozen memstores
// stay readable until their segment is installed.
//
// Write stalls. A writer that finds the active memstore full while two
// frozen ones wait for their flush is held back until the oldest of them
// is flushed (it flushes that one itself when no flush runs: the
// background may be compacting; else it waits for the running flush),
// then freezes the full one. So the memstores never hold more than three
// arenas, whatever the number of writers. Stats.WriteStalls and
// WriteStallTime count the stalls.
//
// Flush and compaction keep every version above the read point, and for
// the read point and every pinned one (Snapshots, Iterators) the newest
// version at or below it; the rest no reader can see. Compaction also
// drops tombstones with nothing older beneath them when its input ends with
// the oldest segment (segments hold disjoint seq ranges, newest first).
// Background compaction is size-tiered: once CompactionTrigger segments
// exist, the first run of adjacent segments in which each next older one is
// at most twice the run so far is merged (at most the run so far when
// every one of them would be copied, below: a load in key order then
// copies each block fewer times). Compact merges everything; a store of
// one segment that a compaction would copy whole (below) it leaves as it
// is.
//
// A compaction copies the blocks of an input it would not change, as they
// are, instead of decoding and compressing them again (as Pebble moves a
// file that overlaps nothing down a level): an input that holds one
// version per key, no tombstone (point or range), whose blocks were made
// with the compaction's settings, and whose key range no other input's
// keys or range tombstones reach into. Its blocks keep their dictionary
// (one part of the output). The other inputs are merged as above, their
// cells written between the copied runs. Inside the merge, an input of
// that kind that other inputs overlap still has its blocks copied where
// they come out unchanged: a run of at least four of its blocks whose
// keys all sort before every other input's next cell and that no other
// input's range tombstone reaches into. When such an input holds at least
// half of the merged bytes, the merged cells are compressed against its
// dictionary, so that the copied runs and the merged blocks between them
// form one part. A flush whose keys lie outside
// every segment's range writes its blocks at the compaction's settings
// (Options.CompactionLevel), so that a load in key order compresses each
// value once at that level and its compactions only copy. Such a flush
// whose keys all sort after those of the newest segment, when that one
// is of the same kind (one version per key, no tombstone, the
// compaction's settings), extends it: its blocks go under that segment's
// id after the segment's own, and the segment's meta is written again
// counting them (a meta of a few hundred bytes: the dictionary has a key
// of its own, written once per part, and the meta stays in Badger's LSM
// tree rather than its value log). A load in key order so makes one
// segment, which no compaction copies, Compact included. With the WAL in
// Badger the value-log files that hold its blocks hold the WAL records of
// their batches too, which value-log GC reclaims once the flushes have
// deleted them.
//
// # Many goroutines
//
// Writes from many goroutines run at once: they share WAL writes (group
// commit) and insert into the memstore without a lock. Their cells
// become visible in seq order, so a write returns once every write with
// an earlier seq has completed, and a writer that took its seq and then
// waits for a processor holds back every write after it. Go's scheduler
// lets a goroutine that does not block run for up to 10 ms, so with more
// goroutines than processors that wait, not the write itself, makes the
// slowest writes. A write that finds more writes in flight than
// GOMAXPROCS (as it was at Open) therefore first gives up its processor
// once (runtime.Gosched), before it takes a seq: the goroutines ready to
// run, writers holding earlier seqs among them, run first, and the writes
// that arrive meanwhile queue together and share a WAL write. A goroutine
// that gave up its processor waits in the runtime's global run queue,
// which a processor busy with goroutines that never block (reads served
// from memory) looks at rarely, so while a write waits there Get,
// NewIterator and an Iterator's Next and Prev give up their processor
// once too. With no more writes in flight than processors nothing
// yields, nor with SyncWrites: a durable write waits for an fsync, far
// longer than for a processor, and a writer about to lead a group commit
// yields once before its write instead, so that the writers it lets run
// join the group. Stats.Yields counts the yields.
//
// # Range deletes
//
// DeleteRange(start, end) (and Batch.DeleteRange) writes one range
// tombstone (start, end, seq) whatever the number of keys it covers: for a
// reader at a read point at or above seq it deletes every version with a
// seq below seq of every key in [start, end). Versions at seq (written
// later in the same batch: the batch drops its own earlier operations on
// keys in the range) and above it are live as usual, and a reader below
// seq (a Snapshot or Iterator taken earlier) does not see the tombstone.
//
// A memstore keeps its range tombstones in a small list beside the
// skiplist, a segment in its meta. Readers cut the tombstones of every
// memstore and segment at their start and end keys into fragments that
// do not overlap, each with the seqs, descending, of the tombstones over
// it (as Pebble's keyspan fragmenter does). The newest version of a key
// at the read point is hidden when the fragment holding the key (binary
// search) has a seq at or below the read point and above the version's:
// one decision that Get and Iterators share. An Iterator that meets a
// hidden version moves every source whose cells are all older than the
// tombstone (a segment by its maxSeq, a frozen memstore by its last seq)
// past the fragment with one seek, so a scan across a deleted range costs
// a seek per source, not a step per deleted cell.
//
// Flush and compaction treat a range tombstone over a key as one more
// newer version of the key when they decide which versions a reader can
// still see (see Writes, flush and recovery): the cells it deletes go once
// no pinned read point lies between them and it. A flush keeps every
// tombstone of its memstore, and so does a compaction whose input does not
// end with the oldest segment (older segments may hold cells they delete).
// Otherwise a compaction keeps a fragment of a tombstone only while it is
// the oldest tombstone newer than a cell the output keeps (for a snapshot
// that still sees the cell), or while its seq is above the read point,
// and joins the kept fragments back into tombstones where they abut. A
// range of a million cells so costs one WAL record to delete, and its
// space comes back at the compaction that includes the oldest segment
// (TestDeleteRangeSpace measures the files before and after).
//
// A memstore counts each range tombstone against its size (its keys twice
// plus 128 bytes), so a memstore of many tombstones flushes too. The
// tombstones of all segments are fragmented together once per flush or
// compaction, a memstore's at each write that holds DeleteRanges (a batch
// of many once), and an Iterator joins them anew only when more than one
// source holds any: tombstones are meant to be few and wide (retention,
// dropping a series), not one per key.
//
// # Blocks: defaults and what a read costs
//
// Blocks default to Columnar with an LZ4Dict value area, cut at 16 KiB
// (DefaultBlockOptions and DefaultBlockSize say why), and compactions
// write them at LZ4 level 9 (Options.CompactionLevel; flushes keep
// Block's level 0, LZ4's fast parse, unless no segment holds keys in their
// range). Compacted blocks are written once and read until the next
// compaction rewrites them, and read as fast at every level (plain LZ4).
//
// A Get that misses the cache reads one block from Badger (one point Get
// and the block's mmapped bytes from the value log), copies it once into
// the cache (from its second miss on; the first is decoded in place),
// checks the CRC of the block's head (every byte before its value area's
// data), decodes its key, seq and value-end columns, and checks and
// decompresses the one 1 KiB sub-block of the value area that holds the
// value (see Segment dictionaries), not the whole area. BenchmarkBig
// measures it beside Badger with its defaults on data eight times the
// cache; bench/RESULTS.md has the numbers.
//
// The Badger point Get runs in a read-only transaction the Store lends
// out, not in one of its own: beginning a Badger transaction takes
// Badger's oracle mutex and wakes its watermark goroutine, and discarding
// it wakes that goroutine again, so with a transaction per Get the Gets
// of several goroutines queue on the mutex and a lone Get keeps a second
// core busy. A lent transaction serves one read at a time; it is dropped
// when a flush or compaction installs a segment (whose blocks were
// committed after it began) and at 50 ms of age, so that Badger's
// compactions, which keep every version its oldest open transaction may
// read, wait for it no longer than that.
//
// A warm scan (every block cached, its slot Seeker decoded) is the
// Seeker's Next plus the Iterator's per-cell work, nothing per block but
// a cache lookup; a cold scan (the first after Open) pays per block one
// Badger read, then the copy, CRCs, LZ4 and column decode once. The
// Iterator's own per-cell work is small: Next calls a lone segment source
// directly (no interface call) and the source takes the Seeker's cell
// straight into place. Cached blocks keep up to four decoded Seekers so
// that concurrent readers of one hot block do not decode it again; an
// evicted block's Seekers go to a pool that the next miss Inits on its
// block, so a miss does not allocate a Seeker's buffers.
//
// From its second block in one direction, a scan reads blocks in order
// through one engine iterator over its segment's block keys instead of a
// point Get per block: in Badger the iterator steps to the next block's
// key for about a quarter of what a Get pays to search every level of
// Badger's tree, and on TiKV it fetches a batch of blocks per request.
// The iterator holds a read transaction, as any Badger iterator does,
// from there until the Iterator seeks, turns or closes (or the Store
// closes), so Badger keeps what is deleted meanwhile (and the value-log
// files holding it) until then: close Iterators when done with them.
//
// Scans read ahead when GOMAXPROCS > 1. Once an Iterator has moved through
// two blocks of a segment in one direction, a reader goroutine reads every
// block that follows, through that one iterator, so each block is fetched
// from the engine once, and hands them to the scan in order. The two share
// the decoding: of every five blocks the reader decompresses three whole
// (blockenc.Seeker.Decompress) and hands the other two over as read, for
// the scan to decode as it steps through them, while the scan steps
// through the cells of all five. Each polls for the other (yielding
// its processor) for up to a millisecond before it blocks, because waking
// an idle processor can take as long as decoding a block on virtual
// machines, and a goroutine woken from a channel waits on its waker's
// processor; after a poll that ran out the next one polls half as long,
// down to not at all, so that a slow caller does not keep a processor
// spinning. The reader stops at the segment's end, at the Iterator's
// bounds, at a bad block (whose error the scan meets where it would have
// without read-ahead) and when the Iterator seeks, turns or closes. It
// buys wall time with CPU: a scan takes more CPU per cell than without it
// (BenchmarkBig, op=scan, reports both).
//
// # Segment dictionaries
//
// A 16 KiB block is too small for LZ4 to find much to match on its own,
// and an in-block dictionary costs a point read its decompression. So a
// segment has one preset dictionary (RocksDB's per-file compression
// dictionary, Lucene's preset dictionaries, with LZ4): before its first
// block, a flush samples the values of its memstore (every k-th cell, up
// to 2048 values) and a compaction the values of up to 32 blocks spread
// over its inputs, and blockenc.SampleDict makes a dictionary of
// Options.DictSize bytes (64 KiB - 1 by default, the reach of an LZ4
// match; at most 1/16 of the segment's value bytes, none below 1 KiB) from
// them. A flush written at the compaction's settings (keys in order, see
// Writes, flush and recovery) takes instead the dictionary of the previous
// such flush when that one is of the full DictSize: a load in key order
// samples once, and the copies of its segments make one part. Every
// block's value area is then compressed in sub-blocks of about 1 KiB
// against it (blockenc.Options.Dict). The dictionary is stored once per
// part of the segment, under a key of its own that the meta names with
// the dictionary's length and CRC-32C (meta format version 5; a
// compaction that copies blocks keeps one part per run of blocks with one
// dictionary; version 4 metas, which hold their dictionaries inline, are
// still read), and held in memory while the segment lives; each
// block records the dictionary's ID (its CRC-32C), so a block read against
// another dictionary is ErrCorrupt. Blocks whose values are not LZ4
// compressed (integer or dictionary-encoded value columns) ignore it. A
// scan decompresses every sub-block, and text compressed against a large
// dictionary decodes as many short matches, so scans cost more per cell
// than with in-block dictionaries (bench/RESULTS.md has both). DictSize <
// 0 turns it off: each block then carries its own dictionary sub-block.
//
// # Key filters
//
// Segments overlap in key range (hashed keys, updates spread over the key
// space), so without more a Get of a key held by an older segment would
// read a block of every newer one first. Each segment therefore keeps a
// Bloom filter of its keys (Pebble's table filter, HBase's ROW bloom;
// package kv/internal/bloom specifies it): 10 bits per distinct key,
// about 1% false positives, so a Get reads a block of a segment that does
// not hold its key about once in a hundred. The oldest segment has none
// (RocksDB's optimize_filters_for_hits): a Get looks in it last, so its
// filter would only spare the reads of keys no segment holds, and it is
// the largest (after a full compaction, all the data). A flush and a
// compaction that write any other segment write one filter for it, each
// extension of a segment one for its blocks (a run), under keys of their
// own that the meta names with length
// and CRC-32C (meta format version 6); Open reads them into memory with
// the metas (about 1.25 bytes per key). Segments with version 5 metas
// and before have no filter: a Get searches their blocks, and a
// compaction gives its output one. A kvenc that reads only version 5
// refuses a store with filters. Stats.BytesStored counts the filters.
//
// # Reads
//
// Get looks in the active memstore, the frozen ones and then the segments
// newest first; the first version at or below the read point wins (newer
// sources hold only newer seqs), unless a range tombstone hides it. In a
// segment it reads the one block whose range holds the key, and only when
// the key filter of the block's run lets the key through (see Key
// filters). An
// Iterator merges one source per memstore and segment, each showing per
// key the newest visible version, and skips tombstones and the versions
// range tombstones hide. A bad block stops it with Err wrapping
// ErrCorrupt.
//
// An Iterator moves forward (First, SeekGE, Next: keys ascending) or
// backward (Last, SeekLT, Prev: keys descending) and may change direction
// at any key; both directions show the same keys with the same values at
// its read point. SeekLT(k) lands on the last live key below k, so
// SeekLT(series+"\xff") (or Last with the series as Prefix) finds the
// latest sample of a time series. Moving backward, every source still
// shows per key the newest version at or below the read point: a segment
// source lands on a key's last (oldest) cell first and steps back over
// its visible versions to the newest one; a memstore source searches its
// skiplist for the previous key (its nodes link forward only). Among sources
// the highest seq of the largest key wins, and whether it is live (a Put
// that no range tombstone visible at the read point covers) is decided by
// the same check as forward. Changing direction re-seeks every
// source next to the current key. After a move that runs off one end
// without an error, a move the other way starts at that end (Next after
// Prev returned false is First, Prev after Next returned false is Last);
// a further move the same way returns false. A backward scan of blocks
// costs the Seeker's Prev plus the same per-cell work as forward.
//
// An Iterator's bounds (IterOptions.LowerBound inclusive, UpperBound
// exclusive) clamp First and SeekGE to the lower bound and Last and SeekLT
// to the upper bound, and end a scan at the first key outside them.
// IterOptions.Prefix sets both and wins over them: lower bound the prefix,
// upper bound the prefix without its trailing 0xff bytes and its last byte
// incremented (none when the prefix is all 0xff), so a prefix scan seeks to
// the prefix and stops at its end, and Last finds the prefix's last key.
// Iterator.SetBounds changes the bounds of an open Iterator at the same
// read point; it is unpositioned until the next First, SeekGE, Last or
// SeekLT.
//
// # Block cache and reference counting
//
// The cache holds verified, immutable blocks as plain byte slices shared by
// all readers: they are never reused, so nothing is counted per access and
// the garbage collector frees an evicted block when its last reader lets go
// (HBASE-27730: a refcount check on every buffer access cost HBase up to 2x
// on scans). A cache lookup, once per block and never per cell, takes no
// lock: the cache is split by block id into up to 16 shards of at least
// 1 MiB, each with an index read through atomic pointers and a CLOCK
// eviction order in which a hit only sets the block's referenced bit;
// only insertions and evictions take the shard's mutex. Each cached block
// also keeps decoded Seekers in atomic slots, so a hot Get does not
// re-verify the block's CRC.
//
// A Get's miss goes into the cache only at the block's second miss within
// a while (a ghost list of two slots per block remembers about one and a half times
// as many recent misses as the cache holds blocks): uniform Gets over a
// store much bigger than the cache read each block where Badger holds it,
// without a copy or an eviction, while a hot block is cached from its
// second read (BenchmarkBig, op=get and op=zipf).
//
// The cache resists scans: a block a Get reads goes in just behind its
// shard's clock hand (the last block the hand reaches), a block an
// Iterator reads at the hand, where the next insertion evicts it unless
// it is read again first (midpoint
// insertion, as InnoDB's buffer pool keeps scans out of its young list).
// A scan bigger than the cache then evicts its own blocks, not the hot
// set (TestCacheScanResistant). Once an Iterator's source has visited more
// block bytes than the cache holds, it stops inserting: its later misses
// would only evict one another before a reuse, so they go into pooled
// buffers instead (no allocation, no eviction; TestScanCache: a store that
// fits is still served from the cache on the next scan). Ristretto (Badger's own cache, already a
// dependency) was tried first: its TinyLFU admission also keeps scans out,
// but it records accesses lossily and inserts asynchronously, so whether a
// hot block survived a scan varied from run to run (the same test failed
// 22 times in 30), and a refused block's decoded Seekers were lost to the
// pool.
//
// Blocks read from Badger on a miss go into pooled buffers that are
// reference counted: a Get or Iterator that reads past the cache (CacheSize
// < 0, an Iterator streaming as above, and compaction, which does not
// fill the cache) holds the buffer
// while it is on the block and releases it after; the last release returns
// it to the pool. Under -tags invariants a released buffer is poisoned and
// every cell read from a pooled buffer checks that it is still live,
// panicking on a use after release.
//
// BenchmarkRefcount runs two Stores with the same cells side by side, one
// with HBase's scheme switched on (a retain and release per block visited
// or Get, an atomic load and branch per cell), to measure what the scheme
// costs Gets, concurrent Gets and scans.
//
// # Badger settings (Open) and why
//
//   - Compression off: blocks are already encoded (and compressed by
//     blockenc where configured); Badger's compression would work again on
//     the same bytes, and would force a Badger block cache.
//   - BlockCacheSize 0: with compression off Badger reads its tables from
//     mmap; the cache that matters is kvenc's cache of decoded blocks.
//   - ValueThreshold 1 KiB, ValueLogFileSize 16 MiB: blocks (and WAL
//     records in Badger) live in Badger's value log, the LSM holds a
//     pointer per block. From the value log Badger hands a block over as
//     mmapped bytes at any size, where an inline value costs about 0.5 us
//     per KiB (Badger v4.9.6 copies it twice per Get); Badger's own
//     compactions move pointers, not blocks, so a load writes less
//     (BenchmarkBig, BenchmarkBigLoad with kv-inline beside). Deleted blocks
//     come back through value-log GC: Compact, Close, Open and the
//     background work (once the blocks of compacted-away segments reach a
//     quarter of the live bytes) drop the deleted prefixes from the LSM,
//     which counts their value-log bytes as discarded, and then run GC,
//     which rewrites or deletes the files at least a tenth discarded
//     (Compact, Close, Open) or half (the background work). GC never
//     touches the newest file, so up to ValueLogFileSize of garbage
//     can stay until Badger starts a new one (after ValueLogFileSize more
//     bytes, and at every Open: a store smaller than one file gets the
//     space of its deleted blocks back at its next Open; BenchmarkBigChurn
//     measures the disk under continuous writes beside kv-inline and
//     Badger). In memory every value stays
//     inline (there is no value log).
//   - Compact on an owned DB ends with Badger DropPrefix of the deleted
//     segments and of WAL records in Badger, if any (with kvenc's writes
//     held; the background work drops deleted segments the same way),
//     because Badger drops
//     deleted keys only when it rewrites their table into the last level.
//     In a wrapped DB DropPrefix would fail the caller's concurrent
//     writes, so it runs only when the caller asks (Reclaim). Without it a
//     burst of writes leaves its WAL records and their deletions in a
//     level 0 table that Badger's compaction (Flatten included) does not
//     rewrite (TestWrapSpace measures Open, Wrap and Wrap with Reclaim
//     side by side).
//   - MemTableSize DefaultBadgerMemTableSize (16 MiB, Badger's default 64):
//     Badger's memtable holds only block pointers, metas and WAL records
//     in Badger on their way to its tables (see Memory).
//   - NumVersionsToKeep 1, Logger nil (silent), SyncWrites from Options.
//   - Iterators over Badger (Open, WAL cleanup) read keys only:
//     PrefetchValues off.
//
// # Memory
//
// A Store's heap is, with the defaults:
//
//	memstores   one active arena of MemstoreSize (64 MiB, allocated whole
//	            when the memstore starts), and while they flush up to two
//	            frozen ones (writers stall rather than freeze a third)
//	cache       up to CacheSize (64 MiB) of decoded blocks
//	index       the last key of every block: about one key per 16 KiB
//	            of blocks (BlockSize)
//	dictionary  per segment, its bytes (up to 64 KiB) with the
//	            compressor's tables while it is written, and while it
//	            is read a decoding buffer per processor that reads it
//	            (a copy of the bytes and one sub-block; the runtime frees
//	            it when unused)
//	Badger      (Open) one memtable arena of DefaultBadgerMemTableSize
//	            (16 MiB) plus room for one batch (about 5 MiB), up to
//	            NumMemtables (5) of them while they flush, and for a few
//	            seconds after a flush Badger's table builder buffers
//
// so that once no flush runs it holds one memstore, one Badger memtable,
// the cache and the index: about 64 + 21 MiB + CacheSize + index. That is
// no more than raw Badger with its default options (one 64 MiB memtable
// and its batch room) holding the same cells, plus CacheSize.
// TestMemoryModel checks it: cells of 16-byte keys and 8-byte values
// written in batches of 100, flushed, compacted and scanned, then the live
// heap after a collection against raw Badger's plus CacheSize
// (KV_MEM_CELLS=1000000 for the full million). To use less, lower
// MemstoreSize, CacheSize and (Options.Badger) Badger's MemTableSize and
// NumMemtables; a Store under Wrap adds only its memstores, cache and
// index to the caller's DB.
//
// MemstoreSize is 64 MiB, Badger's own MemTableSize, so that recent
// writes are read from the memstore for as long as raw Badger would read
// them from its memtable: a point read there is a skiplist lookup, from a
// segment a block fetched and decoded (kvbench ycsb compares the
// engines). A load hardly depends on it: one in key order extends one
// segment whatever the number of flushes, and a smaller arena that stays
// in the processor's caches saved less than the noise of kvbench store
// measures. What grows with it is the heap and the last flush, which
// Flush and Close wait for: it compresses up to a whole memstore. A
// smaller MemstoreSize gives both back, at the cost of more segments to
// compact under writes in random key order.
//
// # Full disks
//
// Badger writes its value log, memtable logs and tables through
// memory-mapped files that it extends sparsely; when the filesystem cannot
// back a page, the process dies of SIGBUS, with no error. A Store opened
// on a directory (Open, or Wrap of a DB on disk) therefore checks the free
// space of its filesystem (statfs, on Linux) before each step that takes
// space, and refuses the step, writing nothing, when it does not fit in the
// free space less Options.Reserve:
//
//	WAL file      each chunk (MemstoreSize/8, 64 KiB..1 MiB) is admitted, then
//	              allocated ahead (fallocate, keeping the file's size)
//	WAL record    (in the engine: Wrap, OpenEngine) about twice its bytes
//	flush         the memstore's bytes, from half of the reserve on
//	compaction    the bytes of its input segments, from half of the reserve on
//	value-log GC  the live part of one value-log file, from half of the reserve on
//
// With less than 32 memstores' worth of room for new data, a new
// memstore's arena is a 32nd of the room (at least 8 MiB), so that the
// uncompressed WAL of the memstores not yet flushed stays small beside
// the volume (Options.MemstoreSize).
//
// A refused write returns an error wrapping ErrNoSpace; reads, iterators
// and snapshots go on, and so does Close (a memstore it cannot flush stays
// in the WAL for the next Open). Writes succeed again as soon as space is
// freed or the volume grows: a Store short of space asks the filesystem
// at every step. A background compaction or GC pass that does not fit
// waits for a later run. The other half of the reserve is left to Badger's
// own memtable flushes and level compactions, which kv does not start;
// under Wrap, the caller's own writes to the DB are the caller's to
// check. Stats reports FreeBytes and ReservedBytes.
//
// Other I/O faults (EIO, a read-only remount) reach the caller wrapped
// (errors.Is(err, syscall.EIO)); one met by a background flush or
// compaction stops the Store's writes with that error, while reads and
// Close go on.
//
// # Limits
//
// Keys up to MaxKeySize, values up to MaxValueSize, a batch up to what one
// Badger transaction holds (ErrTooLarge beyond). A key with many versions
// pinned by snapshots makes a block larger than BlockSize; in an in-memory
// Badger a block must stay below 1 MiB. Range tombstones live in segment
// metas (about 11 bytes plus their two keys each): in an in-memory Badger
// the tombstones of one segment must stay below 1 MiB too, tens of
// thousands of them (a flush or compaction of more fails with
// ErrTooLarge).
package kv
