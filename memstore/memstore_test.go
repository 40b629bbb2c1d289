package memstore

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/dgraph-io/badger/v4/skl"
	"github.com/kvenc/kvenc/blockenc"
)

func put(key, value string, seq uint64) blockenc.Cell {
	return blockenc.Cell{Key: []byte(key), Value: []byte(value), Seq: seq, Kind: blockenc.KindPut}
}

func mustAdd(t *testing.T, m *Memstore, cells ...blockenc.Cell) {
	t.Helper()
	for _, c := range cells {
		if err := m.Add(c); err != nil {
			t.Fatalf("Add(%s): %v", fmtCell(c), err)
		}
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
		switch {
		case tt.want == "" && ok:
			t.Errorf("Get(%q, %d) = %s, want not found", tt.key, tt.rp, fmtCell(c))
		case tt.want == "":
		case !ok:
			t.Errorf("Get(%q, %d) not found, want %q", tt.key, tt.rp, tt.want)
		case tt.want == "-" && (c.Kind != blockenc.KindDelete || c.Seq != tt.wantSq):
			t.Errorf("Get(%q, %d) = %s, want tombstone at %d", tt.key, tt.rp, fmtCell(c), tt.wantSq)
		case tt.want != "-" && (c.Kind != blockenc.KindPut || string(c.Value) != tt.want ||
			c.Seq != tt.wantSq || string(c.Key) != tt.key):
			t.Errorf("Get(%q, %d) = %s, want %q at %d", tt.key, tt.rp, fmtCell(c), tt.want, tt.wantSq)
		}
	}
	if m.Len() != 5 {
		t.Errorf("Len = %d, want 5", m.Len())
	}
	if m.Size() <= headBytes || m.Size() > m.Capacity() {
		t.Errorf("Size = %d, want in (%d, %d]", m.Size(), headBytes, m.Capacity())
	}
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
		if got := show(collect(m.NewIterator(tt.rp, tt.all), from)); got != tt.want {
			t.Errorf("rp=%d all=%v from=%q: got %q, want %q", tt.rp, tt.all, tt.from, got, tt.want)
		}
	}
	it := m.NewIterator(9, false)
	if it.Valid() {
		t.Error("a new iterator is valid before First")
	}
	it.First()
	for it.Valid() {
		it.Next()
	}
	it.Next() // no-op at the end
	if it.Valid() || it.Cell().Key != nil {
		t.Errorf("exhausted iterator: Valid %v, Cell %s", it.Valid(), fmtCell(it.Cell()))
	}
}

// TestSameKeyAndSeq pins what a second Add of an equal key and seq does: the
// last one wins, Len counts both Adds, and a cell read before keeps its bytes.
func TestSameKeyAndSeq(t *testing.T) {
	m := New(1 << 16)
	mustAdd(t, m, put("k", "first", 5))
	old, _ := m.Get([]byte("k"), 5)
	mustAdd(t, m, blockenc.Cell{Key: []byte("k"), Value: []byte("second"), Seq: 5, Kind: blockenc.KindDelete})
	c, ok := m.Get([]byte("k"), 5)
	if !ok || c.Kind != blockenc.KindDelete || string(c.Value) != "second" {
		t.Fatalf("after the second Add: %s %v", fmtCell(c), ok)
	}
	if m.Len() != 2 {
		t.Fatalf("Len = %d, want 2 (Len counts Adds)", m.Len())
	}
	if string(old.Value) != "first" || old.Kind != blockenc.KindPut {
		t.Fatalf("cell read before the overwrite changed: %s", fmtCell(old))
	}
	checkCells(t, "all versions", []blockenc.Cell{c}, collect(m.NewIterator(math.MaxUint64, true), nil))
}

// TestReturnedSlicesAreSafe checks that Add copies its input and that a
// caller appending to returned slices cannot write into the arena.
func TestReturnedSlicesAreSafe(t *testing.T) {
	m := New(1 << 16)
	key, val := []byte("key1"), []byte("val1")
	mustAdd(t, m, blockenc.Cell{Key: key, Value: val, Seq: 1, Kind: blockenc.KindPut}, put("key2", "val2", 1))
	key[0], val[0] = 'X', 'X'
	c, ok := m.Get([]byte("key1"), 1)
	if !ok || string(c.Key) != "key1" || string(c.Value) != "val1" {
		t.Fatalf("Add did not copy: %s %v", fmtCell(c), ok)
	}
	_ = append(c.Key, "ZZZZZZZZZZZZZZZZ"...)
	_ = append(c.Value, "ZZZZZZZZZZZZZZZZ"...)
	want := []blockenc.Cell{put("key1", "val1", 1), put("key2", "val2", 1)}
	checkCells(t, "after appends", want, collect(m.NewIterator(1, false), nil))
}

