package fuzz

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/memstore"
)

// memModel is the memstore reference: cells sorted by blockenc.Compare, an
// equal key and seq replacing the stored cell.
type memModel []blockenc.Cell

func (m *memModel) add(c blockenc.Cell) {
	c.Key, c.Value = bytes.Clone(c.Key), bytes.Clone(c.Value)
	i, found := slices.BinarySearchFunc(*m, c, blockenc.Compare)
	if found {
		(*m)[i] = c
		return
	}
	*m = slices.Insert(*m, i, c)
}

// visible lists what an iterator at rp shows from key from on.
func (m memModel) visible(from []byte, rp uint64, all bool) []blockenc.Cell {
	var out []blockenc.Cell
	for _, c := range m {
		if bytes.Compare(c.Key, from) < 0 || c.Seq > rp {
			continue
		}
		if all || len(out) == 0 || !bytes.Equal(out[len(out)-1].Key, c.Key) {
			out = append(out, c)
		}
	}
	return out
}

// memOps reads a little program from fuzz bytes.
type memOps struct{ b []byte }

func (o *memOps) byte() byte {
	if len(o.b) == 0 {
		return 0
	}
	c := o.b[0]
	o.b = o.b[1:]
	return c
}

// key returns 0..3 bytes from a 3-letter alphabet: few keys, many versions.
func (o *memOps) key(n byte) []byte {
	k := make([]byte, n&3)
	for i := range k {
		k[i] = 'a' + o.byte()%3
	}
	return k
}

// seq returns a small seq, or one near the top of the range.
func (o *memOps) seq() uint64 {
	s := o.byte()
	if s >= 0xf0 {
		return math.MaxUint64 - uint64(s&0x0f)
	}
	return uint64(s & 0x1f)
}

// FuzzMemstore drives Add, Get, First/SeekGE/Next in both iterator modes
// against a sorted-slice model, in arenas small enough to fill: an Add must
// fail with ErrFull exactly when the cell's arena bound no longer fits
// (single writer), and the process must never exit.
//
// Input: byte 0 picks the arena (256 + 32*b bytes, or 1 MiB when b >= 0xc0),
// then one op per byte: op&3 = 0,1 Add, 2 Get, 3 iterate; the op's high bits
// and the following bytes give key length, key, seq, kind and value.
func FuzzMemstore(f *testing.F) {
	f.Add([]byte{0xff, 0x01, 'a', 3, 0x05, 'b', 1, 0x12, 'a', 4, 0x03, 'a', 5})
	f.Add([]byte{0x00, 0x41, 'a', 1, 0x41, 'a', 2, 0x41, 'a', 1, 0x21, 'b', 2, 0x23, 0, 9, 0x27, 'a', 1})
	f.Add([]byte{0x02, 0xe1, 'a', 'b', 'c', 0xf1, 0xe1, 'a', 'b', 'c', 0xf1, 0x02, 'a', 0xff, 0x13, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		o := &memOps{b: data}
		arena := int64(256 + 32*int(o.byte()))
		if arena >= 256+32*0xc0 {
			arena = 1 << 20
		}
		m := memstore.New(arena)
		var model memModel
		adds := 0
		for len(o.b) > 0 {
			op := o.byte()
			switch op & 3 {
			case 0, 1:
				c := blockenc.Cell{Key: o.key(op >> 2), Seq: o.seq(), Kind: blockenc.Kind(op >> 4 & 1)}
				c.Value = bytes.Repeat([]byte{op}, int(op>>5)*9)
				fits := m.Size()+memstore.CellArenaBound(c) <= m.Capacity()
				err := m.Add(c)
				if fits {
					require.NoError(t, err, "Add(%q@%d, %d-byte value) at size %d of %d", c.Key, c.Seq, len(c.Value), m.Size(), m.Capacity())
				} else {
					require.ErrorIs(t, err, memstore.ErrFull, "Add(%q@%d, %d-byte value) at size %d of %d", c.Key, c.Seq, len(c.Value), m.Size(), m.Capacity())
				}
				if err == nil {
					model.add(c)
					adds++
				}
				require.LessOrEqual(t, m.Size(), m.Capacity(), "Size vs Capacity")
				require.Equal(t, adds, m.Len(), "Len vs adds")
			case 2:
				key, rp := o.key(op>>2), o.seq()
				var want blockenc.Cell
				wok := false
				if v := model.visible(key, rp, false); len(v) > 0 && bytes.Equal(v[0].Key, key) {
					want, wok = v[0], true
				}
				got, ok := m.Get(key, rp)
				require.Equal(t, wok, ok, "Get(%q, %d) found", key, rp)
				if ok {
					require.Equal(t, viewCell(want), viewCell(got), "Get(%q, %d)", key, rp)
				}
			case 3:
				all, rp := op&4 != 0, o.seq()
				var from []byte
				it := m.NewIterator(rp, all)
				if op&8 != 0 {
					from = o.key(op >> 4)
					it.SeekGE(from)
				} else {
					it.First()
				}
				want := model.visible(from, rp, all)
				for i, w := range want {
					require.True(t, it.Valid(), "iterator at %d (all=%v, from %q), cell %d: not valid, want %+v", rp, all, from, i, w)
					require.Equal(t, viewCell(w), viewCell(it.Cell()), "iterator at %d (all=%v, from %q), cell %d", rp, all, from, i)
					it.Next()
				}
				require.False(t, it.Valid(), "iterator at %d (all=%v, from %q): extra cell", rp, all, from)

			}
		}
	})
}
