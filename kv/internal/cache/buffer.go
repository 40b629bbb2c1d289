package cache

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// RefBuf is a pooled, reference-counted buffer holding one block read from
// Badger on a cache miss. The reader that read it holds one reference; the
// buffer returns to its pool when the last reference is released. Blocks in
// the block cache never live in a RefBuf: they are plain immutable slices
// freed by the garbage collector, so the hot path counts nothing.
type RefBuf struct {
	B    []byte
	refs atomic.Int32
	pool *Pool
}

// Retain adds a reference. It panics on a released buffer (a bug, not bad
// input).
func (r *RefBuf) Retain() {
	if r.refs.Add(1) <= 1 {
		panic("kv: retain of a released block buffer")
	}
}

// Release drops a reference and returns the buffer to its pool when it was
// the last one. Under -tags invariants the bytes are poisoned first, so a
// reader that kept a slice sees garbage and its checks fail loudly.
func (r *RefBuf) Release() {
	n := r.refs.Add(-1)
	switch {
	case n < 0:
		panic("kv: release of a released block buffer")
	case n == 0:
		if Invariants {
			for i := range r.B {
				r.B[i] = 0xdb
			}
		}
		r.pool.put(r)
	}
}

// Check is the per-access liveness check: HBase's checkRefCnt. The read
// path calls it per cell only under -tags invariants, or when a Store is
// built with refcountHot (the benchmark of what the check costs).
func (r *RefBuf) Check() {
	if r.refs.Load() <= 0 {
		panic(fmt.Sprintf("kv: use of a released block buffer (refs %d)", r.refs.Load()))
	}
}

// NewRef returns a RefBuf of no bytes and no pool holding one reference:
// the per-block reference of refcountHot (see Block.Ref).
func NewRef() *RefBuf {
	r := &RefBuf{}
	r.refs.Store(1)
	return r
}

// Out returns the number of buffers handed out and not yet returned.
func (p *Pool) Out() int64 { return p.gets.Load() - p.puts.Load() }

// Pool hands out refBufs in power-of-two size classes from 4 KiB to
// 1 MiB (larger buffers are allocated and dropped).
type Pool struct {
	classes [9]sync.Pool
	gets    atomic.Int64 // buffers handed out
	puts    atomic.Int64 // buffers returned
}

const minBufClass = 12 // 4 KiB

func bufClass(n int) int {
	c := 0
	for size := 1 << minBufClass; size < n; size <<= 1 {
		c++
	}
	return c
}

// Get returns a buffer of length n holding one reference.
func (p *Pool) Get(n int) *RefBuf {
	p.gets.Add(1)
	c := bufClass(n)
	var r *RefBuf
	if c < len(p.classes) {
		if v := p.classes[c].Get(); v != nil {
			r = v.(*RefBuf)
		} else {
			r = &RefBuf{B: make([]byte, 1<<(minBufClass+c)), pool: p}
		}
	} else {
		r = &RefBuf{B: make([]byte, n), pool: p}
	}
	r.B = r.B[:n]
	r.refs.Store(1)
	return r
}

func (p *Pool) put(r *RefBuf) {
	p.puts.Add(1)
	c := bufClass(cap(r.B))
	if c < len(p.classes) && cap(r.B) == 1<<(minBufClass+c) {
		r.B = r.B[:cap(r.B)]
		p.classes[c].Put(r)
	}
}
