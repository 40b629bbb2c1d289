package kvtikv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/kvenc/kvenc/kv"
	"github.com/kvenc/kvenc/kv/engine"
	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/txnkv/transaction"
)

// The registry entry (see the package doc): kv's layout byte, then the
// lease.
const (
	layoutVersion = 2 // kv's key layout, the entry's first byte
	leaseVersion  = 1
	leaseLen      = 2 + 8 + 8 + 16
)

// registryPrefix is kv's (package kv, key layout 2).
var registryPrefix = []byte("\xffkvenc/store/")

// leaseRec is a decoded lease.
type leaseRec struct {
	epoch  uint64
	expiry int64 // ms of the oracle's physical time
	holder [16]byte
}

func (r leaseRec) encode() []byte {
	b := make([]byte, leaseLen)
	b[0], b[1] = layoutVersion, leaseVersion
	binary.BigEndian.PutUint64(b[2:], r.epoch)
	binary.BigEndian.PutUint64(b[10:], uint64(r.expiry))
	copy(b[18:], r.holder[:])
	return b
}

// decodeLease decodes a registry entry. An entry of kv's layout byte alone
// (a Store that kvtikv never opened for writing) is epoch 0, expired.
func decodeLease(v []byte) (leaseRec, error) {
	var r leaseRec
	if len(v) == 1 && v[0] == layoutVersion {
		return r, nil
	}
	if len(v) != leaseLen || v[0] != layoutVersion || v[1] != leaseVersion {
		return r, fmt.Errorf("%w: registry entry %x is not a kvtikv lease (layout %d, lease version %d, %d bytes)", kv.ErrFormat, v, layoutVersion, leaseVersion, leaseLen)
	}
	r.epoch = binary.BigEndian.Uint64(v[2:])
	r.expiry = int64(binary.BigEndian.Uint64(v[10:]))
	copy(r.holder[:], v[18:])
	return r, nil
}

func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05.000") }

// lease is a writer's claim on its prefix.
type lease struct {
	e      *Engine
	key    []byte
	prefix []byte
	dur    time.Duration
	holder [16]byte

	mu     sync.Mutex
	epoch  uint64 // 0: not held
	expiry int64  // of the last renewal that committed
	lost   error
	// stop ends the renewals; done is closed when they have ended.
	stop, done chan struct{}
	// pause (tests) holds renewals back while true.
	pause bool
}

func newLease(e *Engine, prefix []byte, dur time.Duration) *lease {
	l := &lease{e: e, key: append(bytes.Clone(registryPrefix), prefix...), prefix: prefix, dur: dur}
	_, _ = rand.Read(l.holder[:])
	return l
}

// lostErr returns the error of a lost lease, nil while it is held.
func (l *lease) lostErr() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost != nil {
		return fmt.Errorf("%w: writer %s of Prefix %q: %v", kv.ErrLeaseLost, hex.EncodeToString(l.holder[:4]), l.prefix, l.lost)
	}
	return nil
}

// lose marks the lease lost (the first reason stays) and stops renewing.
func (l *lease) lose(why error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lost == nil {
		l.lost = why
	}
}

// renewedPast reports whether the lease is held with an expiry past
// expiry (a renewal committed since).
func (l *lease) renewedPast(expiry int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost == nil && l.expiry > expiry
}

// creates reports whether b is kv's registration of a new prefix: the
// registry entry set to the layout byte alone.
func (l *lease) creates(b *engine.Batch) bool {
	ops := b.Ops()
	return len(ops) == 1 && !ops[0].Delete && bytes.Equal(ops[0].Key, l.key) && bytes.Equal(ops[0].Value, []byte{layoutVersion})
}

// now returns the physical time of txn's start timestamp.
func physical(txn *transaction.KVTxn) int64 { return oracle.ExtractPhysical(txn.StartTS()) }

// acquire takes the lease of an existing prefix: when the entry is
// absent, kv registers the prefix through Write, and create takes it.
func (l *lease) acquire(ctx context.Context) error {
	txn, err := l.e.store.Begin()
	if err != nil {
		return fmt.Errorf("kvtikv: begin: %w", err)
	}
	defer func() { _ = txn.Rollback() }()
	got, err := txn.Get(ctx, l.key)
	if tikverr.IsErrNotFound(err) {
		return nil // new: create takes it when kv registers the prefix
	}
	if err != nil {
		return fmt.Errorf("kvtikv: read registry entry of Prefix %q: %w", l.prefix, err)
	}
	cur, err := decodeLease(got.Value)
	if err != nil {
		return err
	}
	now := physical(txn)
	if cur.epoch != 0 && now < cur.expiry {
		return fmt.Errorf("%w: Prefix %q is held by writer %s (epoch %d) until %s UTC at least (Lease %v)",
			kv.ErrPrefixInUse, l.prefix, hex.EncodeToString(cur.holder[:4]), cur.epoch, msTime(cur.expiry), l.dur)
	}
	return l.take(ctx, txn, cur.epoch+1, now)
}

// create registers a new prefix with the lease, epoch 1: the entry must
// still be absent.
func (l *lease) create(ctx context.Context) error {
	txn, err := l.e.store.Begin()
	if err != nil {
		return fmt.Errorf("kvtikv: begin: %w", err)
	}
	defer func() { _ = txn.Rollback() }()
	_, err = txn.Get(ctx, l.key)
	if err == nil {
		return fmt.Errorf("%w: Prefix %q was registered by another writer meanwhile", kv.ErrPrefixInUse, l.prefix)
	}
	if !tikverr.IsErrNotFound(err) {
		return fmt.Errorf("kvtikv: read registry entry of Prefix %q: %w", l.prefix, err)
	}
	return l.take(ctx, txn, 1, physical(txn))
}

