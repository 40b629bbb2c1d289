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
