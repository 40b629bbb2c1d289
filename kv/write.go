package kv

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/space"
	"github.com/kvenc/kvenc/kv/internal/wal"
	"github.com/kvenc/kvenc/memstore"
	"github.com/kvenc/kvenc/mvcc"
)

// maxFrozen is the most frozen memtables that wait for their flush: a
// writer that finds the active memtable full while that many wait is held
// back (stall) until a flush takes one off.
const maxFrozen = 2

// Batch collects Puts, Deletes and DeleteRanges that Apply writes
// atomically with one seq. A later operation on a key in the same batch
// wins, also over an earlier DeleteRange that covers the key. A Batch is
// not safe for concurrent use; it copies what it is given.
type Batch struct {
	ops []wal.Op
	// buf holds the copies of the keys and values of ops. When it is
	// full a larger one replaces it; the ops keep pointing into the old
	// one. Reset keeps the latest for the next ops.
	buf []byte
}

// minBatchBuf is the size of a Batch's first copy buffer.
const minBatchBuf = 4 << 10

// copy returns a copy of p in b.buf, its capacity cut to its length.
func (b *Batch) copy(p []byte) []byte {
	n := len(b.buf)
	if len(p) > cap(b.buf)-n {
		b.buf = make([]byte, 0, max(2*cap(b.buf), len(p), minBatchBuf))
		n = 0
	}
	b.buf = append(b.buf, p...)
	return b.buf[n:len(b.buf):len(b.buf)]
}

// NewBatch returns an empty Batch.
func (s *Store) NewBatch() *Batch { return &Batch{} }

// Put adds a Put of key to value (both copied).
func (b *Batch) Put(key, value []byte) {
	b.ops = append(b.ops, wal.Op{Key: b.copy(key), Value: b.copy(value), Kind: blockenc.KindPut})
}

// Delete adds a Delete of key (copied).
func (b *Batch) Delete(key []byte) {
	b.ops = append(b.ops, wal.Op{Key: b.copy(key), Kind: blockenc.KindDelete})
}

// DeleteRange adds a deletion of every key in [start, end) (both copied):
// start inclusive, end exclusive, one range tombstone whatever the number
// of keys it covers. It removes the batch's earlier Puts and Deletes of
// keys in the range (the range deletes them); a later Put in the batch
// of a key in the range stays. An empty range (start >= end) adds
// nothing.
func (b *Batch) DeleteRange(start, end []byte) {
	if bytes.Compare(start, end) >= 0 {
		return
	}
	b.ops = slices.DeleteFunc(b.ops, func(o wal.Op) bool {
		return !o.Ranged && bytes.Compare(start, o.Key) <= 0 && bytes.Compare(o.Key, end) < 0
	})
	b.ops = append(b.ops, wal.Op{Key: b.copy(start), Value: b.copy(end), Kind: blockenc.KindDelete, Ranged: true})
}

// Len returns the number of operations in the batch.
func (b *Batch) Len() int { return len(b.ops) }

// Reset empties the batch. It keeps the batch's memory for the next
// operations.
func (b *Batch) Reset() {
	clear(b.ops) // the old buffers of copies can go
	b.ops = b.ops[:0]
	b.buf = b.buf[:0]
}

func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }

// Put sets key to value.
func (s *Store) Put(key, value []byte) error {
	return s.write([]wal.Op{{Key: key, Value: value, Kind: blockenc.KindPut}})
}

// Delete removes key (writes a tombstone).
func (s *Store) Delete(key []byte) error {
	return s.write([]wal.Op{{Key: key, Kind: blockenc.KindDelete}})
}

// DeleteRange deletes every key in [start, end): start inclusive, end
// exclusive. It writes one range tombstone, whatever the number of keys it
// covers: reads at or after it no longer see the keys, a Snapshot or
// Iterator taken before it still does, and compaction drops the deleted
// cells once no reader can see them, then the tombstone once nothing older
// lies beneath it. Later writes to keys in the range are seen as usual. An
// empty range (start >= end) deletes nothing.
func (s *Store) DeleteRange(start, end []byte) error {
	b := Batch{}
	b.DeleteRange(start, end)
	return s.Apply(&b)
}

// Apply writes every operation of b atomically: one seq, one WAL record in
// one Badger transaction; readers see all of it or none, also after a
// crash. An empty batch does nothing.
func (s *Store) Apply(b *Batch) error {
	if b == nil || len(b.ops) == 0 {
		if s.closed.Load() {
			return s.errClosed()
		}
		return nil
	}
	return s.write(b.ops)
}

