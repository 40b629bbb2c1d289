package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
)

// FuzzColumnarForms round-trips cells built from the input through a
// Columnar encoder with small LZ4Dict sub-blocks, so that the forms added
// in format version 2 (packed keys and values, LZ4Dict value areas) come
// up: fixed-length keys and values when the input's first byte says so,
// at every compression level. Every block must verify, read back, seek
// and allocate nothing per move (conform); FuzzBlockDecode
// (fuzz/blockenc_test.go) has the golden blocks of these forms as seeds
// for arbitrary bytes.
func FuzzColumnarForms(f *testing.F) {
	defer blockenc.SetSubBlockSizes(16, 24)()
	f.Add([]byte("\x07 the quick brown fox jumps over the lazy dog, 1995-03-13 1996-01-02"))
	f.Add(bytes.Repeat([]byte{0x03, 0x10, 0x20, 0x31, 0x42}, 40))
	f.Add(bytes.Repeat([]byte{0x1c, 0xff, 0x00, 0x7f}, 90))
	levels := []int{0, 1, 9, 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		mode, data := data[0], data[1:]
		fixedKeys, fixedVals := mode&1 != 0, mode&2 != 0
		opts := blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict,
			RestartInterval: 1 + int(mode>>5), CompressionLevel: levels[mode>>3&3]}
		if mode&4 != 0 {
			opts.Compression = blockenc.LZ4
		}
		var cells []blockenc.Cell
		var sum uint64
		for i := 0; i < len(data) && len(cells) < 300; i++ {
			d := data[i]
			sum += 1 + uint64(d%5)
			k := binary.BigEndian.AppendUint64(nil, sum)
			if !fixedKeys {
				k = append(k, bytes.Repeat([]byte{'x'}, int(d%3))...)
			}
			var v []byte
			if fixedVals {
				v = append(v, data[i:min(i+6, len(data))]...)
				v = append(v, make([]byte, 6-len(v))...)
			} else {
				v = data[i:min(i+int(d%23), len(data))]
			}
			cells = append(cells, blockenc.Cell{Key: k, Value: v, Seq: uint64(d) << (d % 40), Kind: blockenc.Kind(min(1, d%11))})
		}
		if len(cells) == 0 {
			return
		}
		block := encode2(t, opts, cells)
		var s blockenc.Seeker
		conform(t, &s, rand.New(rand.NewPCG(uint64(len(data)), 1)), block, cells)
	})
}
