// Package badgereng is kv's engine (package engine) on Badger v4: a DB it
// opens and owns (Open, for kv.Open) or one its caller owns and shares
// (Wrap, for kv.Wrap). It writes the bytes kv hands it as they are, so a
// store's keys and values in Badger are those of kv's format.
//
// Reads lend read-only Badger transactions (see readTxns): a Get does not
// begin and discard one of its own. Writes are Badger transactions; a
// batch beyond Badger's transaction limit (ErrTxnTooBig) fails with
// engine.ErrTooLarge, and so does a value of 1 MiB or more in an
// in-memory DB (Badger v4.9.6 panics on exactly 1 MiB and refuses more).
// The large-value hint is not needed: Badger places a value by its size
// (ValueThreshold), and kv.Open sets the threshold below a block's size.
//
// Optional engine capabilities: an owned DB commits asynchronously
// (engine.AsyncWriter, Txn.CommitWith); both fsync on request
// (engine.Syncer, DB.Sync) and reclaim space on request
// (engine.Reclaimer: DropPrefix, and value-log GC for an owned DB on
// disk).
//
// A DB closed under the engine (Wrap, by its owner) makes every call fail
// with an error wrapping badger.ErrDBClosed instead of blocking or
// panicking as Badger would.
package badgereng

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
)

// Engine is a Badger DB behind kv's engine seam.
type Engine struct {
	db       *badger.DB
	own      bool
	inMemory bool
	txns     *readTxns
	// commitWith commits a transaction for WriteAsync (Txn.CommitWith;
	// tests replace it to make a commit fail).
	commitWith func(txn *badger.Txn, cb func(error))
}

// Owned is an Engine on a DB it opened (Open): Close closes the DB, and
// since no one else writes to it, its writes may overlap the caller's
// work (WriteAsync).
type Owned struct{ *Engine }

// Open opens the Badger DB of o and returns an engine that owns it: Close
// closes it. It first removes empty memtable files that a process killed
// while Badger created one leaves behind (see removeEmptyMemtables).
func Open(o badger.Options) (*Owned, error) {
	if !o.InMemory {
		if err := removeEmptyMemtables(o.Dir); err != nil {
			return nil, fmt.Errorf("open badger: %w", err)
		}
	}
	db, err := badger.Open(o)
	if err != nil {
		return nil, fmt.Errorf("open badger: %w", err)
	}
	e := newEngine(db)
	e.own = true
	return &Owned{e}, nil
}

// Wrap returns an engine on db, which its caller owns: Close leaves it
// open. db must not be in managed mode (see Managed).
func Wrap(db *badger.DB) *Engine { return newEngine(db) }

func newEngine(db *badger.DB) *Engine {
	return &Engine{
		db:       db,
		inMemory: db.Opts().InMemory,
		txns:     newReadTxns(db),
		commitWith: func(txn *badger.Txn, cb func(error)) {
			txn.CommitWith(cb)
			txn.Discard() // when CommitWith failed early (a no-op otherwise)
		},
	}
}

// Managed reports whether db was opened with badger.OpenManaged, in which
// transactions carry the caller's timestamps and Badger's Update panics.
// Badger keeps that in an unexported option; reflect may read (not set)
// it.
func Managed(db *badger.DB) bool {
	f := reflect.ValueOf(db.Opts()).FieldByName("managedTxns")
	return f.IsValid() && f.Kind() == reflect.Bool && f.Bool()
}

// DB returns the Badger DB (for tests and Badger-only diagnostics).
func (e *Engine) DB() *badger.DB { return e.db }

// Owned reports whether the engine opened its DB (Open) and closes it.
func (e *Engine) Owned() bool { return e.own }

// InMemory reports whether the DB keeps nothing on disk.
func (e *Engine) InMemory() bool { return e.inMemory }

// Dir returns the DB's directory ("" in memory).
func (e *Engine) Dir() string {
	if e.inMemory {
		return ""
	}
	return e.db.Opts().Dir
}

// Err returns an error wrapping badger.ErrDBClosed once the DB is closed.
// Badger blocks for ever a transaction begun on a closed DB, so every
// call checks it first (and begins its transactions with begin).
func (e *Engine) Err() error {
	if e.db.IsClosed() {
		return closedErr
	}
	return nil
}

