package memstore

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func put(key, value string, seq uint64) blockenc.Cell {
	return blockenc.Cell{Key: []byte(key), Value: []byte(value), Seq: seq, Kind: blockenc.KindPut}
}

func mustAdd(t *testing.T, m *Memstore, cells ...blockenc.Cell) {
	t.Helper()
	for _, c := range cells {
		require.NoError(t, m.Add(c), "Add(%q@%d)", c.Key, c.Seq)
	}
}

func TestGetVersions(t *testing.T) {
	m := New(1 << 16)
	mustAdd(t, m, put("b", "b5", 5), put("a", "a3", 3), put("b", "b9", 9),
		blockenc.Cell{Key: []byte("b"), Seq: 7, Kind: blockenc.KindDelete}, put("", "empty key", 4))
	tests := []struct {
		key    string
		rp     uint64
		want   string // "" = not found, "-" = tombstone, else value
		wantSq uint64
	}{
		{"a", 2, "", 0}, {"a", 3, "a3", 3}, {"a", math.MaxUint64, "a3", 3},
		{"b", 4, "", 0}, {"b", 5, "b5", 5}, {"b", 6, "b5", 5}, {"b", 7, "-", 7},
		{"b", 8, "-", 7}, {"b", 9, "b9", 9}, {"b", 100, "b9", 9},
		{"", 4, "empty key", 4}, {"", 3, "", 0}, {"c", 100, "", 0}, {"aa", 100, "", 0},
	}
	for _, tt := range tests {
		c, ok := m.Get([]byte(tt.key), tt.rp)
		if tt.want == "" {
			assert.False(t, ok, "Get(%q, %d) = %+v, want not found", tt.key, tt.rp, view(c))
			continue
		}
		if !assert.True(t, ok, "Get(%q, %d) not found", tt.key, tt.rp) {
			continue
		}
		want := cellView{Key: tt.key, Seq: tt.wantSq, Kind: blockenc.KindPut, Value: tt.want}
		if tt.want == "-" {
			want.Kind, want.Value = blockenc.KindDelete, ""
		}
		assert.Equal(t, want, view(c), "Get(%q, %d)", tt.key, tt.rp)
	}
	assert.Equal(t, 5, m.Len())
	assert.Greater(t, m.Size(), headBytes, "Size")
	assert.LessOrEqual(t, m.Size(), m.Capacity(), "Size")
}

func TestIteratorModes(t *testing.T) {
	m := New(1 << 16)
	mustAdd(t, m, put("a", "a1", 1), put("a", "a4", 4), put("b", "b2", 2),
		blockenc.Cell{Key: []byte("b"), Seq: 3, Kind: blockenc.KindDelete}, put("c", "c6", 6), put("d", "d1", 1))
	show := func(cells []blockenc.Cell) string {
		var s []string
		for _, c := range cells {
			if c.Kind == blockenc.KindDelete {
				s = append(s, string(c.Key)+"-")
			} else {
				s = append(s, string(c.Value))
			}
		}
		return strings.Join(s, " ")
	}
	tests := []struct {
		rp   uint64
		all  bool
		from string
		want string
	}{
		{3, false, "", "a1 b- d1"},
		{3, true, "", "a1 b- b2 d1"},
		{math.MaxUint64, true, "", "a4 a1 b- b2 c6 d1"},
		{math.MaxUint64, false, "", "a4 b- c6 d1"},
		{5, false, "b", "b- d1"},
		{5, false, "bb", "d1"},
		{0, true, "", ""},
		{9, false, "e", ""},
	}
	for _, tt := range tests {
		var from []byte
		if tt.from != "" {
			from = []byte(tt.from)
		}
		assert.Equal(t, tt.want, show(collect(m.NewIterator(tt.rp, tt.all), from)),
			"rp=%d all=%v from=%q", tt.rp, tt.all, tt.from)
		if from == nil {
			back := collectBack(m.NewIterator(tt.rp, tt.all), nil)
			slices.Reverse(back)
			assert.Equal(t, tt.want, show(back), "backward rp=%d all=%v", tt.rp, tt.all)
		}
	}
	it := m.NewIterator(9, false)
	assert.False(t, it.Valid(), "a new iterator is valid before First")
	it.First()
	for it.Valid() {
		it.Next()
	}
	it.Next() // no-op at the end
	assert.False(t, it.Valid(), "exhausted iterator is valid")
	assert.Nil(t, it.Cell().Key, "exhausted iterator's cell key")
}

