package blockenc

import (
	"github.com/kvenc/kvenc/blockenc/internal/colblk"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/lz4area"
)

// SetSubBlockSizes sets the LZ4Dict dictionary and sub-block sizes the
// encoder cuts at, and returns a function that restores them.
var SetSubBlockSizes = lz4area.SetSizes

// Flags returns the flags byte of a block.
func Flags(block []byte) byte { return block[2] }

// Feature flag bits, for tests.
const (
	FlagLZ4        = frame.FlagLZ4
	FlagLZ4Dict    = frame.FlagLZ4Dict
	FlagValueDedup = frame.FlagValueDedup
	FlagIntValues  = frame.FlagIntValues
)

// SetDictAsLiterals chooses how LZ4Dict sub-blocks are decoded, and returns
// a function that restores the choice.
var SetDictAsLiterals = lz4area.SetDictAsLiterals

// SetExtSubBlockSize sets the size of the sub-blocks of value areas
// compressed against a Dict, and returns a function that restores it.
var SetExtSubBlockSize = lz4area.SetExtSize

// FixChecksums sets a version 4 Columnar block's trailer and sub-block
// checksums to match its bytes (d: its Dict) and reports whether it
// parsed; for tests that change blocks on purpose.
func FixChecksums(block []byte, d *Dict) bool {
	if d == nil {
		return false
	}
	return colblk.FixChecksums(block, d.d)
}

// FlagExtDict is the flag of a block compressed against a Dict.
const FlagExtDict = frame.FlagExtDict
