// Package kvtikv keeps a kv Store in TiKV, the distributed transactional
// key-value store, through its Go client (github.com/tikv/client-go/v2).
// It is a module of its own so that users who stay on Badger never
// download client-go.
//
// A Store on TiKV is kv's Store (memstore, WAL, segments of encoded
// blocks, compaction) with its keys in TiKV instead of Badger: key layout
// 2 under opts.Prefix, as under kv.Wrap (see package kv). TiKV replicates
// them (Raft) and splits them into regions as they grow; the WAL records
// are TiKV keys too, so a write acknowledged by Apply survives the loss of
// the writer's machine.
//
//	s, err := kvtikv.Dial(ctx, []string{"pd0:2379"}, opts) // or Open(store, opts)
//
// # Writes
//
// Every engine write is one TiKV transaction (optimistic, two-phase
// commit). WAL records are group-committed: the records of concurrent
// Apply calls that wait together go into one transaction (up to
// MaxTxnBytes), and each Apply returns once the transaction holding its
// record has committed. A batch larger than MaxTxnBytes is refused with an
// error wrapping engine.ErrTooLarge: kv then writes a segment's blocks in
// several transactions (they need not be atomic; the meta, written last,
// makes them part of the store), and reports a WAL record that large as
// kv.ErrTooLarge (split the batch). One value is at most
// kv.MaxValueSize plus a block's overhead, far below TiKV's raft entry
// limit (8 MiB).
//
// # One writer per prefix: the lease
//
// The registry entry of the prefix (kv's "\xffkvenc/store/"+Prefix) holds,
// after kv's layout byte, the writer's lease:
//
//	layout u8 (=2) | lease version u8 (=1) | epoch u64 | expiry u64 | holder [16]byte
//
// (big-endian; expiry in milliseconds of TiKV's timestamp oracle, PD's
// TSO, the clock every transaction takes its timestamps from). Open takes
// the lease: a prefix whose lease has not expired fails with
// kv.ErrPrefixInUse naming the holder and the expiry; an expired one is
// taken over (epoch+1) and its WAL replayed, so no write its last holder
// acknowledged is lost. The holder renews the lease every Lease/3 in the
// background (a transaction that writes the entry: two writers renewing
// or taking over conflict, and one of them fails).
//
// Fencing: every transaction of the writer reads the registry entry and
// checks the epoch is its own, and commits only with a commit timestamp
// below the expiry it read (client-go's commit-ts upper bound, which also
// turns async commit and one-phase commit off for that transaction). A
// new writer takes over only with a start timestamp at or past that
// expiry, so every transaction of the old writer either committed before
// the new one began (and its replay sees it) or fails. A writer whose
// renewals were held up past its expiry while no one took the prefix over
// renews it at its next transaction and goes on (the renewal and a
// takeover both write the entry: one of them fails). A writer that lost
// its lease fails every write from then on with an error wrapping
// kv.ErrLeaseLost; its Store refuses reads and writes until it is closed.
//
// # Reads
//
// Point reads (kv reads blocks by key) read the latest committed value;
// iterations take a timestamp from the oracle and read at it. A ReadOnly
// Store (opts.ReadOnly) takes no lease and writes nothing: it reads the
// segments the writer has flushed as of its Open or last Refresh, all at
// the timestamp taken then, so a segment the writer compacts away in
// between stays readable (until TiKV's garbage collection passes that
// timestamp: refresh more often than TiKV's gc life time, 10 minutes by
// default).
//
// Tools that read a store without opening it (package kv/inspect; the
// kvenc-tikv command in cmd/kvenc-tikv, kvenc's stats, verify, dump,
// block and advise on TiKV) read through ReadOnlyEngine or
// DialReadOnlyEngine: every prefix, at one timestamp, no lease.
package kvtikv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kvenc/kvenc/kv"
	"github.com/tikv/client-go/v2/tikv"
	"github.com/tikv/client-go/v2/txnkv"
)

// MaxTxnBytes bounds the keys and values of one transaction kvtikv
// commits (TiDB's default transaction limit is 100 MiB; smaller
// transactions hold their locks for less time).
const MaxTxnBytes = 16 << 20

// ErrWriteConflict: a transaction on the Store's own keys met another
// writer's (client-go's write conflict): two writers on one prefix, which
// the lease should have prevented. Nothing of the transaction is written.
var ErrWriteConflict = errors.New("kvtikv: write conflict on the Store's keys")

