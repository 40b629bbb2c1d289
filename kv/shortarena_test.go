package kv

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shortArena: a 32nd of the room, at least 8 MiB; no limit without
// figures.
func TestShortArena(t *testing.T) {
	assert.Equal(t, int64(math.MaxInt64), shortArena(math.MaxInt64))
	assert.Equal(t, int64(8<<20), shortArena(0))
	assert.Equal(t, int64(8<<20), shortArena(-1))
	assert.Equal(t, int64(8<<20), shortArena(200<<20))
	assert.Equal(t, int64(16<<20), shortArena(512<<20))
	assert.Equal(t, int64(64<<20), shortArena(2<<30))
}

// On a filesystem short of space a new memstore gets a smaller arena: a
// batch that fits MemstoreSize but not that arena is refused with
// ErrTooLarge, and fits again once a memstore starts with room.
func TestMemstoreShortOfSpace(t *testing.T) {
	s, _, free := openFakeSpace(t, 64<<20, 200<<30, 100<<30)

	// capacity is the arena less the list's own bytes.
	newActive := func() int64 {
		require.NoError(t, s.Put([]byte("k"), []byte("v")))
		require.NoError(t, s.Flush())
		return s.active.capacity
	}
	assert.InDelta(t, 64<<20, newActive(), 1<<10, "room for 32 arenas and more: MemstoreSize")
	free.Store(8<<20 + 512<<20)
	assert.InDelta(t, 16<<20, newActive(), 1<<10, "a 32nd of the room")
	free.Store(8<<20 + 64<<20)
	assert.InDelta(t, 8<<20, newActive(), 1<<10, "at least 8 MiB")

	// 12 MiB in one batch of 48 values of 256 KiB.
	b := s.NewBatch()
	val := make([]byte, MaxValueSize)
	for i := range 48 {
		b.Put([]byte{'b', byte(i)}, val)
	}
	err := s.Apply(b)
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "memstore")
	free.Store(100 << 30)
	assert.InDelta(t, 64<<20, newActive(), 1<<10)
	require.NoError(t, s.Apply(b))
	v, err := s.Get([]byte{'b', 47})
	require.NoError(t, err)
	assert.Len(t, v, MaxValueSize)
	require.NoError(t, s.Close())
}