// opsArenaBound is the memstore bytes ops may take. A DeleteRange is kept
// beside the memstore's arena, but counts against its size so that a
// memstore of many range tombstones fills up and flushes too.
func opsArenaBound(ops []wal.Op) int64 {
	var n int64
	for _, o := range ops {
		if o.Ranged {
			n += rangedel.Bound(o.Key, o.Value)
			continue
		}
		n += memstore.CellArenaBound(blockenc.Cell{Key: o.Key, Value: o.Value, Kind: o.Kind})
	}
	return n
}

// write is the write path: seq, WAL record, memstore, complete.
func (s *Store) write(ops []wal.Op) error {
	for i, o := range ops {
		if len(o.Key) > MaxKeySize {
			return fmt.Errorf("%w: op %d: key of %d bytes exceeds MaxKeySize %d", ErrTooLarge, i, len(o.Key), MaxKeySize)
		}
		if o.Ranged && len(o.Value) > MaxKeySize {
			return fmt.Errorf("%w: op %d: range end of %d bytes exceeds MaxKeySize %d", ErrTooLarge, i, len(o.Value), MaxKeySize)
		}
		if len(o.Value) > MaxValueSize {
			return fmt.Errorf("%w: op %d: value of %d bytes exceeds MaxValueSize %d", ErrTooLarge, i, len(o.Value), MaxValueSize)
		}
	}
	if err := s.failed(); err != nil {
		return err
	}
	if s.opts.ReadOnly {
		return s.errReadOnly("write")
	}
	if p := s.ioErr.Load(); p != nil {
		return fmt.Errorf("kv: store %q: writes stopped by a background failure: %w", s.opts.Prefix, *p)
	}
	if s.writers.Add(1) > s.procs && !s.opts.SyncWrites {
		s.yield()
	}
	defer s.writers.Add(-1)
	need := opsArenaBound(ops)
	// The record goes after wal.FrameLen bytes of room, where a WAL file
	// writes its length. It is built before the write is admitted, and
	// sealed with its seq once it has one.
	buf := wal.GetBuf(wal.FrameLen + wal.Size(ops))
	frame := wal.AppendUnsealed(append(*buf, make([]byte, wal.FrameLen)...), ops)
	*buf = frame
	// The WAL is done with the record when write returns: the file write
	// returned, or Badger's commit copied it into its value log or
	// memtable.
	defer wal.PutBuf(buf)
	var mt *memtable
	for {
		s.writeMu.RLock()
		if s.closed.Load() {
			s.writeMu.RUnlock()
			return s.errClosed()
		}
		mt = s.active
		if need > mt.capacity {
			s.writeMu.RUnlock()
			return fmt.Errorf("%w: batch of %d ops needs %d memstore bytes, the memstore holds %d (MemstoreSize %d, less on a filesystem short of space); split the batch or raise MemstoreSize", ErrTooLarge, len(ops), need, mt.capacity, s.opts.MemstoreSize)
		}
		if mt.reserve(need) {
			break
		}
		s.writeMu.RUnlock()
		// mt is full: it is frozen once fewer than maxFrozen frozen
		// memtables wait, so that at most maxFrozen do.
		if err := s.stall(); err != nil {
			return err
		}
		s.freezeInto(mt, s.successor(mt))
	}
	rec := frame[wal.FrameLen:]
	var w *mvcc.WriteEntry
	begin := func() {
		w = s.tracker.Begin()
		wal.Seal(rec, w.Seq())
	}
	added, addErr, err := s.logWAL(mt, frame, ops, need, begin)
	switch {
	case err != nil && added:
		// The ops are in the memstore, invisible until w completes: fail
		// first, so that every read at or above seq refuses.
		err = fmt.Errorf("kv: store %q: WAL seq %d failed after its ops went into the memstore; the Store refuses reads and writes until it is reopened: %w", s.opts.Prefix, w.Seq(), err)
		s.walErr.CompareAndSwap(nil, &err)
	case errors.Is(err, engine.ErrTooLarge):
		mt.release(need)
		err = fmt.Errorf("%w: WAL record of %d bytes (%d ops) exceeds what one transaction of the engine holds; split the batch: %w", ErrTooLarge, len(rec), len(ops), err)
	case err != nil:
		mt.release(need)
		err = fmt.Errorf("kv: store %q: WAL record: %w", s.opts.Prefix, space.Classify(err))
	case addErr != nil:
		// Cannot happen: the arena bytes were reserved above. The WAL
		// holds the write, so it reappears at the next Open.
		err = fmt.Errorf("kv: memstore add seq %d: %w", w.Seq(), addErr)
	}
	s.writeMu.RUnlock()
	if err != nil {
		s.tracker.Complete(w) // nil when the write failed before it took a seq
		return err
	}
	if s.walInEngine {
		s.walGarbage.Add(int64(len(rec))) // deleted once flushed
	}
	s.tracker.CompleteAndWait(w)
	return nil
}

