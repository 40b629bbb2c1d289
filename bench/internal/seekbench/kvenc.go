package seekbench

import (
	"bytes"
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/blockenc"
)

func kvencSubjects(kvs []dataset.KV, order [][]byte) ([]Subject, error) {
	var out []Subject
	for _, enc := range blockenc.Encodings() {
		name := KvencName(enc)
		e := blockenc.NewEncoder(blockenc.Options{Encoding: enc, RestartInterval: 16})
		for _, kv := range kvs {
			if err := e.Add(blockenc.Cell{Key: kv.Key, Value: kv.Value, Seq: kv.Seq, Kind: blockenc.KindPut}); err != nil {
				return nil, err
			}
		}
		block, err := e.Finish()
		if err != nil {
			return nil, err
		}
		if err := checkKvenc(name, block, kvs); err != nil {
			return nil, err
		}
		out = append(out, Subject{
			Name: name, Bytes: len(block), Cells: len(kvs),
			SeekRandom:    kvencSeek(block, order, false),
			SeekAscending: kvencSeek(block, ascending(kvs), false),
			Scan:          kvencScan(block),
			ScanCell:      kvencCellScan(block),
			SeekLTRandom:  kvencSeek(block, ltTargets(kvs), true),
			ScanReverse:   kvencReverseScan(block),
		})
	}
	return out, nil
}

// KvencName is the subject name of kvenc's encoding enc.
func KvencName(enc blockenc.Encoding) string { return "kvenc-" + enc.String() }

func checkKvenc(name string, block []byte, kvs []dataset.KV) error {
	s, err := blockenc.NewSeeker(block)
	if err != nil {
		return err
	}
	for i, kv := range kvs {
		if !s.SeekGE(kv.Key) {
			return mismatch(name, "SeekGE found nothing", i, nil, kv.Key)
		}
		if c := s.Cell(); !bytes.Equal(c.Key, kv.Key) || !bytes.Equal(c.Value, kv.Value) || c.Seq != kv.Seq {
			return mismatch(name, "SeekGE", i, c.Key, kv.Key)
		}
	}
	for i, kv := range kvs[1:] {
		if !s.SeekLT(kv.Key) {
			return mismatch(name, "SeekLT found nothing", i+1, nil, kv.Key)
		}
		if c := s.Cell(); !bytes.Equal(c.Key, kvs[i].Key) || !bytes.Equal(c.Value, kvs[i].Value) || c.Seq != kvs[i].Seq {
			return mismatch(name, "SeekLT", i+1, c.Key, kvs[i].Key)
		}
	}
	n := 0
	for ok := s.First(); ok; ok = s.Next() {
		if n >= len(kvs) || !bytes.Equal(s.Cell().Key, kvs[n].Key) {
			return mismatch(name, "scan", n, s.Cell().Key, nil)
		}
		n++
	}
	if n != len(kvs) || s.Err() != nil {
		return mismatch(name, "scan ended early", n, nil, nil)
	}
	n = len(kvs)
	for ok := s.Last(); ok; ok = s.Prev() {
		if n--; n < 0 || !bytes.Equal(s.Cell().Key, kvs[n].Key) || !bytes.Equal(s.Cell().Value, kvs[n].Value) {
			return mismatch(name, "reverse scan", n, s.Cell().Key, nil)
		}
	}
	if n != 0 || s.Err() != nil {
		return mismatch(name, "reverse scan ended early", n, nil, nil)
	}
	return nil
}

// kvencReverseScan reads key and value as kvencScan does, from the last
// cell back to the first.
func kvencReverseScan(block []byte) func(b *testing.B) {
	return func(b *testing.B) {
		s, err := blockenc.NewSeeker(block)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for ok := s.Last(); ok; ok = s.Prev() {
				sink += len(s.Key()) + len(s.Value())
			}
		}
		sinkInt = sink
	}
}

// kvencSeek times SeekGE (SeekLT with lt) to each of keys in turn.
func kvencSeek(block []byte, keys [][]byte, lt bool) func(b *testing.B) {
	return func(b *testing.B) {
		s, err := blockenc.NewSeeker(block)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			k := keys[i%len(keys)]
			if ok := lt && s.SeekLT(k) || !lt && s.SeekGE(k); !ok {
				b.Fatal("seek found nothing, SeekLT: ", lt)
			}
			sink += len(s.Value())
		}
		sinkInt = sink
	}
}

func kvencScan(block []byte) func(b *testing.B) {
	return func(b *testing.B) {
		s, err := blockenc.NewSeeker(block)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			// Read key and value through the field accessors, as
			// Pebble's loop reads them through the *InternalKV its
			// Next returns: neither side copies a whole cell.
			for ok := s.First(); ok; ok = s.Next() {
				sink += len(s.Key()) + len(s.Value())
			}
		}
		sinkInt = sink
	}
}

// kvencCellScan scans with the loop a caller writes: one Cell per step,
// its Key and Value read from it.
func kvencCellScan(block []byte) func(b *testing.B) {
	return func(b *testing.B) {
		s, err := blockenc.NewSeeker(block)
		if err != nil {
			b.Fatal(err)
		}
		sink := 0
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for ok := s.First(); ok; ok = s.Next() {
				c := s.Cell()
				sink += len(c.Key) + len(c.Value)
			}
		}
		sinkInt = sink
	}
}

// sinkInt keeps the compiler from dropping benchmark work.
var sinkInt int
