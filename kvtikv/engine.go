package kvtikv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/engine"
	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv/txnsnapshot"
)

// errClosed: a call on a closed Engine.
var errClosed = errors.New("kvtikv: engine closed")

// Engine is kv's engine (package kv/engine) over TiKV transactions. It
// implements engine.AsyncWriter (group commit of WAL records) and
// engine.Refresher (a ReadOnly Store reads at the timestamp of its last
// Refresh).
type Engine struct {
	store      *tikv.KVStore
	closeStore func() error // Dial's client, nil for Open
	opts       kv.Options
	lease      *lease
	readOnly   bool
	// readTS is the timestamp a ReadOnly engine reads at (Refresh).
	readTS atomic.Uint64
	closed atomic.Bool

	// The group committer of WriteAsync: queue holds the batches waiting,
	// wake starts the committer when it sleeps.
	mu      sync.Mutex
	queue   []pending
	queued  int
	running bool
	idle    sync.WaitGroup // the committer while it runs
	// batches and txns count the WAL batches group-committed and the
	// transactions that held them.
	batches, txns atomic.Int64
}

type pending struct {
	b    *engine.Batch
	done func(error)
}

var (
	_ engine.Engine      = (*Engine)(nil)
	_ engine.AsyncWriter = (*Engine)(nil)
	_ engine.Refresher   = (*Engine)(nil)
)

func newEngine(store *tikv.KVStore, opts kv.Options, closeStore func() error) *Engine {
	e := &Engine{store: store, closeStore: closeStore, opts: opts, readOnly: opts.ReadOnly}
	e.lease = newLease(e, opts.Prefix, opts.Lease)
	return e
}

func ctx() context.Context { return context.Background() }

// Get calls v.View with the latest committed value of key (or at the
// ReadOnly engine's timestamp).
func (e *Engine) Get(key []byte, v engine.Viewer) error {
	if err := e.Err(); err != nil {
		return err
	}
	ts := e.readTS.Load()
	if ts == 0 {
		ts = math.MaxUint64 // the latest committed value
	}
	got, err := e.store.GetSnapshot(ts).Get(ctx(), key)
	if tikverr.IsErrNotFound(err) {
		return engine.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("kvtikv: get %q: %w", key, err)
	}
	return v.View(got.Value)
}

// snapshot returns a snapshot for an iterator: at the ReadOnly engine's
// timestamp, or at a fresh one from the oracle.
func (e *Engine) snapshot() (*txnsnapshot.KVSnapshot, error) {
	ts := e.readTS.Load()
	if ts == 0 {
		var err error
		if ts, err = e.store.CurrentTimestamp(oracle.GlobalTxnScope); err != nil {
			return nil, fmt.Errorf("kvtikv: timestamp: %w", err)
		}
	}
	return e.store.GetSnapshot(ts), nil
}

// Refresh moves a ReadOnly engine's reads to the current timestamp; it
// does nothing on a writer's engine.
func (e *Engine) Refresh() error {
	if !e.readOnly {
		return nil
	}
	if err := e.Err(); err != nil {
		return err
	}
	ts, err := e.store.CurrentTimestamp(oracle.GlobalTxnScope)
	if err != nil {
		return fmt.Errorf("kvtikv: timestamp: %w", err)
	}
	e.readTS.Store(ts)
	return nil
}

// checkSize refuses a batch beyond MaxTxnBytes.
func checkSize(b *engine.Batch) error {
	if b.Size() > MaxTxnBytes {
		return fmt.Errorf("%w: %d bytes in %d operations, kvtikv commits at most %d bytes in one transaction", engine.ErrTooLarge, b.Size(), b.Len(), MaxTxnBytes)
	}
	return nil
}

// Write commits b in one transaction, fenced by the lease.
func (e *Engine) Write(b *engine.Batch) error {
	if err := e.writable(); err != nil {
		return err
	}
	if err := checkSize(b); err != nil {
		return err
	}
	if e.lease.creates(b) {
		return e.lease.create(ctx())
	}
	return e.commit([]*engine.Batch{b})
}

// writable returns why the engine cannot write now, or nil.
func (e *Engine) writable() error {
	if e.closed.Load() {
		return errClosed
	}
	if e.readOnly {
		return fmt.Errorf("%w: kvtikv engine of a ReadOnly Store", kv.ErrReadOnly)
	}
	return e.lease.lostErr()
}

