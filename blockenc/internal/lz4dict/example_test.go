package lz4dict_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pierrec/lz4/v4"

	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
)

// Compress a block at the default high-compression level against a
// dictionary, and decode it with pierrec's decoder.
func ExampleCompressor_CompressBlock() {
	words := strings.Fields("furiously carefully final regular deposits packages sleep haggle above the")
	dict := []byte(strings.Join(words, " "))
	var src []byte
	for i := 0; i < 200; i++ { // 4-word sentences, shuffled, repeating every 10
		src = fmt.Appendf(src, "%s %s %s %s. ", words[i%10], words[i*7%10], words[i*3%10], words[i*i%10])
	}

	c := lz4dict.Compressor{Level: lz4dict.LevelHC} // reuse c: its buffers are kept
	fast := (&lz4dict.Compressor{}).CompressBlock(nil, src, dict)
	hc := c.CompressBlock(nil, src, dict)

	out := make([]byte, len(src))
	n, err := lz4.UncompressBlockWithDict(hc, out, dict)
	fmt.Println(len(src), len(fast), len(hc), err, bytes.Equal(out[:n], src))
	// Output:
	// 6240 162 140 <nil> true
}
