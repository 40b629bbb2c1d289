package kv

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segload"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segread"
	"github.com/kvenc/kvenc/kv/internal/segwrite"
	"github.com/kvenc/kvenc/kv/internal/space"
	"github.com/kvenc/kvenc/kv/internal/wal"
	"github.com/kvenc/kvenc/memstore"
	"github.com/kvenc/kvenc/mvcc"
)

// Store is a sorted key/value store kept in Badger as encoded blocks. All
// methods are safe for concurrent use.
type Store struct {
	opts Options
	// eng holds the Store's keys (see package engine); reclaim is eng when
	// it gives back the space of deleted keys only on request (Badger),
	// async when it commits while the writer goes on (an owned Badger):
	// both nil otherwise.
	eng     engine.Engine
	reclaim engine.Reclaimer
	async   engine.AsyncWriter
	keys    layout.Keys
	// release gives up the Store's claim on its prefix (register).
	release func()
	// foreign counts the keys in the namespace that are not in the
	// Store's format, found at Open; foreignKeys holds the first few.
	foreign     int64
	foreignKeys [][]byte
	tracker     *mvcc.Tracker
	cache       *cache.Cache
	pool        cache.Pool
	// rd reads the segments' blocks (package segread); its Shut ends the
	// block reads of open Iterators at Close. sw writes and deletes
	// segments (segwrite).
	rd *segread.Reader
	sw *segwrite.Store

	// writeMu: writers hold R for a whole write, freeze holds W, so that
	// a frozen memtable holds exactly the seqs (lo, hi] and its WAL file
	// every one of their records. Writers share R: their memstore
	// inserts (a lock-free skiplist, admitted by a CAS on its arena) and
	// their WAL group commits run at once.
	writeMu sync.RWMutex
	mu      sync.RWMutex // guards active, frozen, segs, obsolete; readers hold R
	active  *memtable
	frozen  []*memtable // newest first
	// frozenTaken is closed, and replaced, each time a flush takes a
	// frozen memtable off (frozenGone); stalled writers wait on it.
	frozenTaken chan struct{}
	// writers counts the writes in write (see logWAL).
	writers atomic.Int64
	// procs is GOMAXPROCS at Open; yields counts the reads and writes
	// that gave up their processor since Open (see yield).
	procs  int64
	yields atomic.Int64
	// yielding counts the writes giving up their processor (yield).
	// Every read and Iterator step reads it, so it sits on a cache line
	// of its own, apart from writers, which every write changes.
	_        [56]byte
	yielding atomic.Int64
	_        [56]byte
	// stalls counts write stalls (stall), stallTime their nanoseconds.
	stalls, stallTime atomic.Int64
	segs              []*segment.Segment // newest first (maxSeq descending)
	// segDels is the union of the range tombstones of segs (segsChanged).
	segDels *rangedel.Set
	// obsolete segments were compacted away; their blocks are deleted once
	// no iterator holds them.
	obsolete []*segment.Segment
	deadSegs []uint64 // ids of deleted segments, for dropGarbage
	// garbage counts the bytes of segments compacted away since the last
	// dropGarbage, walGarbage the WAL records written since the last one
	// that dropped the WAL; dropAlways (tests) ignores them.
	garbage    atomic.Int64
	walGarbage atomic.Int64
	// wal is the WAL in files of a Store that Open opened on a directory
	// walDir (nil: the WAL is in the engine, under the WAL tag).
	// walInEngine: WAL records may be in the engine (wal is nil, or Open
	// found some, written by an earlier version).
	walDir      string
	wal         *wal.Files
	walInEngine bool
	dropAlways  bool
	nextSegID   atomic.Uint64

	snapMu sync.Mutex
	snaps  map[uint64]int // pinned read points (snapshots, iterators)

	flushMu sync.Mutex
	// flushDict is the dictionary of the last flush written at the
	// compaction's settings, when it is of the full DictSize: the next such
	// flush uses it again (see Segment dictionaries). Guarded by flushMu.
	flushDict *blockenc.Dict
	compactMu sync.Mutex
	// compacting: a compaction runs (compactRun, under compactMu).
	compacting atomic.Bool
	userOps    sync.RWMutex // Flush and Compact hold R; Close waits for them

	// walErr: a WAL write failed after its ops went into the memstore
	// (see failed).
	walErr atomic.Pointer[error]
	// space admits the steps that take disk space (nil: no checks);
	// vlogFileSize is the engine's value-log file size. ioErr: a
	// background flush or compaction met an I/O fault (fatalIO), and
	// writes stop with it.
	space        *space.Gate
	vlogFileSize int64
	ioErr        atomic.Pointer[error]

	closed atomic.Bool
	kick   chan struct{}
	quit   chan struct{}
	bgDone chan struct{}
	errMu  sync.Mutex
	bgErr  error

	flushes, compactions atomic.Int64
}

