package memstore

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/require"
)

// TestInsertersConcurrent: writers add batches through Inserters at once,
// some in ascending key order (each batch starting where another writer's
// keys interleave with it), some in random order, and all of them add
// cells of the same keys and seqs as another writer (the race to link one
// cell). Afterwards a forward and a backward walk of every node give the
// cells in cell order, each key and seq once, with one of the values
// added for it.
func TestInsertersConcurrent(t *testing.T) {
	for round := range 4 {
		const writers, batches, perBatch = 4, 40, 100
		m := New(64 << 20)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(round), uint64(w)))
				for b := range batches {
					ins := m.Inserter()
					keys := make([]uint32, perBatch)
					for i := range keys {
						keys[i] = rng.Uint32N(5000)
					}
					if w%2 == 0 {
						slices.Sort(keys)
					}
					need := int64(0)
					cells := make([]blockenc.Cell, perBatch)
					for i, k := range keys {
						// Seq k%7: writers add cells of the same key and seq.
						cells[i] = blockenc.Cell{Key: binary.BigEndian.AppendUint32(nil, k), Seq: uint64(k % 7),
							Value: []byte{byte(w), byte(b)}, Kind: blockenc.Kind(k % 2)}
						need += CellArenaBound(cells[i])
					}
					if !m.Reserve(need) {
						t.Error("arena full")
						return
					}
					for _, c := range cells {
						if err := ins.AddReserved(c); err != nil {
							t.Error(err)
							return
						}
					}
					m.Release(need)
				}
			}()
		}
		wg.Wait()

		var fwd []blockenc.Cell
		it := m.NewIterator(math.MaxUint64, true)
		for it.First(); it.Valid(); it.Next() {
			fwd = append(fwd, it.Cell())
		}
		require.NotEmpty(t, fwd)
		for i := 1; i < len(fwd); i++ {
			require.Negative(t, blockenc.Compare(fwd[i-1], fwd[i]), "cells %d and %d out of order or twice", i-1, i)
		}
		for _, c := range fwd {
			k := binary.BigEndian.Uint32(c.Key)
			require.Equal(t, uint64(k%7), c.Seq)
			require.Equal(t, blockenc.Kind(k%2), c.Kind)
			require.Len(t, c.Value, 2)
			require.Less(t, int(c.Value[0]), writers)
		}
		var back []blockenc.Cell
		for it.Last(); it.Valid(); it.Prev() {
			back = append(back, it.Cell())
		}
		slices.Reverse(back)
		require.Equal(t, views(fwd), views(back), "backward walk")
	}
}

// TestInserterOrders: one Inserter adds ascending, descending, repeated
// and random keys, moving between the list's ends; the list holds them
// all in order, and Get finds each.
func TestInserterOrders(t *testing.T) {
	m := New(16 << 20)
	mod := &model{}
	ins := m.Inserter()
	rng := rand.New(rand.NewPCG(7, 8))
	add := func(k uint32, seq uint64) {
		c := blockenc.Cell{Key: binary.BigEndian.AppendUint32(nil, k), Seq: seq, Value: []byte{byte(seq)}, Kind: blockenc.KindPut}
		require.True(t, m.Reserve(CellArenaBound(c)))
		require.NoError(t, ins.AddReserved(c))
		mod.add(c)
	}
	for i := range 2000 {
		add(uint32(1000+i), 1) // ascending
	}
	for i := range 1000 {
		add(uint32(999-i), 2) // descending, before all of them
	}
	for i := range 500 {
		add(uint32(500+i%10), uint64(3+i)) // one key's versions, newest last
	}
	for range 2000 {
		add(rng.Uint32N(5000), uint64(rng.IntN(3)+1)) // random, some cells twice
	}
	require.Equal(t, views(mod.visible(nil, math.MaxUint64, true)), views(collect(m.NewIterator(math.MaxUint64, true), nil)))
	for _, c := range mod.visible(nil, math.MaxUint64, true) {
		got, ok := m.Get(c.Key, c.Seq)
		require.True(t, ok, "Get(%x, %d)", c.Key, c.Seq)
		require.Equal(t, view(c), view(got))
	}
}
