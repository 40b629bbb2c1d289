package lz4dict_test

import (
	"bytes"
	"fmt"

	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
	"github.com/pierrec/lz4/v4"
)

// Compress a block at the default high-compression level against a
// dictionary, and decode it with pierrec's decoder.
func ExampleCompressor_CompressBlock() {
	dict := []byte("1995-03-13|1995-03-14|1996-11-02|")
	src := bytes.Repeat([]byte("1995-03-14|1996-11-02|1995-03-13|"), 20)

	c := lz4dict.Compressor{Level: lz4dict.LevelHC} // reuse c: its buffers are kept
	fast := (&lz4dict.Compressor{}).CompressBlock(nil, src, dict)
	hc := c.CompressBlock(nil, src, dict)

	out := make([]byte, len(src))
	n, err := lz4.UncompressBlockWithDict(hc, out, dict)
	fmt.Println(len(src), len(fast), len(hc), err, bytes.Equal(out[:n], src))
	// Output:
	// 660 20 17 <nil> true
}
