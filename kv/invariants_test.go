package kv

import (
	"testing"
)

func TestBufPoolRefcount(t *testing.T) {
	var p bufPool
	r := p.get(5000)
	if len(r.b) != 5000 || cap(r.b) != 8192 {
		t.Fatalf("len %d cap %d", len(r.b), cap(r.b))
	}
	r.retain()
	r.release()
	r.check() // still one reference
	if p.puts.Load() != 0 {
		t.Fatal("returned to the pool while referenced")
	}
	r.release()
	if p.gets.Load() != 1 || p.puts.Load() != 1 {
		t.Fatalf("gets %d puts %d", p.gets.Load(), p.puts.Load())
	}
	mustPanic(t, "check after release", r.check)
	mustPanic(t, "release after release", r.release)
	big := p.get(2 << 20) // beyond the classes: not pooled
	big.release()
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// Under -tags invariants a released buffer is poisoned, and a source that
// reads a cell through a buffer released too early (a refcount bug) panics
// instead of returning poisoned bytes.
func TestUseAfterReleaseFailsLoudly(t *testing.T) {
	o := testOptions("")
	o.CacheSize = -1
	s := mustOpen(t, o)
	defer s.Close()
	for i := 0; i < 200; i++ {
		if err := s.Put([]byte{byte(i)}, []byte("value")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	s.mu.RLock()
	g := s.segs[0]
	s.mu.RUnlock()
	src := &segSource{s: s, g: g, all: true, bi: -1}
	src.first()
	if src.cur() == nil || src.rb == nil {
		t.Fatalf("source not on a pooled block: %v", src.err())
	}
	rb, data := src.rb, src.rb.b
	rb.release() // the bug: released while the source still reads it
	if !invariants {
		t.Log("use-after-release checks are on under -tags invariants only")
		src.rb = nil
		src.close()
		return
	}
	if data[0] != 0xdb {
		t.Fatalf("released buffer not poisoned: %x", data[0])
	}
	mustPanic(t, "a cell read through a released buffer", src.next)
}

// With no cache every Get and scan reads through pooled buffers; they all
// come back.
func TestPooledBuffersComeBack(t *testing.T) {
	o := testOptions("")
	o.CacheSize = -1
	s := mustOpen(t, o)
	m := model{}
	for i := 0; i < 3000; i++ {
		k := []byte{byte(i / 256), byte(i)}
		if err := s.Put(k, k); err != nil {
			t.Fatal(err)
		}
		m[string(k)] = string(k)
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		v, err := s.Get([]byte(k))
		if err := checkGet(v, err, m, k); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scan(s.NewIterator(IterOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := diffPairs(got, m.rangeOf(nil, nil)); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.BufsOut != 0 || st.CacheHits != 0 {
		t.Fatalf("%d buffers out, %d cache hits", st.BufsOut, st.CacheHits)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
