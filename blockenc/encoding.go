package blockenc

import (
	"errors"
	"strconv"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4dict"
)

// Encoding says how the cells of a block are laid out. The id is byte 1 of
// every block.
//
// Encoding values are part of the block format: never renumber or reuse them.
type Encoding uint8

const (
	// None stores every cell whole: key length, value length, key, value,
	// kind, seq. SeekGE scans forward from the block start.
	None Encoding = 0 // part of the format, never reuse
	// Prefix stores each key as the length it shares with the previous key
	// plus the rest. SeekGE scans forward from the block start.
	Prefix Encoding = 1 // part of the format, never reuse
	// Diff is Prefix plus a flags byte that omits the key length, value
	// length and kind when they equal the previous cell's.
	Diff Encoding = 2 // part of the format, never reuse
	// FastDiff is Diff with a denser flags byte (suffix length, kind and
	// "same value as previous" packed in it): the smallest encoding here.
	FastDiff Encoding = 3 // part of the format, never reuse
	// RowIndex is Prefix restarted every RestartInterval cells, with an
	// array of restart offsets: SeekGE binary-searches the restarts and then
	// scans at most one interval.
	RowIndex Encoding = 4 // part of the format, never reuse
	// Columnar stores keys (prefix-compressed with restarts, as RowIndex),
	// seqs, kinds and values as separate columns; values inline, as an
	// integer column or as a dictionary, whichever is smallest.
	Columnar Encoding = 5 // part of the format, never reuse
)