// TestSameKeyAndSeq pins what a second Add of an equal key and seq does: the
// last one wins, Len counts both Adds, and a cell read before keeps its bytes.
func TestSameKeyAndSeq(t *testing.T) {
	m := New(1 << 16)
	mustAdd(t, m, put("k", "first", 5))
	old, _ := m.Get([]byte("k"), 5)
	mustAdd(t, m, blockenc.Cell{Key: []byte("k"), Value: []byte("second"), Seq: 5, Kind: blockenc.KindDelete})
	c, ok := m.Get([]byte("k"), 5)
	require.True(t, ok, "Get after the second Add")
	require.Equal(t, cellView{Key: "k", Seq: 5, Kind: blockenc.KindDelete, Value: "second"}, view(c), "after the second Add")
	require.Equal(t, 2, m.Len(), "Len counts Adds")
	require.Equal(t, cellView{Key: "k", Seq: 5, Kind: blockenc.KindPut, Value: "first"}, view(old),
		"cell read before the overwrite changed")
	require.Equal(t, views([]blockenc.Cell{c}), views(collect(m.NewIterator(math.MaxUint64, true), nil)), "all versions")
}

// TestReturnedSlicesAreSafe checks that Add copies its input and that a
// caller appending to returned slices cannot write into the arena.
func TestReturnedSlicesAreSafe(t *testing.T) {
	m := New(1 << 16)
	key, val := []byte("key1"), []byte("val1")
	mustAdd(t, m, blockenc.Cell{Key: key, Value: val, Seq: 1, Kind: blockenc.KindPut}, put("key2", "val2", 1))
	key[0], val[0] = 'X', 'X'
	c, ok := m.Get([]byte("key1"), 1)
	require.True(t, ok, "Get(key1)")
	require.Equal(t, cellView{Key: "key1", Seq: 1, Kind: blockenc.KindPut, Value: "val1"}, view(c), "Add did not copy")
	_ = append(c.Key, "ZZZZZZZZZZZZZZZZ"...)
	_ = append(c.Value, "ZZZZZZZZZZZZZZZZ"...)
	want := []blockenc.Cell{put("key1", "val1", 1), put("key2", "val2", 1)}
	require.Equal(t, views(want), views(collect(m.NewIterator(1, false), nil)), "after appends")
}

func TestAddErrors(t *testing.T) {
	m := New(1 << 16)
	err := m.Add(blockenc.Cell{Key: make([]byte, MaxKeyLen+1), Kind: blockenc.KindPut})
	assert.ErrorIs(t, err, ErrKeyTooLong, "long key")
	assert.ErrorIs(t, m.Add(blockenc.Cell{Key: []byte("k"), Kind: 7}), ErrInvalidKind, "kind 7")
	assert.Zero(t, m.Len(), "Len after rejected adds")
	big := New(1 << 18)
	mustAdd(t, big, blockenc.Cell{Key: make([]byte, MaxKeyLen), Seq: 3, Kind: blockenc.KindPut})
	c, ok := big.Get(make([]byte, MaxKeyLen), 3)
	assert.True(t, ok, "longest key not found")
	assert.Equal(t, MaxKeyLen, len(c.Key), "longest key's length")
	assert.Equal(t, uint64(3), c.Seq, "longest key's seq")
	_, ok = big.Get(make([]byte, MaxKeyLen+1), 3)
	assert.False(t, ok, "found a key longer than MaxKeyLen")
}

