package wal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const docWAL = `02 2c01000000000000 03
		01 05 6170706c65 03 726564
		00 04 70656172
		02 01 62 01 64`

func docWALOps() []Op {
	return []Op{
		{Key: []byte("apple"), Value: []byte("red"), Kind: blockenc.KindPut},
		{Key: []byte("pear"), Kind: blockenc.KindDelete},
		{Key: []byte("b"), Value: []byte("d"), Kind: blockenc.KindDelete, Ranged: true},
	}
}

func docWALRecord() []byte { return Append(nil, 300, docWALOps()) }

func TestGoldenWAL(t *testing.T) {
	rec := docWALRecord()
	require.Equal(t, golden.Unhex(t, docWAL), rec[:len(rec)-4], "WAL record against the package doc")
	golden.Check(t, "wal-v2.bin", rec)
	assert.Len(t, rec, Size(docWALOps()))
	long := []Op{{Key: bytes.Repeat([]byte("k"), 200), Value: bytes.Repeat([]byte("v"), 20000), Kind: blockenc.KindPut}}
	assert.Len(t, Append(nil, 1<<40, long), Size(long))
	seq, ops, err := Decode(rec)
	require.NoError(t, err)
	assert.Equal(t, uint64(300), seq)
	want := docWALOps()
	want[1].Key = []byte("pear")
	assert.Equal(t, want, ops)
	// Every truncation and every flipped byte is ErrCorrupt.
	golden.RequireDecodeCorrupt(t, rec, func(b []byte) error { _, _, err := Decode(b); return err })

	// Version 1 records (no DeleteRange) are still read; a DeleteRange
	// in one is refused.
	v1 := golden.Read(t, "wal-v1.bin")
	seq, ops, err = Decode(v1)
	require.NoError(t, err)
	assert.Equal(t, uint64(300), seq)
	assert.Equal(t, docWALOps()[:2], ops)
	golden.RequireDecodeCorrupt(t, v1, func(b []byte) error { _, _, err := Decode(b); return err })
	bad := Append(nil, 300, docWALOps())
	bad[0] = 1
	bad = binary.LittleEndian.AppendUint32(bad[:len(bad)-4], crc32.Checksum(bad[:len(bad)-4], crcTable))
	_, _, err = Decode(bad)
	golden.RequireCorrupt(t, err, "DeleteRange in a version 1 record")
	// An empty range is corrupt.
	bad = Append(nil, 300, []Op{{Key: []byte("d"), Value: []byte("b"), Kind: blockenc.KindDelete, Ranged: true}})
	_, _, err = Decode(bad)
	golden.RequireCorrupt(t, err, "empty range")
}

// FuzzDecodeWAL: arbitrary bytes decode to an error wrapping ErrCorrupt
// or to ops that encode to a record that decodes to them again.
func FuzzDecodeWAL(f *testing.F) {
	f.Add(docWALRecord())
	if v1, err := os.ReadFile(filepath.Join("testdata", "wal-v1.bin")); err == nil {
		f.Add(v1)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		seq, ops, err := Decode(b)
		if err != nil {
			golden.RequireCorrupt(t, err)
			return
		}
		again := Append(nil, seq, ops)
		require.Len(t, again, Size(ops))
		seq2, ops2, err := Decode(again)
		require.NoError(t, err)
		require.Equal(t, seq, seq2)
		require.Equal(t, ops, ops2)
	})
}

// docWALFile is the package doc's WAL file example: the header, then one
// frame holding docWALRecord.
func docWALFile() []byte { return AppendFrame(Header(), docWALRecord()) }

func TestGoldenWALFile(t *testing.T) {
	b := docWALFile()
	require.Equal(t, golden.Unhex(t, "6b76656e6357414c 01 24000000"+docWAL), b[:len(b)-4], "WAL file against the package doc")
	golden.Check(t, "walfile-v1.bin", b)
	recs, err := DecodeFile(b)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, uint64(300), recs[0].Seq)
	assert.Equal(t, docWALRecord(), recs[0].B)
}

// TestWALFileTorn: a file cut anywhere in its last frame (or header) reads
// as the frames before the cut; a bad byte in a frame that is not the last
// one, or in the header, is ErrCorrupt.
// walFileOf returns a WAL file of records of seqs, one Put each.
func walFileOf(seqs ...uint64) []byte {
	b := Header()
	for _, seq := range seqs {
		b = AppendFrame(b, Append(nil, seq, []Op{{Key: fmt.Appendf(nil, "k%d", seq), Value: []byte("v"), Kind: blockenc.KindPut}}))
	}
	return b
}

func TestWALFileTorn(t *testing.T) {
	whole := walFileOf(5, 3, 9)
	two := len(walFileOf(5, 3))
	for cut := 0; cut < len(whole); cut++ {
		recs, err := DecodeFile(whole[:cut])
		require.NoError(t, err, "cut at %d", cut)
		want := 0
		switch {
		case cut >= two:
			want = 2
		case cut >= len(walFileOf(5)):
			want = 1
		}
		require.Len(t, recs, want, "cut at %d", cut)
	}
	// A bad last record is a torn write; the same record before another
	// one is corruption.
	last := append([]byte(nil), whole...)
	last[len(last)-1] ^= 1
	recs, err := DecodeFile(last)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	for _, off := range []int{headerLen + 6, two - 1} {
		bad := append([]byte(nil), whole...)
		bad[off] ^= 1
		_, err := DecodeFile(bad)
		golden.RequireCorrupt(t, err)
	}
	for _, off := range []int{0, len(magic)} {
		bad := append([]byte(nil), whole...)
		bad[off] ^= 1
		_, err := DecodeFile(bad)
		golden.RequireCorrupt(t, err)
	}
}

// FuzzDecodeWALFile: arbitrary bytes decode to an error wrapping
// ErrCorrupt or to records that each decode.
func FuzzDecodeWALFile(f *testing.F) {
	f.Add(docWALFile())
	f.Add(walFileOf(1, 2, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := DecodeFile(b)
		if err != nil {
			golden.RequireCorrupt(t, err)
			return
		}
		for _, r := range recs {
			seq, _, err := Decode(r.B)
			require.NoError(t, err)
			require.Equal(t, r.Seq, seq)
		}
	})
}

// TestSeal: a record appended unsealed and then sealed is the record
// Append makes, and Decode and SeqOf read its seq.
func TestSeal(t *testing.T) {
	ops := []Op{{Key: []byte("a"), Value: []byte("1"), Kind: blockenc.KindPut}, {Key: []byte("b"), Kind: blockenc.KindDelete}}
	rec := AppendUnsealed([]byte("xx"), ops)[2:]
	_, _, err := Decode(rec)
	require.ErrorIs(t, err, blockenc.ErrCorrupt, "unsealed")
	Seal(rec, 1<<40+7)
	assert.Equal(t, Append(nil, 1<<40+7, ops), rec)
	seq, got, err := Decode(rec)
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<40+7), seq)
	assert.Equal(t, uint64(1<<40+7), SeqOf(rec))
	assert.Len(t, got, 2)
}
