package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// smallCells is a short block's worth of cells that exercises every flag:
// versions, deletes, repeated and empty values, a long suffix, big seqs.
func smallCells() []blockenc.Cell {
	rng := rand.New(rand.NewPCG(9, 10))
	var cells []blockenc.Cell
	for i, k := range []string{"", "a", "abc", "abc", "abcd", "abcdefghijklmnopqrstuvwxyz", "abd", "b"} {
		c := blockenc.Cell{Key: []byte(k), Seq: uint64(100 - i), Kind: blockenc.KindPut, Value: []byte("v")}
		switch i % 4 {
		case 1:
			c.Kind, c.Value = blockenc.KindDelete, nil
		case 2:
			c.Seq = 1<<40 - uint64(i)
			c.Value = randBytes(rng, 20)
		}
		cells = append(cells, c)
	}
	return sortCells(cells)
}

// fixCRC recomputes the checksums of a changed block: its trailer, or a
// version 4 block's trailer and sub-block checksums (with readDict) when
// it parses that far.
func fixCRC(b []byte) {
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
		blockenc.FixChecksums(b, readDict)
	}
}

// exercise drives a seeker over block through every kind of move and
// reports whether it saw an error; any error must wrap ErrCorrupt.
func exercise(t *testing.T, block []byte) error {
	t.Helper()
	s, err := newSeeker(block)
	if err != nil {
		require.ErrorIs(t, err, blockenc.ErrCorrupt, "NewSeeker")
		return err
	}
	var keys [][]byte
	for ok := s.First(); ok; ok = s.Next() {
		keys = append(keys, bytes.Clone(s.Cell().Key))
	}
	for i, k := range append(keys, nil, []byte("abc"), []byte("zzz")) {
		s.SeekGE(k)
		s.Next()
		if i%4 == 0 || i >= len(keys) {
			s.SeekLT(k)
			s.Prev()
			s.Next()
		}
	}
	for ok := s.Last(); ok; ok = s.Prev() {
	}
	if err := s.Err(); err != nil {
		require.ErrorIs(t, err, blockenc.ErrCorrupt, "Err")
	}
	return s.Err()
}

// TestCorruptBytes: every single-byte change and every truncation of a
// block is an error from NewSeeker, never a panic.
func TestCorruptBytes(t *testing.T) {
	cells := smallCells()
	for _, opts := range allOptions() {
		block := encode(t, opts, cells)
		require.NoError(t, exercise(t, block), "%s: good block fails", optName(opts))
		requireFlipsAndCutsCorrupt(t, block, optName(opts), 0x01, 0x80, 0xff, 0x5a)
	}
}

// TestHostileBlocks: blocks whose checksum is right but whose contents were
// changed (what a fuzzer can build) never panic; moves stop with an error
// wrapping ErrCorrupt, or give cells that Verify accepts.
func TestHostileBlocks(t *testing.T) {
	cells := smallCells()
	errs, oks := 0, 0
	for _, opts := range allOptions() {
		block := encode(t, opts, cells)
		e, o := replaceBytes(t, block, 0, 1, 2, 3, 4, 5, 0x0f, 0x10, 0x40, 0x7f, 0x80, 0x8e, 0xc1, 0xff)
		errs, oks = errs+e, oks+o
		for n := 4; n < len(block); n++ { // truncated, checksum recomputed
			tr := bytes.Clone(block[:n])
			fixCRC(tr)
			exercise(t, tr)
		}
	}
	require.NotZero(t, errs, "hostile blocks: %d errors, %d accepted: expected both", errs, oks)
	require.NotZero(t, oks, "hostile blocks: %d errors, %d accepted: expected both", errs, oks)
}

