package memstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/require"
)

// model is the reference: a sorted slice of cells in blockenc.Compare order,
// where an equal key and seq replaces the stored cell.
type model struct{ cells []blockenc.Cell }

func (m *model) add(c blockenc.Cell) {
	c.Key, c.Value = bytes.Clone(c.Key), bytes.Clone(c.Value)
	i, found := slices.BinarySearchFunc(m.cells, c, blockenc.Compare)
	if found {
		m.cells[i] = c
		return
	}
	m.cells = slices.Insert(m.cells, i, c)
}

func (m *model) get(key []byte, readPoint uint64) (blockenc.Cell, bool) {
	i, _ := slices.BinarySearchFunc(m.cells, blockenc.Cell{Key: key, Seq: readPoint}, blockenc.Compare)
	if i < len(m.cells) && bytes.Equal(m.cells[i].Key, key) {
		return m.cells[i], true
	}
	return blockenc.Cell{}, false
}

// visible returns what an Iterator at readPoint shows from the first cell
// with a key >= from.
func (m *model) visible(from []byte, readPoint uint64, all bool) []blockenc.Cell {
	var out []blockenc.Cell
	for _, c := range m.cells {
		if bytes.Compare(c.Key, from) < 0 || c.Seq > readPoint {
			continue
		}
		if !all && len(out) > 0 && bytes.Equal(out[len(out)-1].Key, c.Key) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// cellView is a cell as the tests compare it: byte slices become strings, so
// a nil and an empty slice are the same value (as bytes.Equal has it) and a
// failing require.Equal prints readable keys and values.
type cellView struct {
	Key   string
	Seq   uint64
	Kind  blockenc.Kind
	Value string
}

func view(c blockenc.Cell) cellView {
	return cellView{Key: string(c.Key), Seq: c.Seq, Kind: c.Kind, Value: string(c.Value)}
}

// views converts cells for comparison; it never returns nil, so no cells
// and an empty iteration compare equal.
func views(cells []blockenc.Cell) []cellView {
	out := make([]cellView, 0, len(cells))
	for _, c := range cells {
		out = append(out, view(c))
	}
	return out
}

// collect runs the iterator from SeekGE(from) (or First when from is nil).
func collect(it *Iterator, from []byte) []blockenc.Cell {
	if from == nil {
		it.First()
	} else {
		it.SeekGE(from)
	}
	var out []blockenc.Cell
	for ; it.Valid(); it.Next() {
		out = append(out, it.Cell())
	}
	return out
}

// randKey returns a key of up to 3 bytes of 'a' to 'c': few keys, so many
// versions of each.
func randKey(rng *rand.Rand) []byte {
	k := make([]byte, rng.IntN(4))
	for i := range k {
		k[i] = 'a' + byte(rng.IntN(3))
	}
	return k
}

// addRandom adds up to 39 random cells to ms and mod (repeating key/seq
// pairs, now and then a seq near blockenc.MaxSeq) and returns how many.
func addRandom(t *testing.T, rng *rand.Rand, ms *Memstore, mod *model) int {
	n := rng.IntN(40)
	for range n {
		c := blockenc.Cell{
			Key:   randKey(rng),
			Value: bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(20)),
			Seq:   rng.Uint64N(30),
			Kind:  blockenc.Kind(rng.IntN(2)),
		}
		if rng.IntN(50) == 0 {
			c.Seq = blockenc.MaxSeq - rng.Uint64N(2)
		}
		require.NoError(t, ms.Add(c))
		mod.add(c)
	}
	return n
}

// TestModel adds random cells (few keys, so many versions and repeated
// key/seq pairs) and compares Get, iteration and SeekGE at random read
// points with the model after every batch of adds.
func TestModel(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			ms, mod := New(1<<20), &model{}
			adds := 0
			randKey := func() []byte { return randKey(rng) }
			for round := 0; round < 30; round++ {
				adds += addRandom(t, rng, ms, mod)
				require.Equal(t, adds, ms.Len(), "Len counts Adds")
				for range 20 {
					key, rp := randKey(), rng.Uint64N(35)
					if rng.IntN(10) == 0 {
						rp = ^uint64(0)
					}
					want, wok := mod.get(key, rp)
					got, ok := ms.Get(key, rp)
					require.Equal(t, wok, ok, "Get(%q, %d) found", key, rp)
					if ok {
						require.Equal(t, view(want), view(got), "Get(%q, %d)", key, rp)
					}
					all := rng.IntN(2) == 0
					from := key
					if rng.IntN(4) == 0 {
						from = nil
					}
					require.Equal(t, views(mod.visible(from, rp, all)), views(collect(ms.NewIterator(rp, all), from)),
						"SeekGE(%q) at %d all=%v", from, rp, all)
				}
			}
		})
	}
}