func TestAddErrors(t *testing.T) {
	m := New(1 << 16)
	err := m.Add(blockenc.Cell{Key: make([]byte, MaxKeyLen+1), Kind: blockenc.KindPut})
	if !errors.Is(err, ErrKeyTooLong) {
		t.Errorf("long key: %v", err)
	}
	if err := m.Add(blockenc.Cell{Key: []byte("k"), Kind: 7}); !errors.Is(err, ErrInvalidKind) {
		t.Errorf("kind 7: %v", err)
	}
	if m.Len() != 0 {
		t.Errorf("Len = %d after rejected adds", m.Len())
	}
	big := New(1 << 18)
	mustAdd(t, big, blockenc.Cell{Key: make([]byte, MaxKeyLen), Seq: 3, Kind: blockenc.KindPut})
	if c, ok := big.Get(make([]byte, MaxKeyLen), 3); !ok || len(c.Key) != MaxKeyLen || c.Seq != 3 {
		t.Errorf("longest key: %v %d %d", ok, len(c.Key), c.Seq)
	}
	if _, ok := big.Get(make([]byte, MaxKeyLen+1), 3); ok {
		t.Error("found a key longer than MaxKeyLen")
	}
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
			if errors.Is(err, ErrCellTooLarge) {
				t.Fatalf("a small cell is not too large: %v", err)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		added = append(added, c)
	}
	if len(added) < 3 {
		t.Fatalf("only %d cells fit in 1 KiB", len(added))
	}
	if m.Size() > m.Capacity() || m.Capacity() != 1<<10 {
		t.Fatalf("Size %d, Capacity %d", m.Size(), m.Capacity())
	}
	if m.Len() != len(added) {
		t.Fatalf("Len %d, added %d", m.Len(), len(added))
	}
	for _, c := range added {
		if got, ok := m.Get(c.Key, c.Seq); !ok || !sameCell(got, c) {
			t.Fatalf("Get(%s) = %s %v", fmtCell(c), fmtCell(got), ok)
		}
	}
	// Still full for the same cell, still fine for reads.
	if err := m.Add(put("zz", "value", 1)); !errors.Is(err, ErrFull) {
		t.Fatalf("Add after ErrFull: %v", err)
	}

	for _, size := range []int64{-1, 0, 1, 1 << 10} {
		huge := blockenc.Cell{Key: []byte("huge"), Value: make([]byte, 1<<10), Kind: blockenc.KindPut}
		err := New(size).Add(huge)
		if !errors.Is(err, ErrFull) || !errors.Is(err, ErrCellTooLarge) {
			t.Errorf("New(%d).Add(huge): %v", size, err)
		}
	}
	if c := New(-5).Capacity(); c != headBytes {
		t.Errorf("New(-5).Capacity() = %d, want %d", c, headBytes)
	}
}

// TestCellArenaBound checks the bound Add reserves against what skl really
// allocates, one Add at a time, over enough cells that node heights vary.
// A bound that is too low here would let skl call log.Fatalf.
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
		if used > bound {
			t.Fatalf("cell %d took %d arena bytes, bound %d", i, used, bound)
		}
		slack = max(slack, bound-used)
	}
	// A node of height 1 leaves (maxHeight-1)*4 tower bytes unused; the
	// bound should not be much looser than that.
	if want := int64(skl.MaxNodeSize); slack > want {
		t.Errorf("largest slack %d bytes, more than a whole node (%d)", slack, want)
	}
}

// TestErrFullConcurrent lets several writers race for a small arena: every
// Add either succeeds or returns ErrFull, the arena never overflows (skl
// would exit the process), and every accepted cell is there afterwards.
func TestErrFullConcurrent(t *testing.T) {
	for round := 0; round < 20; round++ {
		m := New(8 << 10)
		const writers = 4
		var wg sync.WaitGroup
		accepted := make([][]blockenc.Cell, writers)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for i := 0; ; i++ {
					c := blockenc.Cell{Key: []byte{byte(w), byte(i >> 8), byte(i)}, Value: make([]byte, rng.IntN(64)),
						Seq: uint64(i), Kind: blockenc.KindPut}
					err := m.Add(c)
					if errors.Is(err, ErrFull) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					accepted[w] = append(accepted[w], c)
				}
			}(w)
		}
		wg.Wait()
		if m.Size() > m.Capacity() {
			t.Fatalf("Size %d > Capacity %d", m.Size(), m.Capacity())
		}
		n := 0
		for _, cells := range accepted {
			n += len(cells)
			for _, c := range cells {
				if got, ok := m.Get(c.Key, c.Seq); !ok || !sameCell(got, c) {
					t.Fatalf("lost %s", fmtCell(c))
				}
			}
		}
		if m.Len() != n {
			t.Fatalf("Len %d, accepted %d", m.Len(), n)
		}
		if free := m.Capacity() - m.Size(); free > int64(writers)*(CellArenaBound(blockenc.Cell{Key: make([]byte, 3), Value: make([]byte, 64)})) {
			t.Errorf("ErrFull with %d bytes free", free)
		}
	}
}

func TestEmpty(t *testing.T) {
	m := New(0)
	if _, ok := m.Get(nil, math.MaxUint64); ok {
		t.Error("Get on an empty memstore found something")
	}
	if got := collect(m.NewIterator(math.MaxUint64, true), nil); len(got) != 0 {
		t.Errorf("iterating an empty memstore: %d cells", len(got))
	}
	if m.Len() != 0 || m.Size() != headBytes {
		t.Errorf("Len %d Size %d", m.Len(), m.Size())
	}
}
