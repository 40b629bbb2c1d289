package kv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBufPoolRefcount(t *testing.T) {
	var p bufPool
	r := p.get(5000)
	require.Len(t, r.b, 5000)
	require.Equal(t, 8192, cap(r.b), "cap")
	r.retain()
	r.release()
	r.check() // still one reference
	require.Zero(t, p.puts.Load(), "returned to the pool while referenced")
	r.release()
	require.EqualValues(t, 1, p.gets.Load(), "gets")
	require.EqualValues(t, 1, p.puts.Load(), "puts")
	mustPanic(t, "check after release", r.check)
	mustPanic(t, "release after release", r.release)
	big := p.get(2 << 20) // beyond the classes: not pooled
	big.release()
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	assert.Panics(t, f, "%s did not panic", what)
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
		require.NoError(t, s.Put([]byte{byte(i)}, []byte("value")))
	}
	require.NoError(t, s.Flush())
	s.mu.RLock()
	g := s.segs[0]
	s.mu.RUnlock()
	src := &segSource{s: s, g: g, all: true, bi: -1}
	src.first()
	require.NotNil(t, src.cur(), "source not on a block: %v", src.err())
	require.NotNil(t, src.rb, "source not on a pooled block: %v", src.err())
	rb, data := src.rb, src.rb.b
	rb.release() // the bug: released while the source still reads it
	if !invariants {
		t.Log("use-after-release checks are on under -tags invariants only")
		src.rb = nil
		src.close()
		return
	}
	require.Equal(t, byte(0xdb), data[0], "released buffer not poisoned")
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
		require.NoError(t, s.Put(k, k))
		m[string(k)] = string(k)
	}
	require.NoError(t, s.Compact())
	for k := range m {
		v, err := s.Get([]byte(k))
		requireGet(t, v, err, m, k)
	}
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	require.Equal(t, m.rangeOf(nil, nil), got, "full scan")
	st := s.Stats()
	require.Zero(t, st.BufsOut, "buffers out")
	require.Zero(t, st.CacheHits, "cache hits")

	require.NoError(t, s.Close())
}
