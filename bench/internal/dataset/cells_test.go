package dataset

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func TestLineitemCells(t *testing.T) {
	set := &LineitemSet{text: []byte("NONE|AIR|quick fox")}
	set.Rows = []Lineitem{{OrderKey: 7, LineNumber: 3, PartKey: 11, SuppKey: 12, Quantity: 5, ExtendedPrice: 12345,
		Discount: 4, Tax: 2, ReturnFlag: 'N', LineStatus: 'O', ShipDate: 1, CommitDate: 2, ReceiptDate: 3,
		text: [2]uint32{0, 18}}}
	kvs := LineitemCells(set, 10)
	if len(kvs) != 1 {
		t.Fatalf("%d cells", len(kvs))
	}
	wantKey := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 7), 3)
	if !bytes.Equal(kvs[0].Key, wantKey) {
		t.Errorf("key %x, want %x", kvs[0].Key, wantKey)
	}
	if got, want := string(kvs[0].Value), "11|12|5|123.45|0.04|0.02|N|O|1|2|3|NONE|AIR|quick fox|"; got != want {
		t.Errorf("value %q, want %q", got, want)
	}
}

func TestSeriesAndYCSBCellsDistinct(t *testing.T) {
	for name, kvs := range map[string][]KV{"series": SeriesCells(1000), "ycsb": YCSBCells(3000)} {
		seen := map[string]bool{}
		for _, kv := range kvs {
			if seen[string(kv.Key)] {
				t.Fatalf("%s: duplicate key %q", name, kv.Key)
			}
			seen[string(kv.Key)] = true
		}
		if len(kvs) != map[string]int{"series": 3000, "ycsb": 3000}[name] {
			t.Errorf("%s: %d cells", name, len(kvs))
		}
	}
	if v := YCSBCells(1)[0].Value; len(v) != 100 {
		t.Errorf("ycsb value of %d bytes", len(v))
	}
}

func TestLineitemRowCells(t *testing.T) {
	set := &LineitemSet{text: []byte("NONE|AIR|quick fox")}
	set.Rows = []Lineitem{{OrderKey: 7, LineNumber: 3, PartKey: 11, SuppKey: 12, Quantity: 5, ExtendedPrice: 12345,
		Discount: 4, Tax: 2, ReturnFlag: 'N', LineStatus: 'O', ShipDate: 9204, CommitDate: 9205, ReceiptDate: 9206,
		text: [2]uint32{0, 18}}}
	kvs := LineitemRowCells(set, 0)
	if len(kvs) != 1 || kvs[0].Seq != 1<<40 {
		t.Fatalf("%d cells, %+v", len(kvs), kvs)
	}
	want := []byte{0, 0, 0, 11, 0, 0, 0, 12, 5, 0, 0, 0, 0, 0, 0, 0x30, 0x39, 4, 2, 'N', 'O'}
	want = append(want, "1995-03-15"+"1995-03-16"+"1995-03-17"...)
	want = append(want, "\x04NONE\x03AIR\x09quick fox"...)
	if !bytes.Equal(kvs[0].Value, want) {
		t.Errorf("value\n%q, want\n%q", kvs[0].Value, want)
	}
	if k := kvs[0].Key; len(k) != 12 || binary.BigEndian.Uint64(k) != 7 || binary.BigEndian.Uint32(k[8:]) != 3 {
		t.Errorf("key %x", k)
	}
}

func TestSeriesIDCells(t *testing.T) {
	kvs := SeriesIDCells(4, 50)
	if len(kvs) != 200 {
		t.Fatalf("%d cells", len(kvs))
	}
	seqs := map[uint64]bool{}
	for i, kv := range kvs {
		if len(kv.Key) != 16 || len(kv.Value) != 8 {
			t.Fatalf("cell %d: %d-byte key, %d-byte value", i, len(kv.Key), len(kv.Value))
		}
		if i > 0 && bytes.Compare(kvs[i-1].Key, kv.Key) >= 0 {
			t.Fatalf("keys %d and %d not ascending", i-1, i)
		}
		seqs[kv.Seq] = true
	}
	if len(seqs) != len(kvs) {
		t.Errorf("%d distinct seqs for %d cells", len(seqs), len(kvs))
	}
	// Counters (even series) never fall.
	for i := 1; i < 50; i++ {
		if binary.BigEndian.Uint64(kvs[i].Value) < binary.BigEndian.Uint64(kvs[i-1].Value) {
			t.Fatalf("counter fell at tick %d", i)
		}
	}
	if again := SeriesIDCells(4, 50); !bytes.Equal(again[123].Value, kvs[123].Value) {
		t.Error("not deterministic")
	}
}

// TestCutBlocks: runs cover every cell in order, every run but the last
// reaches the size and would not without its last cell.
func TestCutBlocks(t *testing.T) {
	var cells []KV
	for i := range 1000 {
		cells = append(cells, KV{Key: make([]byte, 8+i%7), Value: make([]byte, i%50)})
	}
	raw := func(kvs []KV) (n int) {
		for _, kv := range kvs {
			n += len(kv.Key) + len(kv.Value) + 8
		}
		return n
	}
	blocks := CutBlocks(cells, 4096)
	n := 0
	for i, b := range blocks {
		if &b[0] != &cells[n] {
			t.Fatalf("block %d does not start at cell %d", i, n)
		}
		n += len(b)
		if i < len(blocks)-1 && (raw(b) < 4096 || raw(b[:len(b)-1]) >= 4096) {
			t.Fatalf("block %d: %d raw bytes, %d without its last cell", i, raw(b), raw(b[:len(b)-1]))
		}
	}
	if n != len(cells) || len(blocks) < 2 {
		t.Fatalf("%d blocks hold %d of %d cells", len(blocks), n, len(cells))
	}
}