// replaceBytes sets every byte of block before its CRC to each of values
// in turn, fixes the CRC up and reads the result: it counts the blocks a
// read refuses (errs) and those Verify accepts (oks), whose seeks must then
// agree with their scan.
func replaceBytes(t *testing.T, block []byte, values ...byte) (errs, oks int) {
	t.Helper()
	bad := bytes.Clone(block)
	for i := range len(block) - 4 {
		for _, v := range values {
			bad[i] = v
			fixCRC(bad)
			if exercise(t, bad) != nil {
				errs++
			} else if blockenc.Verify(bad) == nil {
				oks++
				checkConsistent(t, bad)
			}
			copy(bad, block)
		}
	}
	return errs, oks
}

// checkConsistent checks a block Verify accepts: every seek agrees with a
// binary search over the cells a full scan returns.
func checkConsistent(t *testing.T, block []byte) {
	t.Helper()
	s, err := newSeeker(block)
	require.NoError(t, err)
	var cells []blockenc.Cell
	for ok := s.First(); ok; ok = s.Next() {
		c := s.Cell()
		cells = append(cells, blockenc.Cell{Key: bytes.Clone(c.Key), Value: bytes.Clone(c.Value), Seq: c.Seq, Kind: c.Kind})
	}
	for i, k := range seekTargets(cells) {
		checkSeek(t, s, cells, k)
		if i%3 == 0 {
			checkSeekLT(t, s, cells, k)
		}
	}
	checkAllReverse(t, s, cells)
}

// TestCorruptHeader: specific header faults give specific errors.
func TestCorruptHeader(t *testing.T) {
	good := encode(t, blockenc.Options{Encoding: blockenc.RowIndex, RestartInterval: 2}, smallCells())
	for _, tc := range []struct {
		name string
		mod  func(b []byte) []byte
	}{
		{"version", func(b []byte) []byte { b[0] = 2; return b }},
		{"encoding 5", func(b []byte) []byte { b[1] = 5; return b }},
		{"flags", func(b []byte) []byte { b[2] = 1; return b }},
		{"count too big", func(b []byte) []byte { b[3] = 0x7f; return b }},
		{"count too small", func(b []byte) []byte { b[3]--; return b }},
		{"interval 0", func(b []byte) []byte { b[4] = 0; return b }},
		{"restart 0 not at 0", func(b []byte) []byte { b[len(b)-4-4*4] = 1; return b }},
		{"restarts not increasing", func(b []byte) []byte { b[len(b)-4-4*3] = 0; return b }},
		{"restart not on a cell", func(b []byte) []byte { b[len(b)-4-4*3]++; return b }},
		{"trailing byte", func(b []byte) []byte { return append(b[:len(b)-4], 0, 0, 0, 0, 0) }},
	} {
		b := tc.mod(bytes.Clone(good))
		fixCRC(b)
		assert.ErrorIs(t, blockenc.Verify(b), blockenc.ErrCorrupt, "%s: Verify", tc.name)
	}
}

// requireFlipsAndCutsCorrupt requires NewSeeker to refuse block with every
// byte XORed with each of xs, and every truncation of it, with ErrCorrupt;
// for a version 4 block, NewSeeker or a read of every cell.
func requireFlipsAndCutsCorrupt(t *testing.T, block []byte, name string, xs ...byte) {
	t.Helper()
	bad := bytes.Clone(block)
	for i := range block {
		for _, x := range xs {
			bad[i] ^= x
			require.ErrorIs(t, refuse(t, bad), blockenc.ErrCorrupt, "%s: byte %d ^ %#x", name, i, x)
			bad[i] ^= x
		}
	}
	for n := range len(block) {
		require.ErrorIs(t, refuse(t, block[:n]), blockenc.ErrCorrupt, "%s: truncated to %d bytes", name, n)
	}
}

// refuse returns NewSeeker's error for a changed block; a version 4
// block's sub-blocks are checked when they are decompressed, so for it a
// read of every cell may give the error instead.
func refuse(t *testing.T, bad []byte) error {
	t.Helper()
	_, err := newSeeker(bad)
	if err == nil && len(bad) > 0 && bad[0] == 4 {
		err = exercise(t, bad)
	}
	return err
}
