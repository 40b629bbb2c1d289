// Package enginetest wraps a kv engine (package engine) to fail its calls
// on purpose, as Pebble's errorfs fails the file operations of a vfs.FS:
// a test runs a Store on the wrapper, makes the Nth call from some point
// fail with an error wrapping engine.ErrInjected, and checks what the
// Store does about it (returns the error, loses no acknowledged write,
// reopens clean).
//
// Every call that reaches the engine's store counts: Get, NewIter, Write,
// WriteAsync, DeleteRange, DropPrefixes, and an iterator's First, Seek,
// Next and Value. Err, Close, CollectGarbage and an iterator's Valid, Key,
// Err and Close do not (they fail nothing a store could report).
package enginetest

import (
	"fmt"
	"sync/atomic"

	"github.com/kvenc/kvenc/kv/engine"
)

// Injector counts the calls to an engine and fails the one chosen with
// FailAt. Its methods are safe for concurrent use.
type Injector struct {
	inner    engine.Engine
	calls    atomic.Int64
	failAt   atomic.Int64 // the call number that fails; 0: none
	sticky   atomic.Bool  // every call from failAt on fails
	injected atomic.Int64
}

// New returns an Injector over inner that fails nothing yet.
func New(inner engine.Engine) *Injector { return &Injector{inner: inner} }

// FailAt makes the nth call from now fail (n >= 1); 0 fails none. With
// sticky every later call fails too (the store went away), otherwise only
// that one (a transient fault).
func (i *Injector) FailAt(n int64, sticky bool) {
	i.sticky.Store(sticky)
	if n <= 0 {
		i.failAt.Store(0)
		return
	}
	i.failAt.Store(i.calls.Load() + n)
}

// Calls returns the number of calls counted so far.
func (i *Injector) Calls() int64 { return i.calls.Load() }

// Injected returns the number of calls failed so far.
func (i *Injector) Injected() int64 { return i.injected.Load() }

// fail counts a call of what and returns the error it fails with, or nil.
func (i *Injector) fail(what string) error {
	n := i.calls.Add(1)
	at := i.failAt.Load()
	if at == 0 || n < at || n > at && !i.sticky.Load() {
		return nil
	}
	i.injected.Add(1)
	return fmt.Errorf("%w: call %d (%s)", engine.ErrInjected, n, what)
}

// Engine returns the engine to open a Store on: the inner engine's calls
// through the Injector, with the optional capabilities (engine.AsyncWriter,
// engine.Reclaimer) the inner engine has, and no others.
func (i *Injector) Engine() engine.Engine {
	b := &base{i: i}
	async, isAsync := i.inner.(engine.AsyncWriter)
	rec, isRec := i.inner.(engine.Reclaimer)
	switch {
	case isAsync && isRec:
		return &asyncReclaim{asyncer{b, async}, reclaimer{b, rec}}
	case isAsync:
		return &asyncOnly{b, asyncer{b, async}}
	case isRec:
		return &reclaimOnly{b, reclaimer{b, rec}}
	}
	return b
}

// base is the wrapper of the engine.Engine methods.
type base struct{ i *Injector }

func (b *base) Get(key []byte, v engine.Viewer) error {
	if err := b.i.fail("Get"); err != nil {
		return err
	}
	return b.i.inner.Get(key, v)
}

func (b *base) NewIter(o engine.IterOptions) (engine.Iter, error) {
	if err := b.i.fail("NewIter"); err != nil {
		return nil, err
	}
	it, err := b.i.inner.NewIter(o)
	if err != nil {
		return nil, err
	}
	return &iter{i: b.i, it: it}, nil
}

func (b *base) Write(bt *engine.Batch) error {
	if err := b.i.fail("Write"); err != nil {
		return err
	}
	return b.i.inner.Write(bt)
}

func (b *base) DeleteRange(start, end []byte) error {
	if err := b.i.fail("DeleteRange"); err != nil {
		return err
	}
	return b.i.inner.DeleteRange(start, end)
}

func (b *base) Err() error   { return b.i.inner.Err() }
func (b *base) Close() error { return b.i.inner.Close() }

// asyncer adds WriteAsync. A failed call fails before the batch is
// handed over (nothing written, done not called).
type asyncer struct {
	b     *base
	inner engine.AsyncWriter
}

func (a asyncer) WriteAsync(bt *engine.Batch, done func(error)) error {
	if err := a.b.i.fail("WriteAsync"); err != nil {
		return err
	}
	return a.inner.WriteAsync(bt, done)
}

// reclaimer adds the engine.Reclaimer methods.
type reclaimer struct {
	b     *base
	inner engine.Reclaimer
}

func (r reclaimer) DropPrefixes(prefixes ...[]byte) error {
	if err := r.b.i.fail("DropPrefixes"); err != nil {
		return err
	}
	return r.inner.DropPrefixes(prefixes...)
}

func (r reclaimer) CollectGarbage(files int, ratio float64) { r.inner.CollectGarbage(files, ratio) }
func (r reclaimer) Shared() bool                            { return r.inner.Shared() }

type asyncOnly struct {
	*base
	asyncer
}

type reclaimOnly struct {
	*base
	reclaimer
}

type asyncReclaim struct {
	asyncer
	reclaimer
}

func (e *asyncReclaim) Get(key []byte, v engine.Viewer) error { return e.asyncer.b.Get(key, v) }
func (e *asyncReclaim) NewIter(o engine.IterOptions) (engine.Iter, error) {
	return e.asyncer.b.NewIter(o)
}
func (e *asyncReclaim) Write(bt *engine.Batch) error { return e.asyncer.b.Write(bt) }
func (e *asyncReclaim) DeleteRange(start, end []byte) error {
	return e.asyncer.b.DeleteRange(start, end)
}
func (e *asyncReclaim) Err() error   { return e.asyncer.b.Err() }
func (e *asyncReclaim) Close() error { return e.asyncer.b.Close() }

// iter fails its moves and value reads as the Injector says; a failed
// move leaves it invalid with the error in Err.
type iter struct {
	i   *Injector
	it  engine.Iter
	err error
}

func (t *iter) move(what string, f func() bool) bool {
	if t.err != nil {
		return false
	}
	if err := t.i.fail(what); err != nil {
		t.err = err
		return false
	}
	return f()
}

func (t *iter) First() bool { return t.move("Iter.First", t.it.First) }
func (t *iter) Seek(key []byte) bool {
	return t.move("Iter.Seek", func() bool { return t.it.Seek(key) })
}
func (t *iter) Next() bool   { return t.move("Iter.Next", t.it.Next) }
func (t *iter) Valid() bool  { return t.err == nil && t.it.Valid() }
func (t *iter) Key() []byte  { return t.it.Key() }
func (t *iter) Close() error { return t.it.Close() }
func (t *iter) Value(v engine.Viewer) error {
	if err := t.i.fail("Iter.Value"); err != nil {
		return err
	}
	return t.it.Value(v)
}

func (t *iter) Err() error {
	if t.err != nil {
		return t.err
	}
	return t.it.Err()
}

var (
	_ engine.Engine      = (*base)(nil)
	_ engine.AsyncWriter = (*asyncOnly)(nil)
	_ engine.Reclaimer   = (*reclaimOnly)(nil)
	_ engine.AsyncWriter = (*asyncReclaim)(nil)
	_ engine.Reclaimer   = (*asyncReclaim)(nil)
	_ engine.Engine      = (*asyncReclaim)(nil)
)
