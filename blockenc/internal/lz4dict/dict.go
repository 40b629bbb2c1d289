package lz4dict

// Dict is a preset dictionary prepared once for many CompressBlockDict
// calls: its bytes (at most MaxDictLen, the farthest an offset reaches).
// It is immutable and safe for concurrent use by many Compressors.
type Dict struct {
	b []byte
}

// NewDict returns a Dict of the last MaxDictLen bytes of b (a copy).
func NewDict(b []byte) *Dict {
	if len(b) > MaxDictLen {
		b = b[len(b)-MaxDictLen:]
	}
	return &Dict{b: append([]byte(nil), b...)}
}

// Bytes returns the dictionary's bytes; do not modify them.
func (d *Dict) Bytes() []byte { return d.b }

// CompressBlockDict is CompressBlock(dst, src, d.Bytes()): the output
// decodes with pierrec/lz4/v4's UncompressBlockWithDict(out, dst,
// d.Bytes()).
func (c *Compressor) CompressBlockDict(dst, src []byte, d *Dict) []byte {
	return c.CompressBlock(dst, src, d.b)
}