// maxRevives bounds the times one commit renews an expired lease and
// tries again.
const maxRevives = 3

// commit writes the batches in one transaction that checks the lease.
func (e *Engine) commit(bs []*engine.Batch) error {
	revives := 0
	// revive renews an expired lease for another try; the error when
	// that fails or the tries are used up.
	revive := func(why string) error {
		revives++
		if err := e.lease.renew(ctx()); err != nil || revives > maxRevives {
			if lost := e.lease.lostErr(); lost != nil {
				return lost
			}
			e.lease.lose(fmt.Errorf("%s and %d renewals did not keep it (%v)", why, revives, err))
			return e.lease.lostErr()
		}
		return nil
	}
	for {
		txn, err := e.store.Begin()
		if err != nil {
			return fmt.Errorf("kvtikv: begin: %w", err)
		}
		expiry, err := e.lease.fence(txn)
		if errors.Is(err, errExpired) {
			_ = txn.Rollback()
			if err := revive(fmt.Sprintf("its lease expired at %s", msTime(expiry))); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			_ = txn.Rollback()
			return err
		}
		for _, b := range bs {
			for _, o := range b.Ops() {
				if o.Delete {
					err = txn.Delete(o.Key)
				} else {
					err = txn.Set(o.Key, o.Value)
				}
				if err != nil {
					_ = txn.Rollback()
					return fmt.Errorf("kvtikv: %w", err)
				}
			}
		}
		late := false
		txn.SetCommitTSUpperBoundCheck(func(commitTS uint64) bool {
			late = oracle.ExtractPhysical(commitTS) >= expiry
			return !late
		})
		err = txn.Commit(ctx())
		switch {
		case err == nil:
			return nil
		case late && e.lease.renewedPast(expiry):
			// A renewal committed while this transaction ran: again
			// with the new expiry.
			continue
		case late:
			if err := revive(fmt.Sprintf("its lease expired at %s before a commit", msTime(expiry))); err != nil {
				return err
			}
			continue
		case tikverr.IsErrWriteConflict(err):
			return fmt.Errorf("%w of Prefix %q: %v", ErrWriteConflict, e.opts.Prefix, err)
		}
		return fmt.Errorf("kvtikv: commit: %w", err)
	}
}

// WriteAsync queues b for the group committer, which commits the batches
// that wait together in one transaction and calls each one's done with
// its outcome.
func (e *Engine) WriteAsync(b *engine.Batch, done func(error)) error {
	if err := e.writable(); err != nil {
		return err
	}
	if err := checkSize(b); err != nil {
		return err
	}
	e.mu.Lock()
	e.queue = append(e.queue, pending{b, done})
	e.queued += b.Size()
	if !e.running {
		e.running = true
		e.idle.Add(1)
		go e.committer()
	}
	e.mu.Unlock()
	return nil
}

// committer commits the queue in transactions of at most MaxTxnBytes
// until it is empty.
func (e *Engine) committer() {
	defer e.idle.Done()
	for {
		e.mu.Lock()
		n, size := 0, 0
		for n < len(e.queue) && (n == 0 || size+e.queue[n].b.Size() <= MaxTxnBytes) {
			size += e.queue[n].b.Size()
			n++
		}
		if n == 0 {
			e.running = false
			e.mu.Unlock()
			return
		}
		group := make([]pending, n)
		copy(group, e.queue)
		e.queue = append(e.queue[:0], e.queue[n:]...)
		e.queued -= size
		e.mu.Unlock()

		bs := make([]*engine.Batch, n)
		for i, p := range group {
			bs[i] = p.b
		}
		err := e.writable()
		if err == nil {
			err = e.commit(bs)
		}
		e.batches.Add(int64(n))
		e.txns.Add(1)
		for _, p := range group {
			p.done(err)
		}
	}
}

// groupStats returns the WAL batches group-committed and the transactions
// that held them.
func (e *Engine) groupStats() (batches, txns int64) { return e.batches.Load(), e.txns.Load() }