// memtable is a memstore with the WAL seqs it holds: (lo, hi], and the
// range tombstones of those writes beside it.
type memtable struct {
	ms     *memstore.Memstore
	lo, hi uint64
	// Admission (reserve): a write reserves the arena bytes its ops may
	// take (opsArenaBound) in the memstore, which admits it when the bytes
	// in use and the reservations in flight leave room, so that its cells'
	// Adds never meet ErrFull. capacity is the most one write may need
	// (the arena minus the skiplist's head). rangeBytes sums the rangedel.Bound of
	// the range tombstones added: they live beside the arena, and their
	// part of a reservation is never released, so they count against it.
	capacity   int64
	rangeBytes atomic.Int64
	// dels holds the range tombstones, replaced whole (under delMu) by
	// each DeleteRange; readers load it without a lock.
	dels  atomic.Pointer[rangedel.Set]
	delMu sync.Mutex
	// wal is the memtable's WAL file when the Store keeps its WAL in
	// files (walFiles).
	wal wal.File
	// next is the memtable that follows this one once it is full, set
	// once (successor).
	nextOnce sync.Once
	next     *memtable
}

func newMemtable(size int64, lo uint64) *memtable {
	ms := memstore.New(size)
	return &memtable{ms: ms, lo: lo, capacity: ms.Capacity() - ms.Size()}
}

// newMemtable returns an empty memtable whose writes start at lo, with an
// arena of MemstoreSize, or on a filesystem short of space of
// shortArena.
func (s *Store) newMemtable(lo uint64) *memtable {
	return newMemtable(min(s.opts.MemstoreSize, shortArena(s.space.Room(space.Write))), lo)
}

// Memstores on a filesystem short of space: a memstore's arena is at
// most 1/arenaShare of the room for new data, and at least minShortArena
// (the arena size below which a batch that fits one must not be refused
// for space alone), so that the WAL files of the memstores not yet
// flushed, which hold their cells uncompressed, and each flush's claim on
// the reserve stay a small part of a small volume.
const (
	arenaShare    = 32
	minShortArena = 8 << 20
)

// shortArena returns the largest memstore arena for room bytes free for
// new data (math.MaxInt64: no limit).
func shortArena(room int64) int64 {
	if room == math.MaxInt64 {
		return room
	}
	return max(room/arenaShare, minShortArena)
}

// reserve admits a write whose ops may take need arena bytes
// (opsArenaBound), or reports that the memstore may not have room for it.
// The caller ends the admission with release or add.
func (m *memtable) reserve(need int64) bool { return m.ms.Reserve(need) }

// release ends the admission of a write of need bytes whose ops were not
// added.
func (m *memtable) release(need int64) { m.ms.Release(need) }

