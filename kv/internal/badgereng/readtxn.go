package badgereng

import (
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// readTxns lends read-only Badger transactions to block reads (Gets and
// Iterators), so that a read does not begin and discard a transaction of
// its own. Beginning one takes Badger's oracle mutex and sends a mark to
// its watermark goroutine, and discarding it sends another: Gets from
// several goroutines queue on that mutex, and each Get wakes the
// watermark goroutine, on an idle core a thread wake-up.
//
// A transaction reads at its read timestamp, so that a Get sees every
// write that returned before it began, every commit of the engine moves
// to a new epoch (invalidate): a transaction begun in an older epoch is
// discarded, not lent. A commit of an unseen batch (engine.Batch.SetUnseen:
// a segment's blocks before its meta, WAL records) does not: no read
// looks its keys up before a later commit that is seen (the segment's
// meta) moves the epoch, and a read that finds the segment listed began
// after that commit, so it takes a transaction of the new epoch. A transaction is also discarded once it is txnMaxAge old (an idle
// one within twice that), so that Badger's compactions, which keep every
// version newer than the oldest open transaction, may drop what was
// deleted since.
//
// A lent transaction serves one read at a time.
type readTxns struct {
	db     *badger.DB
	maxAge time.Duration                     // txnMaxAge (tests lengthen it)
	slot   [txnSlots]atomic.Pointer[readTxn] // idle transactions
	epoch  atomic.Uint64
	// closed: the Store is closed; every read begins a transaction of its
	// own, discarded after it.
	closed atomic.Bool
	// expiry runs expire maxAge after it is armed; armed says it is
	// scheduled.
	armed   atomic.Bool
	timerMu sync.Mutex
	expiry  *time.Timer
}

// readTxn is a read-only transaction, the epoch it was begun in and when.
type readTxn struct {
	txn   *badger.Txn
	epoch uint64
	born  time.Time
}

// txnSlots is how many idle transactions readTxns keeps, about one per
// goroutine reading at once. A read that finds none begins one.
const txnSlots = 8

// txnMaxAge is how long a transaction is lent for. Beginning and
// discarding one costs a few microseconds, so at this age it is paid once
// per thousands of reads of a busy Store.
const txnMaxAge = 50 * time.Millisecond

func newReadTxns(db *badger.DB) *readTxns {
	return &readTxns{db: db, maxAge: txnMaxAge}
}

// get returns a transaction for one read, given back with put, or an
// error wrapping badger.ErrDBClosed (see begin).
func (p *readTxns) get() (*readTxn, error) {
	e := p.epoch.Load()
	for i := range p.slot {
		if t := p.slot[i].Swap(nil); t != nil {
			if t.epoch == e && time.Since(t.born) < p.maxAge {
				return t, nil
			}
			p.discard(t)
		}
	}
	txn, err := begin(p.db, false)
	if err != nil {
		return nil, err
	}
	return &readTxn{txn: txn, epoch: e, born: time.Now()}, nil
}

// put gives back t, from get: to a free slot if it is of the current
// epoch, else it is discarded.
func (p *readTxns) put(t *readTxn) {
	if t.epoch == p.epoch.Load() && !p.closed.Load() {
		for i := range p.slot {
			if p.slot[i].CompareAndSwap(nil, t) {
				if p.closed.Load() { // close may have drained the slots before t
					p.drain()
				} else {
					p.arm()
				}
				return
			}
		}
	}
	p.discard(t)
}

// invalidate starts a new epoch: the idle transactions are discarded, the
// lent ones when they are given back.
func (p *readTxns) invalidate() {
	p.epoch.Add(1)
	p.drain()
}

// close discards the idle transactions and stops keeping any.
func (p *readTxns) close() {
	p.closed.Store(true)
	p.timerMu.Lock()
	if p.expiry != nil {
		p.expiry.Stop()
	}
	p.timerMu.Unlock()
	p.drain()
}

// drain discards the idle transactions.
func (p *readTxns) drain() {
	for i := range p.slot {
		if t := p.slot[i].Swap(nil); t != nil {
			p.discard(t)
		}
	}
}

// discard discards t, unless the DB is closed (its Discard could then
// block for ever, and a closed DB keeps no version for it).
func (p *readTxns) discard(t *readTxn) {
	if !p.db.IsClosed() {
		t.txn.Discard()
	}
}

// arm schedules expire unless it is scheduled.
func (p *readTxns) arm() {
	if p.armed.Load() || !p.armed.CompareAndSwap(false, true) {
		return
	}
	p.timerMu.Lock()
	defer p.timerMu.Unlock()
	switch {
	case p.closed.Load():
	case p.expiry == nil:
		p.expiry = time.AfterFunc(p.maxAge, p.expire)
	default:
		p.expiry.Reset(p.maxAge)
	}
}

// expire discards the idle transactions that get would not lend, and
// schedules itself again while others are left.
func (p *readTxns) expire() {
	p.armed.Store(false)
	left := false
	for i := range p.slot {
		t := p.slot[i].Load()
		if t == nil {
			continue
		}
		if t.epoch == p.epoch.Load() && time.Since(t.born) < p.maxAge {
			left = true
		} else if p.slot[i].CompareAndSwap(t, nil) {
			p.discard(t)
		}
	}
	if left {
		p.arm()
	}
}
