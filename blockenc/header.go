package blockenc

import (
	"fmt"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
)

// Header is what the first bytes of a block say about it.
type Header struct {
	Encoding Encoding
	// Compression is how the cells (row encodings) or the value area
	// (Columnar) are compressed.
	Compression Compression
	// Cells is the block's cell count (the count after the flags).
	Cells int
}

// ReadHeader reads a block's header without checking the rest of the block
// (NewSeeker and Verify do that). It returns an error wrapping ErrCorrupt
// for a block too short to have a header or whose count does not parse.
func ReadHeader(block []byte) (Header, error) {
	h, err := frame.Peek(block)
	if err != nil {
		return Header{}, err
	}
	c := NoCompression
	switch {
	case h.Flags&frame.FlagLZ4 != 0:
		c = LZ4
	case h.Flags&frame.FlagLZ4Dict != 0:
		c = LZ4Dict
	}
	n, off := frame.ReadLen(block[:len(block)-frame.TrailerLen], 3)
	if off < 0 {
		return Header{}, fmt.Errorf("%w: block header: bad cell count", ErrCorrupt)
	}
	return Header{Encoding: Encoding(h.Encoding), Compression: c, Cells: n}, nil
}

// Buffered reports whether a Seeker decodes such a block into buffers of
// its own besides the block (decompressed cells, a Columnar block's
// columns): memory a block cache holding Seekers should count.
func (h Header) Buffered() bool {
	return h.Compression != NoCompression || h.Encoding == Columnar
}