// TestErrFullTinyArena fills a 1 KiB arena until ErrFull: no crash, Size
// stays within Capacity, every accepted cell is readable, and a single cell
// larger than the arena is refused with ErrFull and ErrCellTooLarge.
func TestErrFullTinyArena(t *testing.T) {
	m := New(1 << 10)
	var added []blockenc.Cell
	for i := 0; ; i++ {
		c := put(string(rune('a'+i%26))+strings.Repeat("k", i%5), "value", uint64(i))
		err := m.Add(c)
		if errors.Is(err, ErrFull) {
			require.NotErrorIs(t, err, ErrCellTooLarge, "a small cell is not too large")
			break
		}
		require.NoError(t, err)
		added = append(added, c)
	}
	require.GreaterOrEqual(t, len(added), 3, "cells that fit in 1 KiB")
	require.Equal(t, int64(1<<10), m.Capacity())
	require.LessOrEqual(t, m.Size(), m.Capacity(), "Size")
	require.Equal(t, len(added), m.Len(), "Len against the cells added")
	for _, c := range added {
		got, ok := m.Get(c.Key, c.Seq)
		require.True(t, ok, "Get(%q, %d) not found", c.Key, c.Seq)
		require.Equal(t, view(c), view(got), "Get(%q, %d)", c.Key, c.Seq)
	}
	// Still full for the same cell, still fine for reads.
	require.ErrorIs(t, m.Add(put("zz", "value", 1)), ErrFull, "Add after ErrFull")

	for _, size := range []int64{-1, 0, 1, 1 << 10} {
		huge := blockenc.Cell{Key: []byte("huge"), Value: make([]byte, 1<<10), Kind: blockenc.KindPut}
		err := New(size).Add(huge)
		assert.ErrorIs(t, err, ErrFull, "New(%d).Add(huge)", size)
		assert.ErrorIs(t, err, ErrCellTooLarge, "New(%d).Add(huge)", size)
	}
	assert.Equal(t, headBytes, New(-5).Capacity(), "New(-5).Capacity()")
}

// TestCellArenaBound checks the bound Add reserves against what the list
// really allocates, one Add at a time, over enough cells that node heights
// vary. A bound that is too low here would let a reserved Add overflow
// the arena.
func TestCellArenaBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := New(8 << 20)
	slack := int64(0)
	for i := 0; i < 20000; i++ {
		c := blockenc.Cell{Key: make([]byte, rng.IntN(40)), Value: make([]byte, rng.IntN(300)),
			Seq: uint64(i), Kind: blockenc.KindPut}
		for j := range c.Key {
			c.Key[j] = byte(rng.IntN(256))
		}
		before := m.Size()
		mustAdd(t, m, c)
		used, bound := m.Size()-before, CellArenaBound(c)
		require.LessOrEqual(t, used, bound, "arena bytes cell %d took, against its bound", i)
		slack = max(slack, bound-used)
	}
	// A node of height 1 leaves (maxHeight-1)*4 tower bytes and at most 7
	// bytes of padding unused; the bound is not looser than that.
	assert.LessOrEqual(t, slack, int64(4*(maxHeight-1)+7), "largest slack, against a node of height 1")
}

// TestErrFullConcurrent lets several writers race for a small arena: every
// Add either succeeds or returns ErrFull, the arena never overflows, and
// every accepted cell is there afterwards.
func TestErrFullConcurrent(t *testing.T) {
	for round := 0; round < 20; round++ {
		const writers = 4
		m := raceForArena(t, 8<<10, writers, round, func(m *Memstore, rng *rand.Rand, w, i int) ([]blockenc.Cell, bool) {
			c := blockenc.Cell{Key: []byte{byte(w), byte(i >> 8), byte(i)}, Value: make([]byte, rng.IntN(64)),
				Seq: uint64(i), Kind: blockenc.KindPut}
			err := m.Add(c)
			if errors.Is(err, ErrFull) || !assert.NoError(t, err) {
				return nil, false
			}
			return []blockenc.Cell{c}, true
		})
		largest := CellArenaBound(blockenc.Cell{Key: make([]byte, 3), Value: make([]byte, 64)})
		assert.LessOrEqual(t, m.Capacity()-m.Size(), int64(writers)*largest, "bytes free at ErrFull")
	}
}

