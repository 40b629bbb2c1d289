package dataset

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// LineitemCells is the row layout of lineitem for the store benchmarks:
// key = 8-byte big-endian orderkey + 4-byte big-endian linenumber, value =
// the other columns as dbgen's pipe-separated text (about 100-130 bytes).
func LineitemCells(set *LineitemSet, n int) []KV {
	rows := set.Rows[:min(n, len(set.Rows))]
	out := make([]KV, len(rows))
	for i := range rows {
		r := &rows[i]
		k := binary.BigEndian.AppendUint64(make([]byte, 0, 12), uint64(r.OrderKey))
		v := fmt.Appendf(nil, "%d|%d|%d|%d.%02d|0.%02d|0.%02d|%c|%c|%d|%d|%d|%s|",
			r.PartKey, r.SuppKey, r.Quantity, r.ExtendedPrice/100, r.ExtendedPrice%100,
			r.Discount, r.Tax, r.ReturnFlag, r.LineStatus, r.ShipDate, r.CommitDate, r.ReceiptDate, set.Text(i))
		out[i] = KV{Key: binary.BigEndian.AppendUint32(k, uint32(r.LineNumber)), Value: v}
	}
	return out
}

// SeriesCells is the time series layout: key = series name + "|" + 8-byte
// big-endian timestamp (from the timestamps series), value = the 8-byte
// big-endian value; n cells per series (counter, gauge, sparse).
func SeriesCells(n int) []KV {
	ss := TimeSeries(n)
	ts := ss[0].Values
	var out []KV
	for _, s := range ss[1:] {
		for i, v := range s.Values {
			k := append([]byte(s.Name), '|')
			out = append(out, KV{
				Key:   binary.BigEndian.AppendUint64(k, uint64(ts[i])),
				Value: binary.BigEndian.AppendUint64(nil, uint64(v)),
			})
		}
	}
	return out
}

// YCSBCells are YCSB-like records: keys "user" + the FNV-64 hash of the
// record number (as YCSB's hashed insert order), 100-byte random printable
// values, in insert (not key) order.
func YCSBCells(n int) []KV {
	r := rand.New(rand.NewPCG(6, 106))
	out := make([]KV, 0, n)
	seen := make(map[uint64]bool, n)
	for i := 0; len(out) < n; i++ {
		h := fnv.New64a()
		binary.Write(h, binary.LittleEndian, uint64(i))
		x := h.Sum64()
		if seen[x] {
			continue
		}
		seen[x] = true
		v := make([]byte, 100)
		for j := range v {
			v[j] = byte(' ' + r.IntN(95))
		}
		out = append(out, KV{Key: fmt.Appendf(nil, "user%019d", x), Value: v})
	}
	return out
}

// CutBlocks cuts cells into runs of at least size raw bytes (key, value
// and 8 bytes of seq per cell), the last run possibly shorter: the cells
// of one block, the same for every engine compared.
func CutBlocks(cells []KV, size int) [][]KV {
	var out [][]KV
	start, raw := 0, 0
	for i, kv := range cells {
		raw += len(kv.Key) + len(kv.Value) + 8
		if raw >= size {
			out = append(out, cells[start:i+1])
			start, raw = i+1, 0
		}
	}
	if start < len(cells) {
		out = append(out, cells[start:])
	}
	return out
}