// closedErr is the error of a call on a closed DB.
var closedErr = fmt.Errorf("badger: %w", badger.ErrDBClosed)

// closedPoll is how often begin looks whether the DB closed while Badger
// begins a transaction.
const closedPoll = 5 * time.Millisecond

// begin begins a Badger transaction, or fails with an error wrapping
// badger.ErrDBClosed when the DB is closed or closes first. Badger's
// NewTransaction waits until the commits before it are applied (its
// oracle's watermark), and once the DB has closed that wait never ends:
// a DB closed by its owner between the check and the call, or while the
// call waits, would block the caller for ever. So the call runs on a
// goroutine of its own, which begin abandons when the DB closes: a
// transaction it may still get lands in the buffered channel, and a
// closed DB keeps no version for it to release.
func begin(db *badger.DB, update bool) (*badger.Txn, error) {
	if db.IsClosed() {
		return nil, closedErr
	}
	ch := make(chan *badger.Txn, 1)
	go func() { ch <- db.NewTransaction(update) }()
	var poll *time.Timer
	for {
		if poll == nil {
			select {
			case t := <-ch:
				return t, nil
			default:
			}
			poll = time.NewTimer(closedPoll)
			defer poll.Stop()
		}
		select {
		case t := <-ch:
			return t, nil
		case <-poll.C:
			if db.IsClosed() {
				return nil, closedErr
			}
			poll.Reset(closedPoll)
		}
	}
}

// catchClosed, deferred, turns Badger's panic with ErrDBClosed (from
// NewIterator on a DB closed under it) into *err; other panics go on.
func catchClosed(err *error) {
	if r := recover(); r != nil {
		if e, ok := r.(error); ok && errors.Is(e, badger.ErrDBClosed) {
			*err = fmt.Errorf("badger: %w", e)
			return
		}
		panic(r)
	}
}

// Get calls f with key's value as Badger holds it (for a value-log value,
// its mmapped file), through a lent read transaction.
func (e *Engine) Get(key []byte, v engine.Viewer) error {
	if err := e.Err(); err != nil {
		return err
	}
	t, err := e.txns.get()
	if err != nil {
		return err
	}
	item, err := t.txn.Get(key)
	if err == nil {
		err = item.Value(v.View)
	}
	e.txns.put(t)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return engine.ErrNotFound
	}
	return err
}

// Write commits b in one Badger transaction.
func (e *Engine) Write(b *engine.Batch) error {
	txn, err := e.txn(b)
	if err != nil {
		return err
	}
	defer txn.Discard()
	if err := txn.Commit(); err != nil {
		return err
	}
	e.committed(b)
	return nil
}

// committed ends the lending of the read transactions begun before b
// committed (readTxns.invalidate), unless b is unseen
// (engine.Batch.SetUnseen): no read they serve needs its keys.
func (e *Engine) committed(b *engine.Batch) {
	if !b.Unseen() {
		e.txns.invalidate()
	}
}

// WriteAsync commits b with Txn.CommitWith: it returns once Badger's
// write goroutine has taken the transaction, and done runs when the
// commit is complete. Only an owned DB offers it: in a shared one another
// user may make the commit fail (DropPrefix blocks writes), and kv then
// writes first and goes on only once the commit succeeded.
func (e *Owned) WriteAsync(b *engine.Batch, done func(error)) error {
	txn, err := e.txn(b)
	if err != nil {
		return err
	}
	e.commitWith(txn, func(err error) {
		if err == nil {
			e.committed(b)
		}
		done(err)
	})
	return nil
}

// Sync fsyncs the DB's value log and memtable log (Badger's DB.Sync; a
// no-op in memory).
func (e *Engine) Sync() error {
	if err := e.Err(); err != nil {
		return err
	}
	return e.db.Sync()
}

// SetCommitWith replaces how WriteAsync commits (tests make it fail).
func (e *Engine) SetCommitWith(f func(txn *badger.Txn, cb func(error))) { e.commitWith = f }

