package memstore_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/memstore"
	"github.com/kvenc/kvenc/mvcc"
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
	ms := memstore.New(64 << 20)
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
					if err := ms.Add(c); err != nil {
						t.Error(err)
						return
					}
				}
				own := fmt.Appendf(nil, "own%d-%04d", w, b)
				if err := ms.Add(blockenc.Cell{Key: own, Value: val, Seq: seq, Kind: blockenc.KindPut}); err != nil {
					t.Error(err)
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

	type view struct {
		gets   []blockenc.Cell
		newest []blockenc.Cell
		all    []blockenc.Cell
	}
	read := func(seq uint64) view {
		var v view
		for _, k := range hot {
			c, ok := ms.Get(k, seq)
			if !ok && seq > 0 {
				t.Errorf("snapshot %d: %s not found", seq, k)
			}
			v.gets = append(v.gets, c)
		}
		for _, all := range []bool{false, true} {
			it := ms.NewIterator(seq, all)
			var cells []blockenc.Cell
			for it.First(); it.Valid(); it.Next() {
				if c := it.Cell(); c.Seq > seq {
					t.Errorf("snapshot %d: iterator shows %s@%d", seq, c.Key, c.Seq)
				}
				cells = append(cells, it.Cell())
			}
			if all {
				v.all = cells
			} else {
				v.newest = cells
			}
		}
		return v
	}
	equalViews := func(a, b []blockenc.Cell) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if !bytes.Equal(a[i].Key, b[i].Key) || !bytes.Equal(a[i].Value, b[i].Value) ||
				a[i].Seq != b[i].Seq || a[i].Kind != b[i].Kind {
				return false
			}
		}
		return true
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
					for i, c := range first.gets {
						if c.Seq != s {
							t.Errorf("snapshot %d: %s has newest seq %d: read point passed an incomplete batch", s, hot[i], c.Seq)
						}
					}
				}
				for range rereads {
					again := read(s)
					if !equalViews(first.gets, again.gets) || !equalViews(first.newest, again.newest) ||
						!equalViews(first.all, again.all) {
						t.Errorf("snapshot %d: answers changed while held", s)
					}
				}
				if old := tr.OldestSnapshot(); old > s {
					t.Errorf("OldestSnapshot %d above held snapshot %d", old, s)
				}
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
	if got, want := tr.ReadPoint(), uint64(writers*batches); got != want {
		t.Fatalf("read point %d, want %d", got, want)
	}
	if got, want := ms.Len(), writers*batches*(hotKeys+1); got != want {
		t.Fatalf("Len %d, want %d", got, want)
	}
	if snapshotsChecked.Load() < readers*snapsPer {
		t.Fatalf("only %d snapshots checked", snapshotsChecked.Load())
	}
}
