package kv

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/ (a format change)")

// The worked examples of the package doc, derived by hand from the format
// description, without the CRC trailer.
const (
	docWAL = `01 2c01000000000000 02
		01 05 6170706c65 03 726564
		00 04 70656172`
	docMeta = `01 0700000000000000 2c01000000000000 0100000000000000 2c01000000000000
		0200000000000000 e803000000000000 2003000000000000 409c000000000000
		05 6170706c65 04 70656172`
)

func docWALRecord() []byte {
	return appendWAL(nil, 300, []op{
		{key: []byte("apple"), value: []byte("red"), kind: blockenc.KindPut},
		{key: []byte("pear"), kind: blockenc.KindDelete},
	})
}

func docSegMeta() segMeta {
	return segMeta{id: 7, walSeq: 300, minSeq: 1, maxSeq: 300, blocks: 2, cells: 1000, keys: 800, bytes: 40000,
		firstKey: []byte("apple"), lastKey: []byte("pear")}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	require.NoError(t, err)
	return b
}

// checkGolden compares got with testdata/name (rewriting it with -rewrite)
// and reports the first differing offset.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewrite {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		require.Failf(t, "golden file differs", "%s: first difference at offset %d (got %d bytes, want %d): a format change needs -rewrite", name, i, len(got), len(want))
	}
}

func TestGoldenWAL(t *testing.T) {
	rec := docWALRecord()
	require.Equal(t, unhex(t, docWAL), rec[:len(rec)-4], "WAL record against the package doc")
	checkGolden(t, "wal-v1.bin", rec)
	seq, ops, err := decodeWAL(rec)
	require.NoError(t, err)
	assert.Equal(t, uint64(300), seq)
	require.Len(t, ops, 2)
	assert.Equal(t, op{key: []byte("apple"), value: []byte("red"), kind: blockenc.KindPut}, ops[0])
	assert.Equal(t, blockenc.KindDelete, ops[1].kind)
	assert.Equal(t, "pear", string(ops[1].key))
	// Every truncation and every flipped byte is ErrCorrupt.
	for i := 0; i < len(rec); i++ {
		_, _, err := decodeWAL(rec[:i])
		requireCorrupt(t, err, "truncated to %d", i)
		b := bytes.Clone(rec)
		b[i] ^= 0x10
		_, _, err = decodeWAL(b)
		requireCorrupt(t, err, "byte %d flipped", i)
	}
}

func TestGoldenMeta(t *testing.T) {
	m := docSegMeta()
	b := m.append(nil)
	require.Equal(t, unhex(t, docMeta), b[:len(b)-4], "meta against the package doc")
	checkGolden(t, "meta-v1.bin", b)
	got, err := decodeMeta(b)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	for i := 0; i < len(b); i++ {
		_, err := decodeMeta(b[:i])
		requireCorrupt(t, err, "truncated to %d", i)
		c := bytes.Clone(b)
		c[i] ^= 0x10
		_, err = decodeMeta(c)
		requireCorrupt(t, err, "byte %d flipped", i)
	}
}

// The Badger key layout of the package doc (key layout 2), pinned by
// testdata/keys-v2.bin: the doc's example keys, each after a uvarint
// length.
func TestKeyLayout(t *testing.T) {
	k := newKeys([]byte("P"))
	var all []byte
	for _, c := range []struct {
		got  []byte
		want string
	}{
		{k.wal(300, 1), "50 00 77 000000000000012c 0001"},
		{k.block(7, []byte("pear")), "50 00 73 0000000000000007 70656172"},
		{k.meta(7), "50 00 6d 0000000000000007"},
		{registryKey([]byte("P")), "ff 6b76656e632f73746f72652f 50"},
	} {
		require.Equal(t, unhex(t, c.want), c.got)
		all = binary.AppendUvarint(all, uint64(len(c.got)))
		all = append(all, c.got...)
	}
	checkGolden(t, "keys-v2.bin", all)
	for _, key := range [][]byte{k.wal(1, 0), k.block(1, nil), k.block(1, []byte("x")), k.meta(1)} {
		assert.True(t, k.own(key), "%q", key)
	}
	for _, key := range [][]byte{[]byte("P\x00"), []byte("P\x00w"), []byte("P\x00x12345678"), append(k.meta(1), 0), k.wal(1, 0)[:12], k.segment(1)[:10]} {
		assert.False(t, k.own(key), "%q", key)
	}
}

// Namespaces overlap only when one prefix extends the other by the
// Separator byte.
func TestOverlaps(t *testing.T) {
	for _, c := range []struct {
		p, q string
		want bool
	}{
		{"u", "u", true},
		{"u", "us", false},
		{"user", "users", false},
		{"u", "u\x00", true},
		{"u", "u\x00s", true},
		{"u\x00s", "u", true},
		{"u", "v\x00", false},
		{"", "x", false},
	} {
		assert.Equal(t, c.want, overlaps([]byte(c.p), []byte(c.q)), "%q %q", c.p, c.q)
	}
}