// Open opens a Store in the TiKV cluster behind store (a
// txnkv.Client's KVStore, or client-go's mock in tests) under
// opts.Prefix (required): the writer's lease (see the package doc), then
// kv.OpenEngine, which replays the WAL. Close of the Store gives the lease
// up and leaves store open. opts.ReadOnly opens a reader (no lease).
func Open(store *tikv.KVStore, opts kv.Options) (*kv.Store, error) {
	s, _, err := open(store, opts, nil)
	return s, err
}

// open is Open, also returning the engine (tests stall its renewals).
func open(store *tikv.KVStore, opts kv.Options, closeStore func() error) (*kv.Store, *Engine, error) {
	if store == nil {
		return nil, nil, fmt.Errorf("%w: kvtikv.Open of a nil store", kv.ErrInvalidOptions)
	}
	if len(opts.Prefix) == 0 {
		return nil, nil, fmt.Errorf("%w: kvtikv.Open needs a non-empty Prefix", kv.ErrInvalidOptions)
	}
	if opts.Lease == 0 {
		opts.Lease = kv.DefaultLease
	}
	if opts.Lease < 100*time.Millisecond {
		return nil, nil, fmt.Errorf("%w: Lease %v below 100ms", kv.ErrInvalidOptions, opts.Lease)
	}
	e := newEngine(store, opts, closeStore)
	if !opts.ReadOnly {
		if err := e.lease.acquire(context.Background()); err != nil {
			e.closeQuietly()
			return nil, nil, err
		}
	} else if err := e.Refresh(); err != nil {
		e.closeQuietly()
		return nil, nil, err
	}
	s, err := kv.OpenEngine(e, opts)
	if err != nil {
		e.closeQuietly()
		return nil, nil, err
	}
	return s, e, nil
}

// Dial connects to the TiKV cluster whose PD servers are pdAddrs and
// opens a Store there (Open); Close of the Store closes the connection.
// When PD does not answer before ctx is done, Dial returns an error
// naming the addresses.
func Dial(ctx context.Context, pdAddrs []string, opts kv.Options) (*kv.Store, error) {
	c, err := connect(ctx, pdAddrs)
	if err != nil {
		return nil, err
	}
	s, _, err := open(c.KVStore, opts, c.Close)
	if err != nil {
		_ = c.Close()
	}
	return s, err
}

// ReadOnlyEngine returns an Engine that reads the cluster behind store
// at the current timestamp (Refresh moves it on) and writes nothing: for
// tools that read stores without being one's writer, as package
// kv/inspect does, or a ReadOnly kv.Store through kv.OpenEngine. It takes
// no lease and reads every prefix. Close leaves store open.
func ReadOnlyEngine(store *tikv.KVStore) (*Engine, error) {
	return readOnlyEngine(store, nil)
}

// DialReadOnlyEngine connects to the TiKV cluster whose PD servers are
// pdAddrs and returns a ReadOnlyEngine on it; Close closes the
// connection. When PD does not answer before ctx is done, it returns an
// error naming the addresses.
func DialReadOnlyEngine(ctx context.Context, pdAddrs []string) (*Engine, error) {
	c, err := connect(ctx, pdAddrs)
	if err != nil {
		return nil, err
	}
	e, err := readOnlyEngine(c.KVStore, c.Close)
	if err != nil {
		_ = c.Close()
	}
	return e, err
}

func readOnlyEngine(store *tikv.KVStore, closeStore func() error) (*Engine, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: kvtikv.ReadOnlyEngine of a nil store", kv.ErrInvalidOptions)
	}
	e := newEngine(store, kv.Options{ReadOnly: true}, closeStore)
	if err := e.Refresh(); err != nil {
		e.closeStore = nil // the caller closes what it gave
		e.closeQuietly()
		return nil, err
	}
	return e, nil
}

// connect connects to the PD servers pdAddrs, giving up when ctx is done.
func connect(ctx context.Context, pdAddrs []string) (*txnkv.Client, error) {
	if len(pdAddrs) == 0 {
		return nil, fmt.Errorf("%w: kvtikv: no PD address", kv.ErrInvalidOptions)
	}
	type dialed struct {
		c   *txnkv.Client
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		c, err := txnkv.NewClient(pdAddrs)
		ch <- dialed{c, err}
	}()
	select {
	case d := <-ch:
		if d.err != nil {
			return nil, fmt.Errorf("kvtikv: connect to PD %s: %w", strings.Join(pdAddrs, ","), d.err)
		}
		return d.c, nil
	case <-ctx.Done():
		go func() { // the client may connect later: close it then
			if d := <-ch; d.err == nil {
				_ = d.c.Close()
			}
		}()
		return nil, fmt.Errorf("kvtikv: connect to PD %s: %w", strings.Join(pdAddrs, ","), ctx.Err())
	}
}
