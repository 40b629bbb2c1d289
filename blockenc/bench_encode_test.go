package blockenc_test

import (
	"fmt"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
)

// BenchmarkEncodeColumnar adds 150 distinct lineitem-like values (a 16
// KiB block) to a Columnar Encoder with DedupeValues and no compression,
// and finishes the block: the cost of encoding, apart from LZ4.
func BenchmarkEncodeColumnar(b *testing.B) {
	vals := make([][]byte, 4096)
	for i := range vals {
		vals[i] = []byte(fmt.Sprintf("%08d|1552|%d|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the %d", i, i*7, i*13))
	}
	o := blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 16, DedupeValues: true}
	e := blockenc.NewEncoder(o)
	key := make([]byte, 12)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Reset()
		for j, v := range vals[:150] {
			key[8], key[9] = byte(j>>8), byte(j)
			key[0] = byte(i)
			e.Add(blockenc.Cell{Key: key, Value: v, Seq: uint64(j + 1), Kind: blockenc.KindPut})
		}
		if _, err := e.Finish(); err != nil {
			b.Fatal(err)
		}
	}
}
