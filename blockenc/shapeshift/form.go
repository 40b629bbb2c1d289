package shapeshift

import (
	"errors"
	"strconv"
)

// ErrCorrupt is wrapped by every error that Decode and Open return for
// malformed, truncated or checksum-failing input; test with errors.Is.
var ErrCorrupt = errors.New("shapeshift: corrupt column")

// Version is the newest format version, written in byte 0 of a column.
// Encode writes version 1 unless a chunk is PatchedDelta (new in version
// 2), so columns that version 1 can hold keep their version 1 bytes; Decode
// and Open read both. EncodeFloat64 and EncodeFloat32 write version 3, a
// float column, or version 4 when one of its integer chunks is Huffman (new
// in version 4); only the float decoders read them (and they read nothing
// else).
const Version = 4

// Chunk size limits, as log2 of the number of values per chunk.
const (
	MinLogChunkSize     = 8
	MaxLogChunkSize     = 16
	DefaultLogChunkSize = 14
	// DefaultFloatLogChunkSize is the default of float columns: chunks of
	// 1024 values, each with its own exponent, factor or dictionary.
	DefaultFloatLogChunkSize = 10
)

// MaxLen is the largest number of values one column may hold. It keeps every
// chunk offset (a uint32) in range even if every chunk were stored Raw.
const MaxLen = 1 << 28

// Form is how one chunk is stored. Form values are written into columns:
// they are part of the format, never renumber or reuse them.
type Form uint8

const (
	Zero      Form = 0 // part of the format, never reuse: every value is 0
	Constant  Form = 1 // part of the format, never reuse: every value equals one int64
	BytePack  Form = 2 // part of the format, never reuse: min + w-byte offsets, w 1..8
	BitPack   Form = 3 // part of the format, never reuse: min + b-bit offsets, b 1..64
	Delta     Form = 4 // part of the format, never reuse: first + bit-packed deltas
	RunLength Form = 5 // part of the format, never reuse: (length, value) runs
	Patched   Form = 6 // part of the format, never reuse: bit-packed with exceptions
	LZ4       Form = 7 // part of the format, never reuse: LZ4 block over a BytePack body
	Raw       Form = 8 // part of the format, never reuse: 8-byte little-endian values (float columns: 8 or 4)
	// PatchedDelta is Delta with exceptions (version 2), part of the format,
	// never reuse: first + bit-packed deltas, the wide ones patched.
	PatchedDelta Form = 9
	// Decimal is a float chunk (version 3), part of the format, never
	// reuse: the values as decimals, an integer chunk of their digits and
	// the exceptions.
	Decimal Form = 10
	// FrontBits is a float chunk (version 3), part of the format, never
	// reuse: the values' front bits through a dictionary, the rest as an
	// integer chunk, and the exceptions.
	FrontBits Form = 11
	// Huffman is an integer chunk of float columns (version 4), part of
	// the format, never reuse: residuals as canonical Huffman codes of
	// literals and bit-length buckets.
	Huffman Form = 12

	numForms    = 13
	numIntForms = 10 // forms of integer chunks, 0..9
)

var formNames = [numForms]string{"Zero", "Constant", "BytePack", "BitPack", "Delta", "RunLength", "Patched", "LZ4", "Raw", "PatchedDelta", "Decimal", "FrontBits", "Huffman"}

// String returns the form's name, or "Form(n)" for an unknown value.
func (f Form) String() string {
	if f.IsValid() {
		return formNames[f]
	}
	return "Form(" + strconv.Itoa(int(f)) + ")"
}

// IsValid reports whether f is a form this version of the format knows.
func (f Form) IsValid() bool { return f < numForms }

// Target says what the encoder optimises for when it picks a chunk's form.
// Targets are not written into columns.
type Target uint8

const (
	// Balanced (the default) takes the smallest form unless a faster form
	// is within a few percent of its size.
	Balanced Target = 0
	// Smaller takes the smallest form; ties go to the faster one.
	Smaller Target = 1
	// Faster gives up more size for forms that decode faster, favouring
	// forms that Get reads in place.
	Faster Target = 2

	numTargets = 3
)

var targetNames = [numTargets]string{"Balanced", "Smaller", "Faster"}

// String returns the target's name, or "Target(n)".
func (t Target) String() string {
	if t.IsValid() {
		return targetNames[t]
	}
	return "Target(" + strconv.Itoa(int(t)) + ")"
}

// IsValid reports whether t is a known target.
func (t Target) IsValid() bool { return t < numTargets }

// Options control Encode. The zero value means the defaults.
type Options struct {
	// Target is what form selection optimises for. Default Balanced; an
	// unknown value is treated as Balanced.
	Target Target
	// LogChunkSize is log2 of the values per chunk, MinLogChunkSize (8) to
	// MaxLogChunkSize (16). 0 means DefaultLogChunkSize (14) for integer
	// columns and DefaultFloatLogChunkSize (10) for float columns; other
	// values out of range are clamped.
	LogChunkSize int
}

// DefaultOptions returns the options the zero value stands for in Encode
// (float columns default to DefaultFloatLogChunkSize).
func DefaultOptions() Options {
	return Options{Target: Balanced, LogChunkSize: DefaultLogChunkSize}
}

// normalizedFloat is normalized for float columns, whose default chunk
// size is DefaultFloatLogChunkSize.
func (o Options) normalizedFloat() Options {
	if o.LogChunkSize == 0 {
		o.LogChunkSize = DefaultFloatLogChunkSize
	}
	return o.normalized()
}

func (o Options) normalized() Options {
	if !o.Target.IsValid() {
		o.Target = Balanced
	}
	switch {
	case o.LogChunkSize == 0:
		o.LogChunkSize = DefaultLogChunkSize
	case o.LogChunkSize < MinLogChunkSize:
		o.LogChunkSize = MinLogChunkSize
	case o.LogChunkSize > MaxLogChunkSize:
		o.LogChunkSize = MaxLogChunkSize
	}
	return o
}