// collectBack runs the iterator backward from SeekLT(before) (or Last when
// before is nil).
func collectBack(it *Iterator, before []byte) []blockenc.Cell {
	if before == nil {
		it.Last()
	} else {
		it.SeekLT(before)
	}
	var out []blockenc.Cell
	for ; it.Valid(); it.Prev() {
		out = append(out, it.Cell())
	}
	return out
}

// visibleBack returns what an Iterator at readPoint shows backward from the
// last cell with a key < before (nil: from the last cell): the forward
// order reversed.
func (m *model) visibleBack(before []byte, readPoint uint64, all bool) []blockenc.Cell {
	var out []blockenc.Cell
	for _, c := range m.visible(nil, readPoint, all) {
		if before == nil || bytes.Compare(c.Key, before) < 0 {
			out = append(out, c)
		}
	}
	slices.Reverse(out)
	return out
}

// TestModelReverse compares backward iteration and random walks that
// change direction with the model, at random read points, in both modes.
func TestModelReverse(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 77))
			ms, mod := New(1<<20), &model{}
			randKey := func() []byte { return randKey(rng) }
			for round := 0; round < 30; round++ {
				addRandom(t, rng, ms, mod)
				for range 20 {
					rp := rng.Uint64N(35)
					if rng.IntN(10) == 0 {
						rp = ^uint64(0)
					}
					all := rng.IntN(2) == 0
					var before []byte
					if rng.IntN(4) != 0 {
						before = randKey()
					}
					require.Equal(t, views(mod.visibleBack(before, rp, all)), views(collectBack(ms.NewIterator(rp, all), before)),
						"SeekLT(%q) at %d all=%v", before, rp, all)
					walk(t, rng, ms.NewIterator(rp, all), mod.visible(nil, rp, all), randKey)
				}
			}
		})
	}
}

// walk makes random moves in both directions and checks each against want,
// the cells the iterator shows in forward order.
func walk(t *testing.T, rng *rand.Rand, it *Iterator, want []blockenc.Cell, randKey func() []byte) {
	t.Helper()
	pos, valid := 0, false
	var moves []string
	for range 30 {
		switch op := rng.IntN(6); {
		case op == 0:
			moves = append(moves, "First")
			it.First()
			pos, valid = 0, len(want) > 0
		case op == 1:
			moves = append(moves, "Last")
			it.Last()
			pos, valid = len(want)-1, len(want) > 0
		case op == 2:
			k := randKey()
			moves = append(moves, fmt.Sprintf("SeekGE(%q)", k))
			it.SeekGE(k)
			pos = sort.Search(len(want), func(i int) bool { return bytes.Compare(want[i].Key, k) >= 0 })
			valid = pos < len(want)
		case op == 3:
			k := randKey()
			moves = append(moves, fmt.Sprintf("SeekLT(%q)", k))
			it.SeekLT(k)
			pos = sort.Search(len(want), func(i int) bool { return bytes.Compare(want[i].Key, k) >= 0 }) - 1
			valid = pos >= 0
		case op == 4:
			moves = append(moves, "Next")
			it.Next()
			if valid {
				pos++
				valid = pos < len(want)
			}
		default:
			moves = append(moves, "Prev")
			it.Prev()
			if valid {
				pos--
				valid = pos >= 0
			}
		}
		require.Equal(t, valid, it.Valid(), "after %v", moves)
		if valid {
			require.Equal(t, view(want[pos]), view(it.Cell()), "after %v", moves)
		}
	}
}