// take writes the lease of epoch in txn and starts renewing it.
func (l *lease) take(ctx context.Context, txn *transaction.KVTxn, epoch uint64, now int64) error {
	rec := leaseRec{epoch: epoch, expiry: now + l.dur.Milliseconds(), holder: l.holder}
	if err := txn.Set(l.key, rec.encode()); err != nil {
		return fmt.Errorf("kvtikv: %w", err)
	}
	if err := txn.Commit(ctx); err != nil {
		if tikverr.IsErrWriteConflict(err) {
			return fmt.Errorf("%w: Prefix %q: another writer took it at the same time: %v", kv.ErrPrefixInUse, l.prefix, err)
		}
		return fmt.Errorf("kvtikv: take the lease of Prefix %q: %w", l.prefix, err)
	}
	l.mu.Lock()
	l.epoch, l.expiry = epoch, rec.expiry
	stop, done := make(chan struct{}), make(chan struct{})
	l.stop, l.done = stop, done
	l.mu.Unlock()
	go l.renewLoop(stop, done)
	return nil
}

// errExpired: the lease is still this writer's (no one took it over) but
// its expiry has passed; renew revives it.
var errExpired = errors.New("kvtikv: lease expired")

// fence reads the registry entry in txn and returns the expiry its
// commit must stay below; an error wrapping kv.ErrLeaseLost when the
// epoch is no longer this writer's, errExpired when it is but has
// expired.
func (l *lease) fence(txn *transaction.KVTxn) (int64, error) {
	if err := l.lostErr(); err != nil {
		return 0, err
	}
	l.mu.Lock()
	epoch := l.epoch
	l.mu.Unlock()
	if epoch == 0 {
		return 0, fmt.Errorf("%w: Prefix %q: kvtikv writes only under a lease (the registry entry comes first)", kv.ErrLeaseLost, l.prefix)
	}
	got, err := txn.Get(ctx(), l.key)
	if err != nil && !tikverr.IsErrNotFound(err) {
		return 0, fmt.Errorf("kvtikv: read registry entry of Prefix %q: %w", l.prefix, err)
	}
	var cur leaseRec
	if err == nil {
		if cur, err = decodeLease(got.Value); err != nil {
			return 0, err
		}
	}
	if cur.epoch != epoch || cur.holder != l.holder {
		l.lose(fmt.Errorf("the registry entry says epoch %d held by %s, this writer's was epoch %d", cur.epoch, hex.EncodeToString(cur.holder[:4]), epoch))
		return 0, l.lostErr()
	}
	if physical(txn) >= cur.expiry {
		return cur.expiry, errExpired
	}
	return cur.expiry, nil
}

// renewLoop renews the lease every third of its duration until stopped
// or lost.
func (l *lease) renewLoop(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(l.dur / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		paused := l.pause
		l.mu.Unlock()
		if paused {
			continue
		}
		if err := l.renew(ctx()); err != nil && l.lostErr() != nil {
			return
		}
	}
}

// renew extends the lease in a fenced transaction that writes the entry.
// A failure that leaves the lease held is retried at the next tick.
//
// A lease past its expiry that no one has taken over (the renewals were
// held up: a stalled process, a slow cluster) is revived the same way:
// a writer taking it over writes the entry too, so of the two
// transactions one fails on the write conflict, and a takeover that
// committed first shows in the entry read.
func (l *lease) renew(ctx context.Context) error {
	txn, err := l.e.store.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = txn.Rollback() }()
	expiry, err := l.fence(txn)
	revive := errors.Is(err, errExpired)
	if err != nil && !revive {
		return err
	}
	l.mu.Lock()
	rec := leaseRec{epoch: l.epoch, expiry: physical(txn) + l.dur.Milliseconds(), holder: l.holder}
	l.mu.Unlock()
	if err := txn.Set(l.key, rec.encode()); err != nil {
		return err
	}
	if !revive {
		txn.SetCommitTSUpperBoundCheck(func(c uint64) bool { return oracle.ExtractPhysical(c) < expiry })
	}
	if err := txn.Commit(ctx); err != nil {
		if tikverr.IsErrWriteConflict(err) {
			l.lose(fmt.Errorf("another writer wrote the registry entry: %v", err))
		}
		return err
	}
	l.mu.Lock()
	l.expiry = max(l.expiry, rec.expiry)
	l.mu.Unlock()
	return nil
}

// release stops the renewals and, while the lease is held, ends it now
// (expiry 0) so that the next writer need not wait for it to lapse.
func (l *lease) release(ctx context.Context) error {
	l.mu.Lock()
	stop, done := l.stop, l.done
	l.stop = nil
	l.mu.Unlock()
	if stop == nil {
		return nil
	}
	close(stop)
	<-done
	if l.lostErr() != nil {
		return nil
	}
	txn, err := l.e.store.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = txn.Rollback() }()
	if _, err := l.fence(txn); err != nil && !errors.Is(err, errExpired) {
		return nil // lost meanwhile: nothing to give up
	}
	rec := leaseRec{epoch: l.epoch, expiry: 0, holder: l.holder}
	if err := txn.Set(l.key, rec.encode()); err != nil {
		return err
	}
	if err := txn.Commit(ctx); err != nil && !tikverr.IsErrWriteConflict(err) {
		return fmt.Errorf("kvtikv: give up the lease of Prefix %q: %w", l.prefix, err)
	}
	return nil
}

// setPause holds renewals back (tests: a stalled writer).
func (l *lease) setPause(p bool) {
	l.mu.Lock()
	l.pause = p
	l.mu.Unlock()
}
