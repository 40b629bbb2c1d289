package memstore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/mvcc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnapshotReadsStable runs the store's write path (Begin, Add every cell
// of the batch, Complete) in several writers while readers take snapshots.
// Every batch writes all hot keys (Put or Delete) plus one key of its own, so
// at a snapshot s every hot key's newest visible version must have Seq == s:
// anything else means the read point passed an incomplete batch. A reader
// then checks that Gets and iterations at s give the same answers as long as
// it holds the snapshot, while the writers go on.
func TestSnapshotReadsStable(t *testing.T) {
	const (
		hotKeys  = 16
		writers  = 3
		readers  = 3
		batches  = 120
		rereads  = 3
		snapsPer = 10
	)
	ms := New(64 << 20)
	tr := mvcc.NewTracker(0)
	hot := make([][]byte, hotKeys)
	for i := range hot {
		hot[i] = []byte(fmt.Sprintf("hot%02d", i))
	}

	var wg sync.WaitGroup
	var writing atomic.Int32
	writing.Store(writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer writing.Add(-1)
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for b := 0; b < batches; b++ {
				we := tr.Begin()
				seq := we.Seq()
				val := binary.BigEndian.AppendUint64(nil, seq)
				for _, i := range rng.Perm(hotKeys) {
					c := blockenc.Cell{Key: hot[i], Value: val, Seq: seq, Kind: blockenc.KindPut}
					if rng.IntN(5) == 0 {
						c.Kind, c.Value = blockenc.KindDelete, nil
					}
					if !assert.NoError(t, ms.Add(c)) {
						return
					}
				}
				own := fmt.Appendf(nil, "own%d-%04d", w, b)
				if !assert.NoError(t, ms.Add(blockenc.Cell{Key: own, Value: val, Seq: seq, Kind: blockenc.KindPut})) {
					return
				}
				if rng.IntN(4) == 0 {
					tr.CompleteAndWait(we)
				} else {
					tr.Complete(we)
				}
			}
		}(w)
	}

	// answers is what a reader sees at one read point.
	type answers struct {
		Gets   []cellView // Get of every hot key
		Newest []cellView // iteration of the newest visible versions
		All    []cellView // iteration of every visible version
	}
	read := func(seq uint64) answers {
		var a answers
		for _, k := range hot {
			c, ok := ms.Get(k, seq)
			assert.True(t, ok || seq == 0, "snapshot %d: %s not found", seq, k)
			a.Gets = append(a.Gets, view(c))
		}
		for _, all := range []bool{false, true} {
			it := ms.NewIterator(seq, all)
			cells := []cellView{}
			var newest cellView // the cell with the highest seq shown
			for it.First(); it.Valid(); it.Next() {
				c := view(it.Cell())
				if c.Seq >= newest.Seq {
					newest = c
				}
				cells = append(cells, c)
			}
			assert.LessOrEqual(t, newest.Seq, seq, "snapshot %d: iterator shows %s", seq, newest.Key)
			back := []cellView{}
			for it.Last(); it.Valid(); it.Prev() {
				back = append(back, view(it.Cell()))
			}
			slices.Reverse(back)
			assert.Equal(t, cells, back, "snapshot %d all=%v: backward iteration against forward", seq, all)
			if all {
				a.All = cells
			} else {
				a.Newest = cells
			}
		}
		return a
	}

	var snapshotsChecked atomic.Int64
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < snapsPer || writing.Load() > 0; n++ {
				snap := tr.Snapshot()
				s := snap.Seq()
				first := read(s)
				if s > 0 {
					for i, c := range first.Gets {
						assert.Equal(t, s, c.Seq, "snapshot %d: newest seq of %s (another seq: the read point passed an incomplete batch)", s, hot[i])
					}
				}
				for range rereads {
					assert.Equal(t, first, read(s), "snapshot %d: answers changed while held", s)
				}
				assert.LessOrEqual(t, tr.OldestSnapshot(), s, "OldestSnapshot above held snapshot %d", s)
				snap.Release()
				snapshotsChecked.Add(1)
				if t.Failed() {
					return
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	require.Equal(t, uint64(writers*batches), tr.ReadPoint(), "read point")
	require.Equal(t, writers*batches*(hotKeys+1), ms.Len(), "Len")
	require.GreaterOrEqual(t, snapshotsChecked.Load(), int64(readers*snapsPer), "snapshots checked")
}