// Open opens (or creates) a Store in its own Badger DB at opts.Dir ("" for
// an in-memory DB), replaying the WAL. Close closes the DB.
func Open(opts Options) (*Store, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	bo := badger.DefaultOptions(opts.Dir).
		WithInMemory(opts.Dir == "").
		WithLogger(opts.Logger).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithSyncWrites(opts.SyncWrites).
		WithValueThreshold(opts.ValueThreshold).
		WithValueLogFileSize(opts.ValueLogFileSize).
		WithNumVersionsToKeep(1).
		WithMemTableSize(DefaultBadgerMemTableSize)
	if opts.Dir == "" {
		// In memory there is no value log: every value stays inline and
		// must be below ValueThreshold, which Badger caps at 1 MiB.
		bo = bo.WithValueThreshold(1 << 20)
	}
	if opts.ReadOnly {
		if opts.Dir == "" {
			return nil, fmt.Errorf("%w: ReadOnly of an in-memory Store", ErrInvalidOptions)
		}
		bo = bo.WithReadOnly(true)
	}
	if opts.Badger != nil {
		bo = opts.Badger(bo)
	}
	eng, err := badgereng.Open(bo)
	if err != nil {
		return nil, fmt.Errorf("kv: %w", err)
	}
	s, err := newStore(eng, eng.DB(), opts, eng.Dir())
	if err != nil {
		_ = eng.Close()
		return nil, err
	}
	return s, nil
}

