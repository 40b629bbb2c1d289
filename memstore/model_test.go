package memstore

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestModel adds random cells (few keys, so many versions and repeated
// key/seq pairs) and compares Get, iteration and SeekGE at random read
// points with the model after every batch of adds.
func TestModel(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			ms, mod := New(1<<20), &model{}
			adds := 0
			randKey := func() []byte {
				k := make([]byte, rng.IntN(4))
				for i := range k {
					k[i] = 'a' + byte(rng.IntN(3))
				}
				return k
			}
			for round := 0; round < 30; round++ {
				for range rng.IntN(40) {
					c := blockenc.Cell{
						Key:   randKey(),
						Value: bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(20)),
						Seq:   rng.Uint64N(30),
						Kind:  blockenc.Kind(rng.IntN(2)),
					}
					if rng.IntN(50) == 0 {
						c.Seq = blockenc.MaxSeq - rng.Uint64N(2)
					}
					require.NoError(t, ms.Add(c))
					mod.add(c)
					adds++
				}
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