// txn returns a write transaction holding b's operations.
func (e *Engine) txn(b *engine.Batch) (*badger.Txn, error) {
	txn, err := begin(e.db, true)
	if err != nil {
		return nil, err
	}
	for _, o := range b.Ops() {
		var err error
		switch {
		case o.Delete:
			err = txn.Delete(o.Key)
		case e.inMemory && len(o.Value) >= 1<<20:
			err = fmt.Errorf("%w: a value of %d bytes for an in-memory Badger (below 1 MiB)", engine.ErrTooLarge, len(o.Value))
		default:
			err = txn.Set(o.Key, o.Value)
		}
		if errors.Is(err, badger.ErrTxnTooBig) {
			err = fmt.Errorf("%w: batch of %d ops, %d bytes, exceeds Badger's transaction limit of %d bytes: %w", engine.ErrTooLarge, b.Len(), b.Size(), e.db.MaxBatchSize(), err)
		}
		if err != nil {
			txn.Discard()
			return nil, shorten(err)
		}
	}
	return txn, nil
}

// DeleteRange deletes the keys in [start, end), in as many transactions
// as it takes.
func (e *Engine) DeleteRange(start, end []byte) error {
	it, err := e.NewIter(engine.IterOptions{Lower: start, Upper: end})
	if err != nil {
		return err
	}
	var keys [][]byte
	for ok := it.First(); ok; ok = it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
	}
	err = it.Err()
	it.Close()
	if err != nil || len(keys) == 0 {
		return err
	}
	var b engine.Batch
	for _, k := range keys {
		b.Delete(k)
	}
	return engine.WriteSplit(e, &b)
}

// DropPrefixes is Badger's DropPrefix: it rewrites the tables holding keys
// under prefixes without them, and counts the value-log bytes they
// pointed to as discarded. Badger refuses every other write to the DB
// while it runs (badger.ErrBlockedWrites), and skips a prefix under which
// no live key is left.
func (e *Engine) DropPrefixes(prefixes ...[]byte) error {
	if err := e.Err(); err != nil {
		return err
	}
	if err := e.db.DropPrefix(prefixes...); err != nil {
		return fmt.Errorf("badger drop prefix: %w", err)
	}
	e.txns.invalidate()
	return nil
}

// CollectGarbage runs Badger's value-log GC up to files times, each
// rewriting or deleting one file at least ratio discarded; only on a DB
// the engine owns on disk. Badger v4.9.6's RunValueLogGC reads the
// memtable without a lock (DB.MaxVersion), a data race with concurrent
// writes: run it while nothing writes.
func (e *Engine) CollectGarbage(files int, ratio float64) {
	if !e.own || e.inMemory || e.Err() != nil {
		return
	}
	for i := 0; i < files && e.db.RunValueLogGC(ratio) == nil; i++ {
	}
}

// Shared reports whether the DB is the caller's (Wrap).
func (e *Engine) Shared() bool { return !e.own }

// Refresh makes the next reads see every commit to the DB so far, also
// those of other writers (engine.Refresher): the lent transactions begun
// before are discarded.
func (e *Engine) Refresh() error {
	e.txns.invalidate()
	return nil
}

// Close discards the lent transactions and, for an owned DB, closes it.
func (e *Engine) Close() error {
	e.txns.close()
	if !e.own {
		return nil
	}
	if err := e.db.Close(); err != nil {
		return fmt.Errorf("close badger: %w", err)
	}
	return nil
}

// removeEmptyMemtables deletes the empty memtable files (*.mem of 0
// bytes) in dir. Badger v4.9.6 creates a memtable file and then sizes it;
// a process killed between the two leaves an empty file that Badger's
// Open refuses ("while opening fid: N err: Create a new file": its
// openMemTables does not take the z.NewFile its mmap returns for an empty
// file). An empty file holds no writes, so removing it loses nothing.
func removeEmptyMemtables(dir string) error {
	files, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".mem") || !f.Type().IsRegular() {
			continue
		}
		if fi, err := f.Info(); err == nil && fi.Size() == 0 {
			if err := os.Remove(filepath.Join(dir, f.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// shorten cuts Badger errors that quote a whole value down to a line; the
// result unwraps to err.
func shorten(err error) error {
	if len(err.Error()) <= 200 {
		return err
	}
	return shortErr{err}
}

type shortErr struct{ err error }

func (e shortErr) Error() string { return e.err.Error()[:200] + "..." }

func (e shortErr) Unwrap() error { return e.err }

var (
	_ engine.Engine      = (*Engine)(nil)
	_ engine.AsyncWriter = (*Owned)(nil)
	_ engine.Reclaimer   = (*Engine)(nil)
)