// raceForArena runs writers goroutines on a fresh memstore of arena bytes,
// goroutine w calling step(m, rng, w, i) for i = 0, 1, ... until it
// returns false, and checks that the memstore holds exactly the cells the
// steps accepted. It returns the memstore.
func raceForArena(t *testing.T, arena int64, writers, round int,
	step func(m *Memstore, rng *rand.Rand, w, i int) ([]blockenc.Cell, bool)) *Memstore {
	t.Helper()
	m := New(arena)
	var wg sync.WaitGroup
	accepted := make([][]blockenc.Cell, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
			for i := 0; ; i++ {
				cells, ok := step(m, rng, w, i)
				if !ok {
					return
				}
				accepted[w] = append(accepted[w], cells...)
			}
		}(w)
	}
	wg.Wait()
	require.LessOrEqual(t, m.Size(), m.Capacity(), "Size")
	n := 0
	for _, cells := range accepted {
		n += len(cells)
		for _, c := range cells {
			got, ok := m.Get(c.Key, c.Seq)
			require.True(t, ok, "lost %q@%d", c.Key, c.Seq)
			require.Equal(t, view(c), view(got), "Get(%q, %d)", c.Key, c.Seq)
		}
	}
	require.Equal(t, n, m.Len(), "Len against the cells accepted")
	return m
}

func TestEmpty(t *testing.T) {
	m := New(0)
	_, ok := m.Get(nil, math.MaxUint64)
	assert.False(t, ok, "Get on an empty memstore found something")
	assert.Empty(t, views(collect(m.NewIterator(math.MaxUint64, true), nil)), "iterating an empty memstore")
	assert.Empty(t, views(collectBack(m.NewIterator(math.MaxUint64, true), nil)), "iterating an empty memstore backward")
	assert.Zero(t, m.Len(), "Len")
	assert.Equal(t, headBytes, m.Size(), "Size")
}

// TestReserveBatchesConcurrent: writers race for a small arena with
// batches: each reserves its batch's bounds at once, and once admitted
// adds every cell of it with AddReserved, which never fails for room; the
// arena never overflows, and every admitted cell is there afterwards.
// (Checking the arena again per cell, as Add does, refused cells of
// admitted batches near the end of the arena: reservations in flight are
// counted high for a moment.)
func TestReserveBatchesConcurrent(t *testing.T) {
	for round := 0; round < 20; round++ {
		m := raceForArena(t, 16<<10, 8, round, func(m *Memstore, rng *rand.Rand, w, b int) ([]blockenc.Cell, bool) {
			batch := make([]blockenc.Cell, 1+rng.IntN(4))
			var need int64
			for i := range batch {
				batch[i] = blockenc.Cell{Key: []byte{byte(w), byte(b >> 8), byte(b), byte(i)},
					Value: make([]byte, rng.IntN(64)), Seq: uint64(b + 1), Kind: blockenc.KindPut}
				need += CellArenaBound(batch[i])
			}
			if !m.Reserve(need) {
				return nil, false
			}
			for _, c := range batch {
				if !assert.NoError(t, m.AddReserved(c)) {
					return nil, false
				}
			}
			m.Release(need)
			return batch, true
		})
		assert.False(t, m.Reserve(m.Capacity()-headBytes), "a reservation of the whole arena once it is used")
	}
}

// TestReserveCharges: bytes reserved and never released count against the
// arena, as a caller's data kept beside it.
func TestReserveCharges(t *testing.T) {
	m := New(4 << 10)
	free := m.Capacity() - m.Size()
	require.True(t, m.Reserve(free-100))
	assert.False(t, m.Reserve(101), "the unreleased bytes count")
	assert.True(t, m.Reserve(100))
	m.Release(100)
	err := m.Add(put("k", "v", 1))
	assert.ErrorIs(t, err, ErrFull, "Add against the bytes still reserved")
}