// yield gives up the processor of a write that finds more writes in
// flight than GOMAXPROCS, before it takes a seq (see Many goroutines in
// the package doc): the goroutines ready to run, writers that hold
// earlier seqs among them, run first, and the writes that then arrive
// together share a WAL write. While it waits, reads yield too
// (yieldToWrites). With SyncWrites writes do not yield here: they wait
// for an fsync, far longer than for a processor, and a group's leader
// yields before its write instead (logWAL).
func (s *Store) yield() {
	s.yields.Add(1)
	s.yielding.Add(1)
	runtime.Gosched()
	s.yielding.Add(-1)
}

// yieldToWrites gives up a reader's processor once while a write yields
// (yield): a yielded goroutine waits in the runtime's global run queue,
// which a processor busy with goroutines that never block looks at
// rarely, so without it a write would wait behind every read served from
// memory.
func (s *Store) yieldToWrites() {
	if s.yielding.Load() > 0 {
		s.yields.Add(1)
		runtime.Gosched()
	}
}

// sealUnderLock is the largest WAL record whose seq a write takes (and
// whose checksum it computes) under its WAL file's lock, so that records
// queue in seq order (see logWAL); a larger record takes its seq first,
// not to hold the other writers' records back while it is summed.
const sealUnderLock = 64 << 10

// logWAL writes the WAL record of ops, which frame holds unsealed after
// wal.FrameLen bytes of room, and adds the ops to mt (mt.add, admitted
// with need); begin takes the write's seq and seals the record with it,
// and addErr is the add's error.
//
// With WAL files it queues the frame for mt's file, begin running under
// the file's lock as the frame queues (a record larger than sealUnderLock
// begins first), adds while the file's writes go on, then waits for the
// frame to be written (group commit: see wal.File); a failed write after
// the add fails the Store; with SyncWrites, while other writers are in
// write, the wait first lets them queue into its group (wal.Files.Wait's
// gather), so that they share its fsync. Without SyncWrites it does not:
// a yield puts the writer behind every goroutine ready to run (readers
// included), which costs a write more latency than the write() it saves.
// Seqs taken in queue order complete in the order their groups are
// written: a writer whose group is written does not then wait for an
// earlier seq still queued behind it. With WALBuffered it returns once
// the frame is queued (and added), every record sealed under the file's
// lock, so that the file's frames, written in queue order, are in seq
// order whatever their size: a crash loses a suffix of the seqs.
//
// Otherwise it begins, then writes the record's chunks in one engine
// batch: with an engine that commits asynchronously (engine.AsyncWriter:
// Open in memory) the add runs while the batch commits, and the commit's
// error comes after it, so that the writer's memstore inserts and the
// engine's write overlap; with another engine (Wrap) the add runs only
// after the commit succeeded, as another user of the DB may make a
// commit fail (Badger's DropPrefix blocks writes) and the Store must then
// stay usable. The ops are not added when the write fails before it is
// done (a failed file write, a record larger than a transaction); added
// reports whether they were.
func (s *Store) logWAL(mt *memtable, frame []byte, ops []wal.Op, need int64, begin func()) (added bool, addErr, err error) {
	rec := frame[wal.FrameLen:]
	if s.wal != nil {
		seal := begin
		if len(rec) > sealUnderLock && !s.wal.Buffered() {
			begin()
			seal = nil
		}
		end, err := s.wal.Queue(&mt.wal, frame, seal)
		if err != nil {
			return false, nil, err
		}
		addErr = mt.add(ops, wal.SeqOf(rec), need)
		if s.wal.Buffered() {
			return true, addErr, nil
		}
		return true, addErr, s.wal.Wait(&mt.wal, end, s.opts.SyncWrites && s.writers.Load() > 1)
	}
	begin()
	seq := wal.SeqOf(rec)
	if err := s.eng.Err(); err != nil {
		return false, nil, err
	}
	if err := s.admitWrite("WAL record", len(rec), (len(rec)+wal.Chunk-1)/wal.Chunk); err != nil {
		return false, nil, err
	}
	var b engine.Batch
	wal.EngineBatch(&b, s.keys, seq, rec)
	b.SetUnseen() // only Open reads WAL records
	if s.async == nil {
		if err := s.eng.Write(&b); err != nil {
			return false, nil, err
		}
		return true, mt.add(ops, seq, need), nil
	}
	done := make(chan error, 1)
	if err := s.async.WriteAsync(&b, func(err error) { done <- err }); err != nil {
		return false, nil, err
	}
	addErr = mt.add(ops, seq, need)
	return true, addErr, <-done
}

