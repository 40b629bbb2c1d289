package seekbench

import (
	"bytes"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/sstable/rowblk"

	"github.com/kvenc/kvenc/bench/internal/dataset"
)

func pebbleSubject(kvs []dataset.KV, order [][]byte) (Subject, error) {
	w := &rowblk.Writer{RestartInterval: 16}
	for _, kv := range kvs {
		if err := w.Add(pebble.MakeInternalKey(kv.Key, pebble.SeqNum(kv.Seq), pebble.InternalKeyKindSet), kv.Value); err != nil {
			return Subject{}, err
		}
	}
	blk := w.Finish()
	if err := checkPebble(blk, kvs); err != nil {
		return Subject{}, err
	}
	return Subject{
		Name: PebbleName, Bytes: len(blk), Cells: len(kvs),
		SeekRandom:    pebbleSeek(blk, order, false),
		SeekAscending: pebbleSeek(blk, ascending(kvs), false),
		Scan:          pebbleScan(blk),
		SeekLTRandom:  pebbleSeek(blk, ltTargets(kvs), true),
		ScanReverse:   pebbleReverseScan(blk),
	}, nil
}

func newPebbleIter(blk []byte) (*rowblk.Iter, error) {
	cmp := pebble.DefaultComparer
	return rowblk.NewIter(cmp.Compare, cmp.ComparePointSuffixes, cmp.Split, blk, block.NoTransforms)
}

func checkPebble(blk []byte, kvs []dataset.KV) error {
	it, err := newPebbleIter(blk)
	if err != nil {
		return err
	}
	for i, kv := range kvs {
		got := it.SeekGE(kv.Key, 0)
		if got == nil || !bytes.Equal(got.K.UserKey, kv.Key) || !bytes.Equal(got.InPlaceValue(), kv.Value) {
			return mismatch(PebbleName, "SeekGE", i, nil, kv.Key)
		}
	}
	for i, kv := range kvs[1:] {
		got := it.SeekLT(kv.Key, 0)
		if got == nil || !bytes.Equal(got.K.UserKey, kvs[i].Key) || !bytes.Equal(got.InPlaceValue(), kvs[i].Value) {
			return mismatch(PebbleName, "SeekLT", i+1, nil, kvs[i].Key)
		}
	}
	n := 0
	for got := it.First(); got != nil; got = it.Next() {
		if n >= len(kvs) || !bytes.Equal(got.K.UserKey, kvs[n].Key) {
			return mismatch(PebbleName, "scan", n, got.K.UserKey, nil)
		}
		n++
	}
	if n != len(kvs) {
		return mismatch(PebbleName, "scan ended early", n, nil, nil)
	}
	for got := it.Last(); got != nil; got = it.Prev() {
		if n--; n < 0 || !bytes.Equal(got.K.UserKey, kvs[n].Key) || !bytes.Equal(got.InPlaceValue(), kvs[n].Value) {
			return mismatch(PebbleName, "reverse scan", n, got.K.UserKey, nil)
		}
	}
	if n != 0 {
		return mismatch(PebbleName, "reverse scan ended early", n, nil, nil)
	}
	return it.Error()
}

func pebbleReverseScan(blk []byte) func(b *testing.B) {
	return func(b *testing.B) {
		it, err := newPebbleIter(blk)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for kv := it.Last(); kv != nil; kv = it.Prev() {
				sink += len(kv.K.UserKey) + len(kv.InPlaceValue())
			}
		}
		sinkInt = sink
	}
}

// pebbleSeek times SeekGE (SeekLT with lt) to each of keys in turn.
func pebbleSeek(blk []byte, keys [][]byte, lt bool) func(b *testing.B) {
	return func(b *testing.B) {
		it, err := newPebbleIter(blk)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			k := keys[i%len(keys)]
			n := 0 // 1 + the value's length when found
			if lt {
				if kv := it.SeekLT(k, 0); kv != nil {
					n = 1 + len(kv.InPlaceValue())
				}
			} else if kv := it.SeekGE(k, 0); kv != nil {
				n = 1 + len(kv.InPlaceValue())
			}
			if n == 0 {
				b.Fatal("seek found nothing, SeekLT: ", lt)
			}
			sink += n - 1
		}
		sinkInt = sink
	}
}

func pebbleScan(blk []byte) func(b *testing.B) {
	return func(b *testing.B) {
		it, err := newPebbleIter(blk)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for kv := it.First(); kv != nil; kv = it.Next() {
				sink += len(kv.K.UserKey) + len(kv.InPlaceValue())
			}
		}
		sinkInt = sink
	}
}
