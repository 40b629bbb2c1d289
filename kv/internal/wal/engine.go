package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/layout"
)

// Records in the engine. A Store whose WAL is in its engine keeps each
// record under layout.Keys.WAL(seq, chunk), split into chunks of at most
// Chunk bytes numbered from 0, written in one transaction: the keys sort
// by seq, then chunk, so a scan of the WAL tag reads every record whole
// and in seq order.

// Scan calls f on an iterator at each key in [lower, upper), in order,
// until f fails.
type Scan func(lower, upper []byte, f func(it engine.Iter) error) error

// errStop ends a scan early without an error.
var errStop = errors.New("stop")

// EngineBatch adds to b the chunks of rec, the record of seq.
func EngineBatch(b *engine.Batch, keys layout.Keys, seq uint64, rec []byte) {
	for c := 0; c*Chunk < len(rec); c++ {
		chunk := rec[c*Chunk : min(len(rec), (c+1)*Chunk)]
		b.Set(keys.WAL(seq, uint16(c)), chunk)
	}
}

// ReadEngine returns the records in the engine whose seqs are above
// walSeq, whole and in seq order, and the keys of those at or below it
// (stale: in segments already). It calls foreign on each key under the
// WAL tag that is not a WAL key. A chunk without the chunks before it
// fails it with an error wrapping blockenc.ErrCorrupt.
func ReadEngine(keys layout.Keys, scan Scan, walSeq uint64, foreign func(k []byte)) (recs []Rec, stale [][]byte, err error) {
	var cur []byte
	curSeq := uint64(0)
	p := keys.Tag(layout.TagWAL)
	err = scan(p, engine.PrefixEnd(p), func(it engine.Iter) error {
		k := it.Key()
		if !keys.IsWAL(k) {
			foreign(k)
			return nil
		}
		seq := binary.BigEndian.Uint64(k[len(k)-10:])
		chunk := binary.BigEndian.Uint16(k[len(k)-2:])
		if seq <= walSeq {
			stale = append(stale, bytes.Clone(k))
			return nil
		}
		if chunk == 0 {
			if cur != nil {
				recs = append(recs, Rec{Seq: curSeq, B: cur})
			}
			cur, curSeq = []byte{}, seq
		} else if seq != curSeq || cur == nil {
			return fmt.Errorf("%w: WAL seq %d chunk %d without chunk 0", blockenc.ErrCorrupt, seq, chunk)
		}
		return it.Value(engine.ViewFunc(func(v []byte) error {
			cur = append(cur, v...)
			return nil
		}))
	})
	if cur != nil {
		recs = append(recs, Rec{Seq: curSeq, B: cur})
	}
	return recs, stale, err
}

// EngineKeys returns the keys of the records in the engine whose seqs
// are in (lo, hi]. It stops at a key in the WAL's range that is not a
// WAL record's (a foreign key: never deleted).
func EngineKeys(keys layout.Keys, scan Scan, lo, hi uint64) ([][]byte, error) {
	if hi <= lo {
		return nil, nil
	}
	var ks [][]byte
	err := scan(keys.WAL(lo+1, 0), engine.PrefixEnd(keys.Tag(layout.TagWAL)), func(it engine.Iter) error {
		k := it.Key()
		if !keys.IsWAL(k) || binary.BigEndian.Uint64(k[len(k)-10:]) > hi {
			return errStop
		}
		ks = append(ks, bytes.Clone(k))
		return nil
	})
	if err != nil && err != errStop {
		return nil, err
	}
	return ks, nil
}