// DeleteRange deletes the keys in [start, end) in fenced transactions of
// at most MaxTxnBytes each: MVCC deletes, so that a reader at an earlier
// timestamp (a ReadOnly Store between Refreshes) still reads them, and a
// writer that lost its lease deletes nothing. (TiKV's own DeleteRange
// removes every version at once, outside transactions and unfenced.)
func (e *Engine) DeleteRange(start, end []byte) error {
	if err := e.writable(); err != nil {
		return err
	}
	snap, err := e.snapshot()
	if err != nil {
		return err
	}
	it := &iter{snap: snap, o: engine.IterOptions{Lower: start, Upper: end}}
	defer it.Close()
	var b engine.Batch
	for ok := it.First(); ok; ok = it.Next() {
		b.Delete(bytes.Clone(it.Key()))
		if b.Size() >= MaxTxnBytes/2 {
			if err := e.commit([]*engine.Batch{&b}); err != nil {
				return err
			}
			b = engine.Batch{}
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	if b.Len() == 0 {
		return nil
	}
	return e.commit([]*engine.Batch{&b})
}

// Err returns errClosed once the engine is closed.
func (e *Engine) Err() error {
	if e.closed.Load() {
		return errClosed
	}
	return nil
}

// Close waits for the group committer, gives the lease up and, for Dial,
// closes the client.
func (e *Engine) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return errClosed
	}
	e.idle.Wait()
	err := e.lease.release(ctx())
	if e.closeStore != nil {
		if cerr := e.closeStore(); err == nil {
			err = cerr
		}
	}
	return err
}

// closeQuietly closes an engine Open could not use.
func (e *Engine) closeQuietly() { _ = e.Close() }

// NewIter returns an iterator over [o.Lower, o.Upper) on a snapshot.
func (e *Engine) NewIter(o engine.IterOptions) (engine.Iter, error) {
	if err := e.Err(); err != nil {
		return nil, err
	}
	snap, err := e.snapshot()
	if err != nil {
		return nil, err
	}
	snap.SetScanBatchSize(scanBatch)
	return &iter{snap: snap, o: o}, nil
}

// scanBatch is the keys an iterator reads per scan request: kv iterates
// over 16 KiB blocks, which client-go's default of 256 would fetch 4 MiB
// at a time, on every seek.
const scanBatch = 32

// scanner is client-go's iterator (unionstore.Iterator).
type scanner interface {
	Valid() bool
	Key() []byte
	Value() []byte
	Next() error
	Close()
}

// iter is an engine.Iter over client-go scanners: a Seek starts a new
// one.
type iter struct {
	snap *txnsnapshot.KVSnapshot
	o    engine.IterOptions
	sc   scanner
	err  error
}

func (it *iter) start(from []byte) bool {
	if it.sc != nil {
		it.sc.Close()
		it.sc = nil
	}
	var sc scanner
	var err error
	if !it.o.Reverse {
		lo := it.o.Lower
		if from != nil && bytes.Compare(from, lo) > 0 {
			lo = from
		}
		if it.o.Upper != nil && bytes.Compare(lo, it.o.Upper) >= 0 {
			return false
		}
		sc, err = it.snap.Iter(lo, it.o.Upper)
	} else {
		hi := it.o.Upper // exclusive
		if from != nil {
			next := append(bytes.Clone(from), 0) // at or below from
			if hi == nil || bytes.Compare(next, hi) < 0 {
				hi = next
			}
		}
		if hi != nil && it.o.Lower != nil && bytes.Compare(hi, it.o.Lower) <= 0 {
			return false
		}
		sc, err = it.snap.IterReverse(hi, it.o.Lower)
	}
	if err != nil {
		it.err = fmt.Errorf("kvtikv: scan: %w", err)
		return false
	}
	it.sc = sc
	return it.Valid()
}

func (it *iter) First() bool { return it.start(nil) }

func (it *iter) Seek(key []byte) bool { return it.start(key) }

func (it *iter) Next() bool {
	if !it.Valid() {
		return false
	}
	if err := it.sc.Next(); err != nil {
		it.err = fmt.Errorf("kvtikv: scan: %w", err)
		return false
	}
	return it.Valid()
}

func (it *iter) Valid() bool { return it.err == nil && it.sc != nil && it.sc.Valid() }

func (it *iter) Key() []byte { return it.sc.Key() }

func (it *iter) Value(v engine.Viewer) error { return v.View(it.sc.Value()) }

func (it *iter) Err() error { return it.err }

func (it *iter) Close() error {
	if it.sc != nil {
		it.sc.Close()
		it.sc = nil
	}
	return nil
}
