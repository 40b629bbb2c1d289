package kv

import (
	"testing"

	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	src := s.rd.NewVersions(g)
	src.First()
	require.NotNil(t, src.Cur(), "source not on a block: %v", src.Err())
	rb := src.Buffer()
	require.NotNil(t, rb, "source not on a pooled block: %v", src.Err())
	if !cache.Invariants {
		t.Log("use-after-release checks are on under -tags invariants only")
		src.Close()
		return
	}
	data := rb.B
	rb.Release() // the bug: released while the source still reads it
	require.Equal(t, byte(0xdb), data[0], "released buffer not poisoned")
	mustPanic(t, "a cell read through a released buffer", src.Next)
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
