package kv

import (
	"fmt"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Options configure a Store. Start from DefaultOptions; the zero value of a
// numeric field means its default.
type Options struct {
	// Dir is the Badger directory for Open; the Store keeps its WAL files
	// in its subdirectory wal (see the package doc, WAL file). "" opens an
	// in-memory Badger (nothing survives Close). Wrap ignores it.
	Dir string
	// Prefix names the Store in its DB: the Store owns the keys that start
	// with Prefix+Separator and one registry entry (see the package doc);
	// other keys under Prefix are the caller's. Default: "kv" for Open
	// (DefaultOptions), and required non-empty for Wrap.
	Prefix []byte
	// Block configures the block encoder. Default (also when Block is the
	// zero value): DefaultBlockOptions(), Columnar with an LZ4Dict value
	// area.
	Block blockenc.Options
	// CompactionLevel is the blockenc CompressionLevel of the blocks a
	// compaction writes, and of a flush whose keys lie outside every
	// segment's range (a load in key order); other flushes write Block's,
	// as a compaction will write their blocks again. Compacted blocks are
	// written once and read until the next compaction, so they are worth
	// a slower, denser LZ4 parse; reads are as fast at every level.
	// Default DefaultCompactionLevel (9); negative: Block's level.
	CompactionLevel int
	// BlockSize is the target size of one encoded block: a block is cut at
	// the first key boundary at or past it. Default 16 KiB
	// (DefaultBlockSize, chosen on DefaultBlockOptions); at most 256 KiB.
	// A key's versions never straddle two blocks, so one block can be larger
	// (a key with many versions held by snapshots).
	BlockSize int
	// MemstoreSize is the arena size of one memstore; a full memstore is
	// frozen and flushed to a segment in the background, and a batch
	// must fit in one. Default 64 MiB (DefaultMemstoreSize, Badger's own
	// MemTableSize; the package doc, Memory, says why). On a filesystem
	// with less than 32 times MemstoreSize free for new data, a new
	// memstore's arena is a 32nd of that room, at least 8 MiB, so that
	// unflushed memstores (whose WAL holds their cells uncompressed) stay
	// a small part of a small volume; a batch must fit in that.
	MemstoreSize int64
	// DictSize bounds the preset dictionary of a segment: with
	// Block.Compression LZ4Dict, each flush and compaction samples the
	// values it writes into a dictionary of up to DictSize bytes, kept
	// in the segment's meta and in memory while the segment lives, and
	// every block's value area is compressed against it in sub-blocks of
	// about 1 KiB; a point read decompresses one of them (see the package
	// doc, Segment dictionaries). Default DefaultDictSize (64 KiB - 1,
	// blockenc.MaxDictSize, the reach of an LZ4 match); a segment's is at
	// most 1/16 of its value bytes, and none below 1 KiB. Negative: no
	// segment dictionaries, each block carries its own. The dictionary
	// makes blocks smaller and point reads cheaper, and a scan that
	// decompresses whole blocks slower (text matched against the
	// dictionary decodes as many short matches: on lineitem rows about
	// 1.5x the time per cell); a store that is mostly scanned may prefer
	// -1.
	DictSize int
	// CacheSize bounds the bytes of decoded blocks kept in the block cache.
	// Default 64 MiB. A negative value disables the cache.
	CacheSize int64
	// SyncWrites makes Open fsync every write before it returns: its WAL
	// file, and Badger (Badger's own SyncWrites). Writes from several
	// goroutines at once share one WAL write and one fsync (group commit;
	// see the WAL section of the package doc). Default false: an
	// acknowledged write survives a kill -9 of the process but not a power
	// loss. Wrap leaves the caller's DB as it is.
	SyncWrites bool
	// WALBuffered makes a write return once its WAL record is queued in
	// memory, rather than once the record is written to the WAL file: a
	// goroutine writes the queued records in the background, in seq
	// order, one write per group. This is Pebble's Sync false: on a crash
	// of the process the writes whose records were still queued are
	// lost, a suffix of the acknowledged writes (every write acknowledged
	// before a surviving write began survives too): at most the
	// WALBufferSize bytes of records queued and those of the write in
	// progress (up to as many again); on a power loss, also what the
	// operating system had not written back.
	// A writer waits while WALBufferSize bytes of records are queued.
	// Flush, Close and Sync write every queued record first; a failed
	// background write fails every later write with its error, as a
	// failed WAL write does (see the package doc, WAL). It applies to
	// the WAL files of a Store that Open opened on a directory; a WAL in
	// the engine (Wrap, OpenEngine, in memory) ignores it. It cannot be
	// combined with SyncWrites. Default false: a write returns once its
	// record is written (it survives a kill -9 of the process).
	WALBuffered bool
	// CompactionTrigger is the number of segments at which a background
	// size-tiered compaction runs. Default 4; negative disables background
	// compaction (Compact still works).
	CompactionTrigger int
	// Logger is Badger's logger for Open. Default nil: Badger is silent.
	Logger badger.Logger
	// ValueThreshold is Badger's ValueThreshold for Open: values (blocks,
	// WAL records) at least this long go to Badger's value log, shorter ones
	// stay inline in its LSM. Default 1 KiB: blocks live in the value log,
	// from which Badger hands a block over as mmapped bytes at any size,
	// and Badger's own compactions move only pointers to them (see the
	// package doc, Badger settings).
	ValueThreshold int64
	// ValueLogFileSize is Badger's ValueLogFileSize for Open: the size at
	// which a value log file is closed and a new one started. Value-log
	// GC rewrites or deletes whole files and never the newest one, so
	// smaller files give space back sooner. Default 16 MiB.
	ValueLogFileSize int64
	// ReadOnly opens a Store that reads the segments its writer has
	// flushed and writes nothing: no claim on the Prefix (the registry
	// entry must exist), no WAL replay (writes not yet flushed are not
	// seen), no flush or compaction; Put, Apply, Flush and Compact fail
	// with ErrReadOnly, and Refresh picks up the segments flushed since.
	// It suits an engine that other processes write (OpenEngine), or a
	// DB the caller opened read-only (Wrap). Default false.
	ReadOnly bool
	// Lease is how long a writer's claim on the Prefix lasts without
	// renewal, for engines shared by several processes (a TiKV cluster:
	// the writer renews it in the background; a writer that lost it
	// fails with ErrLeaseLost, and another may take the Prefix over once
	// it has lapsed). Badger ignores it. Default DefaultLease (10 s).
	Lease time.Duration
	// Reserve is the free space, in bytes, that the Store's writes leave
	// on the filesystem of its files (Open on a directory; Wrap of a DB on
	// disk, for the Store's own writes). A write whose WAL record does not
	// fit in the free space less Reserve fails with an error wrapping
	// ErrNoSpace and writes nothing; flushes, compactions and value-log
	// GC, which move data or give space back, may use half of it, and the
	// other half is left to Badger's own memtable flushes and compactions.
	// Badger writes through memory-mapped files and the process dies
	// (SIGBUS) when the filesystem cannot back a page: the Store stops
	// before that (see the package doc, Full disks). Default (0):
	// MemstoreSize (at most 8 MiB) + ValueLogFileSize/2 (16 MiB with the
	// defaults), at most an eighth of the filesystem's size; negative: no
	// checks.
	Reserve int64
	// Badger, if set, adjusts the Badger options Open derived from the
	// fields above (for example a smaller MemTableSize) before opening.
	// Default nil.
	Badger func(badger.Options) badger.Options
}

// Defaults (see Options).
const (
	DefaultBlockSize         = 16 << 10
	DefaultMemstoreSize      = 64 << 20
	DefaultCacheSize         = 64 << 20
	DefaultCompactionTrigger = 4
	DefaultValueThreshold    = 1 << 10
	DefaultValueLogFileSize  = 16 << 20
	DefaultCompactionLevel   = 9
	DefaultDictSize          = blockenc.MaxDictSize
	// DefaultBadgerMemTableSize is the MemTableSize of the Badger DB that
	// Open makes (Badger's own default is 64 MiB; see the package doc,
	// Memory).
	DefaultBadgerMemTableSize = 16 << 20
	maxBlockSize              = 256 << 10
	DefaultLease              = 10 * time.Second
	// WALBufferSize bounds the WAL record bytes queued in memory with
	// Options.WALBuffered (those of one memstore: a frozen memstore's
	// are written before the next one's queue).
	WALBufferSize = 1 << 20
)

// DefaultBlockOptions returns kv's block options: Columnar (restart
// interval 16) with LZ4 allowed on the value area; DedupeValues and
// IntValues are set but Columnar ignores them (its dictionary and integer
// value forms replace them), so they matter only to a caller who switches
// Encoding back to a row encoding. Columnar keeps, per section, the
// smallest form the cells allow, so it is never much larger than RowIndex.
//
// Columnar scans about 2.5x faster than the row encodings on warm blocks
// and is the smallest of them on kvbench's lineitem rows. The block size,
// the value area's compression and the compaction level are chosen on data
// many times bigger than the cache, where most Gets miss it and read one
// block from Badger (BenchmarkBig and BenchmarkBigLoad: 600,000
// lineitem-like rows, an 8 MiB cache, Badger with its defaults beside it):
// LZ4Dict lets a Get decompress one 1 KiB sub-block (against the
// segment's dictionary) instead of the whole area; 16 KiB blocks cut what
// a miss reads and decodes about 7x against 128 KiB LZ4 blocks for about a
// quarter more disk; compaction level 9 (LZ4HC's default) stores about
// 2.5% fewer bytes than level 4 for about a fifth more compaction CPU,
// spread over the segment writer's two compressors, and its fewer, longer
// matches decode no slower. bench/RESULTS.md has the store's numbers.
func DefaultBlockOptions() blockenc.Options {
	o := blockenc.DefaultOptions()
	o.Encoding = blockenc.Columnar
	o.Compression = blockenc.LZ4Dict
	o.DedupeValues = true
	o.IntValues = true
	return o
}

// DefaultOptions returns the defaults for a Store in dir ("" for memory):
// Prefix "kv", DefaultBlockOptions(), BlockSize 16 KiB, MemstoreSize 64
// MiB, DictSize 64 KiB - 1, CacheSize 64 MiB, SyncWrites and WALBuffered false, CompactionTrigger 4,
// CompactionLevel 9, a silent Badger, ValueThreshold 1 KiB and
// ValueLogFileSize 16 MiB.
func DefaultOptions(dir string) Options {
	return Options{
		Dir:               dir,
		Prefix:            []byte("kv"),
		Block:             DefaultBlockOptions(),
		BlockSize:         DefaultBlockSize,
		MemstoreSize:      DefaultMemstoreSize,
		CacheSize:         DefaultCacheSize,
		DictSize:          DefaultDictSize,
		CompactionTrigger: DefaultCompactionTrigger,
		CompactionLevel:   DefaultCompactionLevel,
		ValueThreshold:    DefaultValueThreshold,
		ValueLogFileSize:  DefaultValueLogFileSize,
	}
}

// compactionBlock returns the block options of compaction output.
func (o Options) compactionBlock() blockenc.Options {
	b := o.Block
	if o.CompactionLevel >= 0 {
		b.CompressionLevel = o.CompactionLevel
	}
	return b
}

// blockSettings returns how blocks encoded with b (and o's BlockSize and
// DictSize) are made, as a segment meta records it (segment.Settings): a
// compaction copies the blocks of a segment only when they were made as
// it would make them.
func (o Options) blockSettings(b blockenc.Options) []byte {
	return segment.Settings(b, o.BlockSize, o.DictSize)
}

// withDefaults fills zero fields and checks the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Block == (blockenc.Options{}) {
		o.Block = DefaultBlockOptions()
	}
	if !o.Block.Encoding.IsValid() {
		return o, fmt.Errorf("%w: Block.Encoding %d is not one of 0..%d (%v..%v)", ErrInvalidOptions, o.Block.Encoding, blockenc.Columnar, blockenc.None, blockenc.Columnar)
	}
	if !o.Block.Compression.IsValid() {
		return o, fmt.Errorf("%w: Block.Compression %d is not one of 0..%d (%v..%v)", ErrInvalidOptions, o.Block.Compression, blockenc.LZ4Dict, blockenc.NoCompression, blockenc.LZ4Dict)
	}
	if o.WALBuffered && o.SyncWrites {
		return o, fmt.Errorf("%w: WALBuffered and SyncWrites together (a write is either fsynced before it returns or buffered)", ErrInvalidOptions)
	}
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.Lease < 0 {
		return o, fmt.Errorf("%w: negative Lease %v", ErrInvalidOptions, o.Lease)
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.CompactionLevel == 0 {
		o.CompactionLevel = DefaultCompactionLevel
	}
	if o.CompactionLevel > blockenc.MaxCompressionLevel {
		return o, fmt.Errorf("%w: CompactionLevel %d is above the maximum %d", ErrInvalidOptions, o.CompactionLevel, blockenc.MaxCompressionLevel)
	}
	if o.Block.CompressionLevel < 0 || o.Block.CompressionLevel > blockenc.MaxCompressionLevel {
		return o, fmt.Errorf("%w: Block.CompressionLevel %d is not in 0..%d", ErrInvalidOptions, o.Block.CompressionLevel, blockenc.MaxCompressionLevel)
	}
	if o.BlockSize < 0 || o.BlockSize > maxBlockSize {
		return o, fmt.Errorf("%w: BlockSize %d is not in 1..%d", ErrInvalidOptions, o.BlockSize, maxBlockSize)
	}
	if o.MemstoreSize == 0 {
		o.MemstoreSize = DefaultMemstoreSize
	}
	if o.MemstoreSize < 64<<10 {
		return o, fmt.Errorf("%w: MemstoreSize %d is below the minimum of 64 KiB (65536)", ErrInvalidOptions, o.MemstoreSize)
	}
	if o.CacheSize == 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.DictSize == 0 {
		o.DictSize = DefaultDictSize
	}
	if o.DictSize > blockenc.MaxDictSize {
		return o, fmt.Errorf("%w: DictSize %d is above the maximum %d", ErrInvalidOptions, o.DictSize, blockenc.MaxDictSize)
	}
	if o.CompactionTrigger == 0 {
		o.CompactionTrigger = DefaultCompactionTrigger
	}
	if o.CompactionTrigger == 1 {
		o.CompactionTrigger = 2
	}
	if o.ValueThreshold == 0 {
		o.ValueThreshold = DefaultValueThreshold
	}
	if o.ValueLogFileSize == 0 {
		o.ValueLogFileSize = DefaultValueLogFileSize
	}
	o.Prefix = append([]byte(nil), o.Prefix...)
	return o, nil
}

// IterOptions bound an Iterator: LowerBound inclusive, UpperBound
// exclusive; nil means unbounded. The zero value iterates every key.
type IterOptions struct {
	LowerBound []byte
	UpperBound []byte
	// Prefix, when non-nil, limits the Iterator to the keys that start
	// with it and replaces LowerBound and UpperBound (Prefix wins): the
	// lower bound is Prefix, the upper bound the smallest key above every
	// key with the prefix (Prefix without its trailing 0xff bytes, last
	// byte incremented; none when Prefix is all 0xff). An empty, non-nil
	// Prefix means every key. Default nil: the bounds above apply.
	Prefix []byte
}
