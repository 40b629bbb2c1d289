package tsbench

import (
	"encoding/binary"
	"math"

	"github.com/kvenc/kvenc/kv"
)

// Key returns a sample's key: the series name then the timestamp, 8 bytes
// big-endian.
func Key(dst []byte, name string, t int64) []byte {
	dst = append(dst, name...)
	return binary.BigEndian.AppendUint64(dst, uint64(t))
}

// Value returns a sample's value: the float64's bits, 8 bytes big-endian.
func Value(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

type kvencEngine struct {
	dir  string
	s    *kv.Store
	b    *kv.Batch
	k, v []byte
	lo   []byte
	hi   []byte
}

func openKvenc(dir string) (Engine, error) {
	e := &kvencEngine{dir: dir}
	return e, e.open()
}

func (e *kvencEngine) open() error {
	s, err := kv.Open(kv.DefaultOptions(e.dir))
	if err != nil {
		return err
	}
	e.s, e.b = s, s.NewBatch()
	return nil
}

func (e *kvencEngine) Scrape(series []Series, i int) error {
	e.b.Reset()
	for s := range series {
		e.k = Key(e.k[:0], series[s].Name, series[s].T[i])
		e.v = Value(e.v[:0], series[s].V[i])
		e.b.Put(e.k, e.v)
	}
	return e.s.Apply(e.b)
}

func (e *kvencEngine) Compact() error {
	if err := e.s.Flush(); err != nil {
		return err
	}
	return e.s.Compact()
}

func (e *kvencEngine) Reopen() error {
	if err := e.s.Close(); err != nil {
		return err
	}
	return e.open()
}

func (e *kvencEngine) Query(name string, mint, maxt int64) (int, float64, error) {
	e.lo = Key(e.lo[:0], name, mint)
	e.hi = Key(e.hi[:0], name, maxt+1)
	it := e.s.NewIterator(kv.IterOptions{LowerBound: e.lo, UpperBound: e.hi})
	n, sum := 0, 0.0
	for ok := it.First(); ok; ok = it.Next() {
		sum += math.Float64frombits(binary.BigEndian.Uint64(it.Value()))
		n++
	}
	if err := it.Err(); err != nil {
		it.Close()
		return n, sum, err
	}
	return n, sum, it.Close()
}

func (e *kvencEngine) Close() error { return e.s.Close() }
