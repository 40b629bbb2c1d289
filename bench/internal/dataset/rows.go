package dataset

import (
	"encoding/binary"
	"math/rand/v2"
	"time"
)

// Row cells of the block size comparison, built as blockenc's feature benchmarks build theirs
// (blockenc/bench_features_test.go): seqs grow with the cell from 2^40, as
// in a bulk load (6-byte vlongs).

// LineitemRowCells is lineitem in the row layout of blockenc's feature
// benchmarks, from dbgen's rows instead of its synthetic ones: key = 8-byte
// big-endian orderkey + 4-byte big-endian linenumber, value = the other
// columns in a binary layout (big-endian integers, dates as YYYY-MM-DD):
//
//	partkey u32 | suppkey u32 | quantity u8 | extendedprice u64 (cents)
//	| discount u8 | tax u8 | returnflag u8 | linestatus u8
//	| shipdate [10] | commitdate [10] | receiptdate [10]
//	| len u8 shipinstruct | len u8 shipmode | len u8 comment
//
// It returns the first n rows (all if n <= 0 or beyond the set).
func LineitemRowCells(set *LineitemSet, n int) []KV {
	if n <= 0 || n > len(set.Rows) {
		n = len(set.Rows)
	}
	out := make([]KV, n)
	for i := range out {
		r := &set.Rows[i]
		k := binary.BigEndian.AppendUint64(make([]byte, 0, 12), uint64(r.OrderKey))
		instr, mode, comment := splitText(set.Text(i))
		v := make([]byte, 0, 53+len(instr)+len(mode)+len(comment))
		v = binary.BigEndian.AppendUint32(v, uint32(r.PartKey))
		v = binary.BigEndian.AppendUint32(v, uint32(r.SuppKey))
		v = append(v, byte(r.Quantity))
		v = binary.BigEndian.AppendUint64(v, uint64(r.ExtendedPrice))
		v = append(v, byte(r.Discount), byte(r.Tax), r.ReturnFlag, r.LineStatus)
		for _, d := range []int64{r.ShipDate, r.CommitDate, r.ReceiptDate} {
			v = time.Unix(d*86400, 0).UTC().AppendFormat(v, time.DateOnly)
		}
		for _, s := range [][]byte{instr, mode, comment} {
			v = append(append(v, byte(len(s))), s...)
		}
		out[i] = KV{Key: binary.BigEndian.AppendUint32(k, uint32(r.LineNumber)), Value: v, Seq: 1<<40 + uint64(i)}
	}
	return out
}

// splitText cuts "shipinstruct|shipmode|comment" (the comment never holds
// a '|').
func splitText(t []byte) (instr, mode, comment []byte) {
	var f [3][]byte
	for i := range f {
		j := 0
		for j < len(t) && (t[j] != '|' || i == 2) {
			j++
		}
		f[i] = t[:j]
		if j < len(t) {
			t = t[j+1:]
		} else {
			t = nil
		}
	}
	return f[0], f[1], f[2]
}

// SeriesIDCells are time series in the layout of blockenc's feature
// benchmarks: series series of ticks 10-second samples, half counters
// (growing by 0-5000 a sample), half gauges (a random walk of ±100 around a
// per-series level); key = 8-byte big-endian series id + 8-byte big-endian
// timestamp (unix ms), value = the 8-byte big-endian sample, seqs in ingest
// order (every series per tick). The generator and seed are blockenc's:
// SeriesIDCells(200, 360) are the cells of its time series benchmarks.
func SeriesIDCells(series, ticks int) []KV {
	rng := rand.New(rand.NewPCG(2026, 7))
	out := make([]KV, 0, series*ticks)
	t0 := uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	for s := range series {
		id := uint64(0x5e71e5<<24) + uint64(s)*7919
		v := rng.Int64N(1 << 40)
		for t := range ticks {
			if s%2 == 0 {
				v += rng.Int64N(5001)
			} else {
				v += rng.Int64N(201) - 100
			}
			key := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(make([]byte, 0, 16), id), t0+uint64(t)*10000)
			out = append(out, KV{Key: key, Value: binary.BigEndian.AppendUint64(nil, uint64(v)),
				Seq: 1<<40 + uint64(t*series+s)})
		}
	}
	return out
}