// failed returns the error of a WAL write that failed after its ops went
// into the memstore (logWAL), or nil. From then on the Store refuses
// reads, writes and flushes, so that no reader sees the ops of that write
// and no segment holds them; reopening the Store recovers from the WAL
// the writes that succeeded. A read checks it after taking its read
// point: the error is set before the write completes, so a read point
// that covers the write's seq finds it.
func (s *Store) failed() error {
	if p := s.walErr.Load(); p != nil {
		return *p
	}
	return nil
}

// freeze makes mt (if it is still the active memtable and not empty) a
// frozen one and starts a new active memtable. No write is in flight while
// it runs, so mt holds exactly the seqs (mt.lo, WritePoint].
func (s *Store) freeze(mt *memtable) bool { return s.freezeInto(mt, nil) }

// freezeInto is freeze with next, a new memtable, as the active one (nil:
// one allocated with writes held).
func (s *Store) freezeInto(mt, next *memtable) bool {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.active != mt || mt.empty() {
		return false
	}
	s.freezeActiveInto(next)
	s.kickBackground()
	return true
}

// successor returns the memtable that follows mt, full, as the active one:
// allocated once, by the first writer that asks, before it holds writes
// (zeroing the arena of the default MemstoreSize takes milliseconds,
// which writers held by freeze would wait).
func (s *Store) successor(mt *memtable) *memtable {
	mt.nextOnce.Do(func() { mt.next = s.newMemtable(0) })
	return mt.next
}

// freezeActive makes the active memtable the newest frozen one, up to the
// write point, and a new memtable active. The caller holds writeMu.
func (s *Store) freezeActive() { s.freezeActiveInto(nil) }

// freezeActiveInto is freezeActive with next as the new memtable (nil:
// allocate one).
func (s *Store) freezeActiveInto(next *memtable) {
	mt := s.active
	if s.wal != nil && s.wal.Buffered() {
		// The next memtable's file must not hold records while mt's
		// queued ones may still be lost: a crash would leave a hole. A
		// failed write fails every later write (wal.Files).
		_ = s.wal.Drain(&mt.wal)
	}
	mt.hi = s.tracker.WritePoint()
	if next == nil {
		next = s.newMemtable(0)
	}
	next.lo = mt.hi
	s.mu.Lock()
	s.frozen = append([]*memtable{mt}, s.frozen...)
	s.active = next
	s.mu.Unlock()
}

// stall holds a writer that found the active memtable full back while
// maxFrozen frozen ones wait for their flush (a write stall), until a
// flush takes the oldest one off: the writer flushes it itself when no
// flush runs (the background goroutine may be compacting), else it waits
// for the running flush to finish that memtable. So a stall lasts one
// memtable's flush, not that of every frozen one. A flush that fails
// returns its error to the writer that ran it.
func (s *Store) stall() error {
	var start time.Time
	for !s.closed.Load() {
		s.mu.RLock()
		n, taken := len(s.frozen), s.frozenTaken
		s.mu.RUnlock()
		if n < maxFrozen {
			break
		}
		if start.IsZero() {
			start = time.Now()
		}
		if s.flushMu.TryLock() {
			err := s.flushOldest()
			s.flushMu.Unlock()
			if err != nil {
				s.stalled(start)
				return err
			}
			continue
		}
		// A flush that stops without taking a memtable off (it failed)
		// does not close taken: look again after stallPoll.
		t := time.NewTimer(stallPoll)
		select {
		case <-taken:
		case <-t.C:
		}
		t.Stop()
	}
	if !start.IsZero() {
		s.stalled(start)
	}
	return nil
}

// stallPoll is how often a stalled writer looks again at the frozen
// memtables when no flush tells it that one is gone.
const stallPoll = 10 * time.Millisecond

// stalled counts a write stall that began at start (Stats).
func (s *Store) stalled(start time.Time) {
	s.stalls.Add(1)
	s.stallTime.Add(int64(time.Since(start)))
}