// Wrap opens a Store inside the caller's Badger DB, under opts.Prefix
// (required, non-empty). It reads and writes only the keys of its
// namespace, opts.Prefix+Separator, and its one registry entry (see the
// package doc); Close does not close db. opts.Dir, SyncWrites, Logger,
// ValueThreshold and Badger are ignored: db is configured by its owner.
//
// Wrap fails with ErrPrefixInUse when a Store on the same prefix and db is
// open in this process, when the namespace overlaps that of another Store
// registered in db, or when a new Store's namespace already holds keys;
// with ErrFormat when the prefix holds a Store of key layout 1.
//
// db must not be opened with badger.OpenManaged: kvenc commits its own
// transactions (Badger's Update panics in managed mode), so Wrap refuses
// such a DB with ErrInvalidOptions.
//
// Close the Store before db. When db is closed first, every method of the
// Store returns an error wrapping badger.ErrDBClosed (Close too: the
// writes it could not flush stay in the WAL in db, replayed at the next
// Wrap), but a method running in the instant db closes may still block
// in Badger.
func Wrap(db *badger.DB, opts Options) (*Store, error) {
	if db == nil {
		return nil, fmt.Errorf("%w: Wrap of a nil *badger.DB", ErrInvalidOptions)
	}
	if len(opts.Prefix) == 0 {
		return nil, fmt.Errorf("%w: Wrap needs a non-empty Prefix", ErrInvalidOptions)
	}
	if badgereng.Managed(db) {
		return nil, fmt.Errorf("%w: Wrap of a DB in managed mode (badger.OpenManaged); open it with badger.Open", ErrInvalidOptions)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return newStore(badgereng.Wrap(db), db, opts, "")
}

// OpenEngine opens a Store on eng, an engine other than Badger (see
// package engine), under opts.Prefix (required, non-empty), replaying the
// WAL, which it keeps in eng. Close closes eng. opts.Dir, SyncWrites,
// Logger, ValueThreshold, ValueLogFileSize and Badger are ignored. As
// Wrap, it fails with ErrPrefixInUse when the namespace is held or
// overlaps another Store's, and with ErrFormat for a prefix of key
// layout 1. Stores on one engine value share the claims of this process;
// an engine shared by several processes must keep them from claiming
// one prefix at once itself.
func OpenEngine(eng engine.Engine, opts Options) (*Store, error) {
	if eng == nil {
		return nil, fmt.Errorf("%w: OpenEngine of a nil engine", ErrInvalidOptions)
	}
	if len(opts.Prefix) == 0 {
		return nil, fmt.Errorf("%w: OpenEngine needs a non-empty Prefix", ErrInvalidOptions)
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return newStore(eng, eng, opts, "")
}

// newStore opens a Store on eng, which it closes with the Store (an
// engine over a caller's store leaves that open). id names the store
// eng is on, for the claims of this process (register); walDir, if not
// "", is the directory of the WAL files (else the WAL is in eng).
func newStore(eng engine.Engine, id any, opts Options, walDir string) (*Store, error) {
	release := func() {}
	var err error
	if opts.ReadOnly {
		opts.CompactionTrigger = -1
		err = registeredIn(eng, opts.Prefix)
	} else {
		release, err = register(eng, id, opts.Prefix)
	}
	if err != nil {
		return nil, err
	}
	s := &Store{
		release:     release,
		opts:        opts,
		eng:         eng,
		walDir:      walDir,
		keys:        layout.NewKeys(opts.Prefix),
		cache:       cache.New(opts.CacheSize),
		snaps:       make(map[uint64]int),
		frozenTaken: make(chan struct{}),
		procs:       int64(runtime.GOMAXPROCS(0)),
		kick:        make(chan struct{}, 1),
		quit:        make(chan struct{}),
		bgDone:      make(chan struct{}),
	}
	s.rd = s.newReader()
	s.sw = segwrite.New(segwrite.Config{
		Engine:    eng,
		Keys:      s.keys,
		Cache:     s.cache,
		Reader:    s.rd,
		BlockSize: opts.BlockSize,
		DictSize:  opts.DictSize,
		NextID:    func() uint64 { return s.nextSegID.Add(1) },
		EngineErr: s.dbClosed,
		TooLarge:  ErrTooLarge,
	})
	if db, ok := id.(*badger.DB); ok {
		s.vlogFileSize = db.Opts().ValueLogFileSize
		s.space = newGate(gateDir(db), opts, s.vlogFileSize)
	}
	s.reclaim, _ = eng.(engine.Reclaimer)
	s.async, _ = eng.(engine.AsyncWriter)
	if err := s.recover(); err != nil {
		release()
		return nil, err
	}
	s.valueLogGC(gcExplicit)
	go s.background()
	if len(s.frozen) > 0 {
		s.kickBackground()
	}
	return s, nil
}

// recover loads the segments, removes segments without a meta, and replays
// the WAL records above the last flushed seq. A ReadOnly Store only loads
// the segments.
func (s *Store) recover() error {
	l, err := s.loadSegments(s.addForeign)
	if err == nil {
		err = s.findForeign()
	}
	if err != nil {
		return fmt.Errorf("kv: open: %w", err)
	}
	s.segs = l.Segs
	s.segsChanged()
	s.nextSegID.Store(l.MaxID)
	if s.opts.ReadOnly {
		// Never written: the smallest arena.
		s.active = newMemtable(0, l.Last)
		s.tracker = mvcc.NewTracker(l.Last)
		return nil
	}
	if err := s.sw.DeleteKeys(l.Orphans); err != nil {
		return err
	}
	s.deadSegs = l.Dead
	return s.replayWAL(l.WALSeq, l.Last)
}

// loadSegments finds the Store's segments in the engine (segload.Load),
// calling foreign on each key under their tags not in the Store's format.
func (s *Store) loadSegments(foreign func(k []byte)) (segload.Found, error) {
	return segload.Load(s.keys, s.scanPrefix, foreign)
}

// Refresh makes a ReadOnly Store see the segments its writer has flushed
// since Open or the last Refresh (and no longer those compacted away).
// Snapshots and Iterators taken before keep what they saw. On an engine
// that reads at a moment (TiKV) the Store reads at the moment of its last
// Refresh, so a segment the writer compacts away
// stays readable; on Badger a read of a segment the writer has since
// compacted and deleted fails until the next Refresh. On a Store that
// writes, Refresh does nothing.
func (s *Store) Refresh() error {
	if s.closed.Load() {
		return s.errClosed()
	}
	if !s.opts.ReadOnly {
		return nil
	}
	if r, ok := s.eng.(engine.Refresher); ok {
		if err := r.Refresh(); err != nil {
			return fmt.Errorf("kv: refresh: %w", err)
		}
	}
	l, err := s.loadSegments(func([]byte) {})
	if err != nil {
		return fmt.Errorf("kv: refresh: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	had := make(map[uint64]*segment.Segment, len(s.segs))
	for _, g := range s.segs {
		had[g.Meta.ID] = g
	}
	for i, g := range l.Segs {
		// A segment unchanged keeps its parts (dictionary, cached
		// blocks); an extended one (more blocks) is the new one.
		if o := had[g.Meta.ID]; o != nil && o.Meta.Blocks == g.Meta.Blocks && o.Meta.MaxSeq == g.Meta.MaxSeq {
			l.Segs[i] = o
		}
	}
	s.segs = l.Segs
	s.segsChanged()
	s.tracker.Advance(l.Last)
	return nil
}

func (s *Store) replayWAL(walSeq, last uint64) error {
	// recs: whole records above walSeq.
	recs, stale, err := wal.ReadEngine(s.keys, s.scanRange, walSeq, s.addForeign)
	if err != nil {
		return fmt.Errorf("kv: open: WAL: %w", err)
	}
	// Records in the engine (a Store of an earlier version, or one without
	// WAL files) are deleted as their memstores flush, and dropped with
	// the WAL prefix: Badger keeps them as long as any Store wrote them.
	s.walInEngine = s.walDir == "" || len(recs) > 0
	if s.walDir != "" {
		w, frecs, err := wal.OpenFiles(s.walDir, s.opts.SyncWrites, walSeq)
		if err != nil {
			return err
		}
		s.wal = w
		w.SetGate(s.space, walChunkSize(s.opts.MemstoreSize))
		if s.opts.WALBuffered {
			w.SetBuffered(WALBufferSize)
		}
		recs = append(recs, frecs...)
		slices.SortFunc(recs, func(a, b wal.Rec) int { return cmp.Compare(a.Seq, b.Seq) })
		recs = slices.CompactFunc(recs, func(a, b wal.Rec) bool { return a.Seq == b.Seq })
	}
	s.active = s.newMemtable(walSeq)
	replayed := walSeq
	for _, rec := range recs {
		seq, ops, err := wal.Decode(rec.B)
		if err != nil {
			return fmt.Errorf("kv: open: WAL seq %d: %w", rec.Seq, err)
		}
		if seq != rec.Seq {
			return fmt.Errorf("%w: WAL record under seq %d says seq %d", ErrCorrupt, rec.Seq, seq)
		}
		need := opsArenaBound(ops)
		if !s.active.reserve(need) {
			// Freeze: the full memtable holds the WAL seqs up to the
			// previous record.
			if !s.active.empty() {
				s.active.hi = replayed
				s.frozen = append([]*memtable{s.active}, s.frozen...)
			}
			// A record written with a larger MemstoreSize than today's
			// gets a memstore of its own size.
			s.active = newMemtable(max(s.opts.MemstoreSize, 2*need), replayed)
			if !s.active.reserve(need) {
				return fmt.Errorf("%w: WAL seq %d needs %d memstore bytes", ErrTooLarge, seq, need)
			}
		}
		if err := s.active.add(ops, seq, need); err != nil {
			return fmt.Errorf("kv: open: replay seq %d: %w", seq, err)
		}
		replayed = seq
		last = max(last, seq)
	}
	s.tracker = mvcc.NewTracker(last)
	return s.sw.DeleteKeys(stale)
}

// maxForeignKeys bounds the foreign keys a Store keeps to report.
const maxForeignKeys = 16

// addForeign notes a key in the namespace that is not in the Store's
// format: kv never reads or deletes it.
func (s *Store) addForeign(k []byte) {
	s.foreign++
	if len(s.foreignKeys) < maxForeignKeys {
		s.foreignKeys = append(s.foreignKeys, bytes.Clone(k))
	}
}

// findForeign notes the keys of the namespace under no tag of the format
// (the tagged ones are checked where they are read), skipping over each
// tag's keys with one seek.
func (s *Store) findForeign() error {
	ns := s.keys.NS
	it, err := s.eng.NewIter(engine.IterOptions{Lower: ns, Upper: engine.PrefixEnd(ns)})
	if err != nil {
		return err
	}
	defer it.Close()
	for ok := it.First(); ok; {
		k := it.Key()
		if len(k) > len(ns) {
			if t := k[len(ns)]; t == layout.TagWAL || t == layout.TagSegment || t == layout.TagMeta || t == layout.TagDict || t == layout.TagFilter {
				ok = it.Seek(s.keys.Tag(t + 1))
				continue
			}
		}
		s.addForeign(k)
		ok = it.Next()
	}
	return it.Err()
}

// scanPrefix calls f on an iterator over the keys that start with p, at
// each key in order, until f fails.
func (s *Store) scanPrefix(p []byte, f func(it engine.Iter) error) error {
	return s.scanRange(p, engine.PrefixEnd(p), f)
}

// scanRange is scanPrefix for the keys in [lower, upper).
func (s *Store) scanRange(lower, upper []byte, f func(it engine.Iter) error) error {
	if err := s.dbClosed(); err != nil {
		return err
	}
	return scanKeysRange(s.eng, lower, upper, f)
}

// ForeignKeys returns how many keys Open found in the Store's namespace
// (Prefix+Separator) that are not in its format, and the first few of
// them. kv neither reads nor deletes them: they were written by someone
// else into the namespace the Store owns, and are the caller's to move.
func (s *Store) ForeignKeys() (n int64, first [][]byte) {
	return s.foreign, s.foreignKeys
}

// dbClosed returns the engine's error (wrapping badger.ErrDBClosed when
// the DB was closed under the Store), naming the Store.
func (s *Store) dbClosed() error {
	if err := s.eng.Err(); err != nil {
		return fmt.Errorf("kv: store %q: %w", s.opts.Prefix, err)
	}
	return nil
}

// errClosed is ErrClosed naming the Store.
func (s *Store) errClosed() error {
	return fmt.Errorf("%w: store %q", ErrClosed, s.opts.Prefix)
}

// Reclaim makes Badger give back the space of the Store's deleted WAL
// records and compacted-away blocks now. Badger drops a deleted key only
// when it rewrites the key's table into its last level, which for the
// tables of a burst of writes may never happen by itself; Reclaim has
// Badger rewrite the tables that hold them (DropPrefix of the WAL and of
// the deleted segments, after the memstores are flushed, with the Store's
// writes held). Compact of a Store made by Open does this by itself once
// enough garbage piled up. In a DB shared through Wrap, Badger refuses
// every write to the DB while Reclaim runs (badger.ErrBlockedWrites, the
// caller's own writes too): call it when the DB is otherwise quiet, for
// example after Compact.
func (s *Store) Reclaim() error {
	s.userOps.RLock()
	defer s.userOps.RUnlock()
	if s.closed.Load() {
		return s.errClosed()
	}
	if s.opts.ReadOnly {
		return s.errReadOnly("Reclaim")
	}
	if err := s.dbClosed(); err != nil {
		return err
	}
	if err := s.reap(); err != nil {
		return err
	}
	if s.reclaim == nil {
		return nil
	}
	return s.dropGarbage(true, gcExplicit)
}

// segsChanged refragments the union of the segments' range tombstones
// after s.segs changed (a flush or compaction installed a segment): once
// per change, not per read. The caller holds s.mu for writing.
func (s *Store) segsChanged() {
	dels := make([]*rangedel.Set, 0, len(s.segs))
	for _, g := range s.segs {
		dels = append(dels, g.Dels)
	}
	s.segDels = rangedel.Union(dels...)
}

// coverLocked returns the largest seq at or below rp of the range
// tombstones over key in every memstore and segment (0 when none): the
// versions of key below it are deleted for a reader at rp. The caller
// holds s.mu.
func (s *Store) coverLocked(key []byte, rp uint64) uint64 {
	c := s.active.dels.Load().Cover(key, rp)
	for _, mt := range s.frozen {
		c = max(c, mt.dels.Load().Cover(key, rp))
	}
	return max(c, s.segDels.Cover(key, rp))
}
