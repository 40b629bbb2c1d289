package kv

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The worked examples of the package doc, derived by hand from the format
// description, without the CRC trailer.
const (
	docMeta = `04 0700000000000000 2c01000000000000 0100000000000000 2c01000000000000
		0200000000000000 e803000000000000 2003000000000000 409c000000000000
		05 6170706c65 04 70656172
		01 fa00000000000000 01 62 01 64
		05
		0c 01 05 02 09 03 10 808001 808004
		02 01 05 7c4e7c4f7c 01 05 7c417c527c`
)

func docSegMeta() segMeta {
	return segMeta{id: 7, walSeq: 300, minSeq: 1, maxSeq: 300, blocks: 2, cells: 1000, keys: 800, bytes: 40000,
		firstKey: []byte("apple"), lastKey: []byte("pear"), dels: []rangedel.Tombstone{rd("b", "d", 250)},
		tombstones: 5, settings: docSettings(),
		parts: []segPart{{blocks: 1, dict: []byte("|N|O|")}, {blocks: 1, dict: []byte("|A|R|")}}}
}

// docSettings is blockSettings of the default compaction blocks.
func docSettings() []byte {
	o := DefaultOptions("")
	return o.blockSettings(o.compactionBlock())
}

func TestGoldenMeta(t *testing.T) {
	m := docSegMeta()
	b := m.append(nil)
	require.Equal(t, golden.Unhex(t, docMeta), b[:len(b)-4], "meta against the package doc")
	golden.Check(t, "meta-v4.bin", b)
	got, err := decodeMeta(b)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, b, func(b []byte) error { _, err := decodeMeta(b); return err })

	// Version 3 metas (one dictionary, no tombstone count, no settings)
	// are still read, as one part.
	v3, err := os.ReadFile(filepath.Join("testdata", "meta-v3.bin"))
	require.NoError(t, err)
	m.tombstones, m.settings = 0, nil
	m.parts = []segPart{{blocks: 2, dict: []byte("|N|O|")}}
	require.Equal(t, m.appendVersion(nil, 3), v3)
	got, err = decodeMeta(v3)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v3, func(b []byte) error { _, err := decodeMeta(b); return err })

	// Version 2 metas (no dictionary) are still read.
	v2, err := os.ReadFile(filepath.Join("testdata", "meta-v2.bin"))
	require.NoError(t, err)
	m.parts[0].dict = nil
	require.Equal(t, m.appendVersion(nil, 2), v2)
	got, err = decodeMeta(v2)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v2, func(b []byte) error { _, err := decodeMeta(b); return err })

	// Version 1 metas (no range tombstones) are still read.
	v1, err := os.ReadFile(filepath.Join("testdata", "meta-v1.bin"))
	require.NoError(t, err)
	m.dels = nil
	require.Equal(t, m.appendVersion(nil, 1), v1)
	got, err = decodeMeta(v1)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v1, func(b []byte) error { _, err := decodeMeta(b); return err })

	// Range tombstones that are not what kv writes: an error, not a
	// panic or a wrong answer.
	for name, dels := range map[string][]rangedel.Tombstone{
		"empty range":       {rd("d", "b", 250)},
		"equal bounds":      {rd("b", "b", 250)},
		"seq above maxSeq":  {rd("b", "d", 301)},
		"seq below minSeq":  {rd("b", "d", 0)},
		"empty end, second": {rd("b", "d", 250), rd("", "", 250)},
	} {
		m.dels = dels
		_, err := decodeMeta(m.append(nil))
		requireCorrupt(t, err, name)
	}
	// A huge tombstone count is refused before allocating.
	m.dels = nil
	b = m.append(nil)
	b = append(b[:len(b)-5], 0xff, 0xff, 0xff, 0xff, 0x0f)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
	_, err = decodeMeta(b)
	requireCorrupt(t, err, "huge count")
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
		require.Equal(t, golden.Unhex(t, c.want), c.got)
		all = binary.AppendUvarint(all, uint64(len(c.got)))
		all = append(all, c.got...)
	}
	golden.Check(t, "keys-v2.bin", all)
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

// FuzzDecodeMeta: arbitrary bytes decode to an error wrapping ErrCorrupt
// or to a meta that encodes to bytes that decode to it again.
func FuzzDecodeMeta(f *testing.F) {
	m := docSegMeta()
	f.Add(m.append(nil))
	m.dels = append(m.dels, rd("a", "c", 1), rd("pe", "pz", 300))
	f.Add(m.append(nil))
	for _, name := range []string{"meta-v1.bin", "meta-v2.bin", "meta-v3.bin"} {
		if old, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(old)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMeta(b)
		if err != nil {
			requireCorrupt(t, err)
			return
		}
		m2, err := decodeMeta(m.append(nil))
		require.NoError(t, err)
		require.Equal(t, m, m2)
	})
}