// flushOldest flushes the oldest frozen memtable, if any. The caller
// holds flushMu.
func (s *Store) flushOldest() error {
	s.mu.RLock()
	var mt *memtable
	if n := len(s.frozen); n > 0 {
		mt = s.frozen[n-1]
	}
	s.mu.RUnlock()
	if mt == nil {
		return nil
	}
	return s.flushMemtable(mt)
}

// frozenGone wakes the writers stalled until a flush takes a frozen
// memtable off (stall). The caller holds mu for writing and has just
// taken one off.
func (s *Store) frozenGone() {
	close(s.frozenTaken)
	s.frozenTaken = make(chan struct{})
}

// Get returns a copy of key's newest value, or ErrNotFound.
func (s *Store) Get(key []byte) ([]byte, error) {
	return s.get(key, 0, false)
}

// get reads key at the read point (or at rp when pinned).
func (s *Store) get(key []byte, rp uint64, pinned bool) ([]byte, error) {
	s.yieldToWrites() // before any lock
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed.Load() {
		return nil, s.errClosed()
	}
	if err := s.dbClosed(); err != nil {
		return nil, err
	}
	if !pinned {
		rp = s.tracker.ReadPoint()
	}
	if err := s.failed(); err != nil {
		return nil, err
	}
	// Memstores hold newer seqs than segments, the active one newer than
	// the frozen ones, and segments are sorted newest first: the first
	// version found is the newest. A range tombstone visible at rp hides
	// it when it is older than the tombstone.
	cover := s.coverLocked(key, rp)
	if s.active.ms.Len() > 0 { // an empty skiplist still costs a seek
		if c, ok := s.active.ms.Get(key, rp); ok {
			return cellValue(c, cover)
		}
	}
	for _, mt := range s.frozen {
		if c, ok := mt.ms.Get(key, rp); ok {
			return cellValue(c, cover)
		}
	}
	h := bloom.Hash(key) // the key filters' hash, the same for every segment
	for _, g := range s.segs {
		v, kind, seq, found, err := s.rd.Get(g, key, h, rp, nil)
		if err != nil {
			return nil, err
		}
		if found {
			if kind == blockenc.KindDelete || seq < cover {
				return nil, ErrNotFound
			}
			return v, nil
		}
	}
	return nil, ErrNotFound
}

// cellValue returns a copy of c's value, or ErrNotFound when c is a
// tombstone or older than cover (the newest range tombstone over its key).
func cellValue(c blockenc.Cell, cover uint64) ([]byte, error) {
	if c.Kind == blockenc.KindDelete || c.Seq < cover {
		return nil, ErrNotFound
	}
	return clone(c.Value), nil
}

// add adds the ops of one write admitted with reserve(need), at seq, to
// the memtable: cells to the memstore, range tombstones beside it. It
// ends the write's admission, also when it fails, but for the range
// tombstones' bytes, which stay counted against the arena.
func (m *memtable) add(ops []wal.Op, seq uint64, need int64) error {
	var dels []rangedel.Tombstone
	var delBytes int64
	defer func() { m.release(need - delBytes) }()
	ins := m.ms.Inserter() // a batch in key order links each cell after the last
	for _, o := range ops {
		if o.Ranged {
			dels = append(dels, rangedel.Tombstone{Start: clone(o.Key), End: clone(o.Value), Seq: seq})
			delBytes += rangedel.Bound(o.Key, o.Value)
			continue
		}
		if err := ins.AddReserved(blockenc.Cell{Key: o.Key, Value: o.Value, Seq: seq, Kind: o.Kind}); err != nil {
			delBytes = 0
			return err
		}
	}
	if len(dels) > 0 {
		m.addRangeDels(dels)
		m.rangeBytes.Add(delBytes)
	}
	return nil
}

// empty reports whether the memtable holds neither cells nor range
// tombstones.
func (m *memtable) empty() bool {
	return m.ms.Len() == 0 && m.dels.Load() == nil
}

// addRangeDels adds the tombstones of one write to the memtable's (a new
// set: readers holding the old one keep it).
func (m *memtable) addRangeDels(add []rangedel.Tombstone) {
	m.delMu.Lock()
	defer m.delMu.Unlock()
	old := m.dels.Load()
	dels := make([]rangedel.Tombstone, 0, old.Len()+len(add))
	if old != nil {
		dels = append(dels, old.Dels...)
	}
	m.dels.Store(rangedel.New(append(dels, add...)))
}