// String returns the encoding's lower-case name ("none", "prefix", "diff",
// "fastdiff", "rowindex", "columnar") or "Encoding(n)".
func (e Encoding) String() string {
	switch e {
	case None:
		return "none"
	case Prefix:
		return "prefix"
	case Diff:
		return "diff"
	case FastDiff:
		return "fastdiff"
	case RowIndex:
		return "rowindex"
	case Columnar:
		return "columnar"
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// IsValid reports whether e is an encoding this package can write and read.
func (e Encoding) IsValid() bool { return e <= Columnar }

// Encodings lists every valid encoding in id order.
func Encodings() []Encoding { return []Encoding{None, Prefix, Diff, FastDiff, RowIndex, Columnar} }

// DefaultRestartInterval is the RowIndex restart interval used when
// Options.RestartInterval is 0.
const DefaultRestartInterval = 16

// Options configure an Encoder.
type Options struct {
	// Encoding is the cell layout. The zero value is None; DefaultOptions
	// picks RowIndex.
	Encoding Encoding
	// RestartInterval is the number of cells between restart points
	// (cells whose key is stored whole) of RowIndex blocks and of
	// Columnar blocks with prefix-compressed keys. 0 means
	// DefaultRestartInterval (16); it must be at most 65536. The other
	// encodings ignore it.
	RestartInterval int
	// Compression compresses the cells (Columnar: the value area) with
	// LZ4, whole (LZ4) or as sub-blocks against a preset dictionary
	// (LZ4Dict). The zero value, NoCompression, compresses nothing. Cells
	// that compressing does not make smaller are stored as they are.
	Compression Compression
	// DedupeValues writes a value equal to one seen earlier in the block
	// (or in the same LZ4Dict sub-block) as a back-reference to it, found
	// through a small lossy hash table. Default false.
	DedupeValues bool
	// IntValues stores the values as one shapeshift integer column when
	// every value of the block has the same width, 1, 2, 4 or 8 bytes (read
	// as a big-endian unsigned integer; 8 bytes as the bits of an int64)
	// and that makes the block smaller, and the seqs as a second column
	// when that makes it smaller still. Add then encodes the cells three
	// times (values inline, without values, without values and seqs) until
	// a value of another width arrives. Columnar blocks ignore it (they
	// choose their value forms themselves), and DedupeValues too. Default
	// false.
	IntValues bool
	// CompressionLevel is how hard LZ4 and LZ4Dict look for matches: 0
	// (the default) is LZ4's fast greedy parse; 1..9 search hash chains
	// 1<<(level-1) deep with lazy matching (9 is LZ4HC's usual depth);
	// 10..MaxCompressionLevel parse optimally. Higher levels make blocks
	// smaller and encoding slower (BenchmarkCompress in
	// internal/lz4dict); reading is as fast at every level, the blocks
	// being plain LZ4. Not recorded in the block. Default 0.
	CompressionLevel int
	// Dict, with Compression LZ4Dict, is the preset dictionary of the
	// cells (Columnar: the value area): they are cut into sub-blocks of
	// about 1 KiB, each compressed against Dict, and the block stores no
	// dictionary of its own, only Dict's ID (format version 3; Columnar
	// version 4, with a checksum per sub-block). Read such blocks with
	// Seeker.InitDict and the same Dict. Other compressions with a Dict
	// are ErrInvalidOptions. Default nil: LZ4Dict keeps its
	// dictionary in the block.
	Dict *Dict
}

// MaxCompressionLevel is the highest Options.CompressionLevel.
const MaxCompressionLevel = lz4dict.LevelMax

// Compression is how the cells of a block are compressed. The id is part
// of the Options, not of the block: a block says which it uses in its
// flags byte.
//
// Compression values are part of the format (they are the flag bit
// numbers plus one): never renumber or reuse them.
type Compression uint8

const (
	// NoCompression stores the cells as they are.
	NoCompression Compression = 0 // part of the format, never reuse
	// LZ4 compresses the cells of the block as one LZ4 block. A Seeker
	// decompresses them all in Init.
	LZ4 Compression = 1 // part of the format, never reuse
	// LZ4Dict cuts the cells into sub-blocks of about 8 KiB; the first
	// is compressed alone and is the preset dictionary of every later one,
	// Lucene's layout (LUCENE-9447). A SeekGE decompresses the dictionary
	// and one sub-block.
	LZ4Dict Compression = 2 // part of the format, never reuse
)

// String returns "none", "lz4", "lz4dict" or "Compression(n)".
func (c Compression) String() string {
	switch c {
	case NoCompression:
		return "none"
	case LZ4:
		return "lz4"
	case LZ4Dict:
		return "lz4dict"
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// IsValid reports whether c is a compression this package knows.
func (c Compression) IsValid() bool { return c <= LZ4Dict }

// Compressions lists every valid compression in id order.
func Compressions() []Compression { return []Compression{NoCompression, LZ4, LZ4Dict} }

// DefaultOptions returns RowIndex with a restart interval of 16.
//
// RowIndex is the default because seeks dominate the read path and it is
// the only row encoding whose SeekGE does not grow with the block, while
// its Next is as fast as the others'. Its restarts cost bytes that
// FastDiff saves: choose FastDiff for cold data that is mostly scanned
// (BenchmarkBlock measures both).
func DefaultOptions() Options {
	return Options{Encoding: RowIndex, RestartInterval: DefaultRestartInterval}
}

// Errors. Every error about block bytes wraps ErrCorrupt and says where.
var (
	// ErrCorrupt: the block bytes are not a valid block (bad checksum,
	// truncation, bad structure, unknown version, encoding or flags).
	ErrCorrupt = frame.ErrCorrupt
	// ErrOutOfOrder: Add was given a cell that does not sort after the
	// previous one (key ascending, then seq descending; no duplicates).
	ErrOutOfOrder = errors.New("blockenc: cell out of order")
	// ErrTooLarge: a key, value, seq or block beyond the format's limits.
	ErrTooLarge = errors.New("blockenc: too large")
	// ErrInvalidKind: a cell whose Kind is neither KindPut nor KindDelete.
	ErrInvalidKind = errors.New("blockenc: invalid kind")
	// ErrInvalidOptions: an Encoder built with an invalid encoding or
	// restart interval; Add and Finish return it.
	ErrInvalidOptions = errors.New("blockenc: invalid options")
)
