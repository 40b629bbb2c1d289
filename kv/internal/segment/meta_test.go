package segment

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rd(start, end string, seq uint64) rangedel.Tombstone {
	return rangedel.Tombstone{Start: []byte(start), End: []byte(end), Seq: seq}
}

const docMeta = `06 0700000000000000 2c01000000000000 0100000000000000 2c01000000000000
		0200000000000000 e803000000000000 2003000000000000 409c000000000000
		05 6170706c65 04 70656172
		01 fa00000000000000 01 62 01 64
		05
		0c 01 05 02 09 03 10 808001 808004
		02 01 05 f198958e 01 05 4f88289e
		01 02 06 08b2cdf9`

func docSegMeta() Meta {
	return Meta{ID: 7, WALSeq: 300, MinSeq: 1, MaxSeq: 300, Blocks: 2, Cells: 1000, Keys: 800, Bytes: 40000,
		FirstKey: []byte("apple"), LastKey: []byte("pear"), Dels: []rangedel.Tombstone{rd("b", "d", 250)},
		Tombstones: 5, Settings: docSettings(),
		Parts:   []Part{NewPart(1, []byte("|N|O|")), NewPart(1, []byte("|A|R|"))},
		Filters: []FilterRun{NewFilterRun(2, docFilter)}}
}

// docFilter is the key filter of package bloom's worked example.
var docFilter = []byte{0x01, 0x07, 0x60, 0xf4, 0x0b, 0xde}

// withoutFilters returns m as a meta of a version before 6 decodes.
func withoutFilters(m Meta) Meta {
	m.Filters = nil
	return m
}

// withoutDicts returns m with its parts' dictionary and its key filters'
// bytes left out, as a version 5 or 6 meta decodes.
func withoutDicts(m Meta) Meta {
	m.Parts = slices.Clone(m.Parts)
	for i := range m.Parts {
		m.Parts[i].Dict = nil
	}
	m.Filters = slices.Clone(m.Filters)
	for i := range m.Filters {
		m.Filters[i].Filter = nil
	}
	return m
}

// docSettings is Settings of the blocks kv's compactions write by
// default: Columnar, LZ4Dict at level 9, both flags, restart interval 16,
// 16 KiB blocks, dictionaries of 64 KiB - 1.
func docSettings() []byte {
	return Settings(docBlockOptions(), 16<<10, blockenc.MaxDictSize)
}

// docBlockOptions are the block options of the package doc's example.
func docBlockOptions() blockenc.Options {
	return blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, CompressionLevel: 9,
		DedupeValues: true, IntValues: true, RestartInterval: 16}
}

func TestGoldenMeta(t *testing.T) {
	m := docSegMeta()
	b := m.Append(nil)
	require.Equal(t, golden.Unhex(t, docMeta), b[:len(b)-4], "meta against the package doc")
	golden.Check(t, "meta-v6.bin", b)
	got, err := DecodeMeta(b)
	require.NoError(t, err)
	assert.Equal(t, withoutDicts(m), got)
	golden.RequireDecodeCorrupt(t, b, func(b []byte) error { _, err := DecodeMeta(b); return err })
	// The dictionaries come from their own keys, checked against the
	// meta's lengths and IDs.
	for i := range got.Parts {
		require.True(t, got.Parts[i].NeedsDict())
		golden.RequireCorrupt(t, got.Parts[i].SetDict([]byte("|N|O|x")), "longer dictionary")
		golden.RequireCorrupt(t, got.Parts[i].SetDict([]byte("|X|O|")), "other dictionary")
		require.NoError(t, got.Parts[i].SetDict(m.Parts[i].Dict))
		require.False(t, got.Parts[i].NeedsDict())
	}
	// So do the key filters.
	require.True(t, got.Filters[0].NeedsFilter())
	golden.RequireCorrupt(t, got.Filters[0].SetFilter(append(slices.Clone(docFilter), 0)), "longer filter")
	other := slices.Clone(docFilter)
	other[2] ^= 1
	golden.RequireCorrupt(t, got.Filters[0].SetFilter(other), "other filter")
	require.NoError(t, got.Filters[0].SetFilter(docFilter))
	require.False(t, got.Filters[0].NeedsFilter())
	assert.Equal(t, m, got)
	g := New(got)
	require.NoError(t, g.SetFilters())
	assert.Equal(t, int64(40000+len(b)+2*5+len(docFilter)), g.Meta.StoredBytes(), "blocks, meta, dictionaries and filter")
	assert.True(t, g.MayHold(1, bloom.Hash([]byte("pear"))))
	assert.False(t, g.MayHold(0, bloom.Hash([]byte("peach"))), "a key the filter does not hold")

	// Version 5 metas (no key filters) are still read: every block is
	// searched.
	m = withoutFilters(m)
	v5 := golden.Read(t, "meta-v5.bin")
	require.Equal(t, m.AppendVersion(nil, 5), v5)
	got, err = DecodeMeta(v5)
	require.NoError(t, err)
	assert.Equal(t, withoutDicts(m), got)
	golden.RequireDecodeCorrupt(t, v5, func(b []byte) error { _, err := DecodeMeta(b); return err })

	// Version 4 metas (dictionaries inline) are still read.
	v4 := golden.Read(t, "meta-v4.bin")
	require.Equal(t, m.AppendVersion(nil, 4), v4)
	got, err = DecodeMeta(v4)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v4, func(b []byte) error { _, err := DecodeMeta(b); return err })

	// Version 3 metas (one dictionary, no tombstone count, no settings)
	// are still read, as one part.
	v3 := golden.Read(t, "meta-v3.bin")
	m.Tombstones, m.Settings = 0, nil
	m.Parts = []Part{NewPart(2, []byte("|N|O|"))}
	require.Equal(t, m.AppendVersion(nil, 3), v3)
	got, err = DecodeMeta(v3)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v3, func(b []byte) error { _, err := DecodeMeta(b); return err })

	// Version 2 metas (no dictionary) are still read.
	v2 := golden.Read(t, "meta-v2.bin")
	m.Parts[0] = NewPart(2, nil)
	require.Equal(t, m.AppendVersion(nil, 2), v2)
	got, err = DecodeMeta(v2)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v2, func(b []byte) error { _, err := DecodeMeta(b); return err })

	// Version 1 metas (no range tombstones) are still read.
	v1 := golden.Read(t, "meta-v1.bin")
	m.Dels = nil
	require.Equal(t, m.AppendVersion(nil, 1), v1)
	got, err = DecodeMeta(v1)
	require.NoError(t, err)
	assert.Equal(t, m, got)
	golden.RequireDecodeCorrupt(t, v1, func(b []byte) error { _, err := DecodeMeta(b); return err })

	// Range tombstones that are not what kv writes: an error, not a
	// panic or a wrong answer.
	for name, dels := range map[string][]rangedel.Tombstone{
		"empty range":       {rd("d", "b", 250)},
		"equal bounds":      {rd("b", "b", 250)},
		"seq above maxSeq":  {rd("b", "d", 301)},
		"seq below minSeq":  {rd("b", "d", 0)},
		"empty end, second": {rd("b", "d", 250), rd("", "", 250)},
	} {
		m.Dels = dels
		_, err := DecodeMeta(m.Append(nil))
		golden.RequireCorrupt(t, err, name)
	}
	// A huge tombstone count is refused before allocating.
	m.Dels = nil
	b = m.Append(nil)
	b = append(b[:len(b)-5], 0xff, 0xff, 0xff, 0xff, 0x0f)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
	_, err = DecodeMeta(b)
	golden.RequireCorrupt(t, err, "huge count")
}

// FuzzDecodeMeta: arbitrary bytes decode to an error wrapping ErrCorrupt
// or to a meta that encodes, in its version, to bytes that decode to it
// again (and in the current one to it without dictionary bytes).
func FuzzDecodeMeta(f *testing.F) {
	m := docSegMeta()
	f.Add(m.Append(nil))
	m.Dels = append(m.Dels, rd("a", "c", 1), rd("pe", "pz", 300))
	f.Add(m.Append(nil))
	for _, name := range []string{"meta-v1.bin", "meta-v2.bin", "meta-v3.bin", "meta-v4.bin", "meta-v5.bin"} {
		if old, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(old)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMeta(b)
		if err != nil {
			golden.RequireCorrupt(t, err)
			return
		}
		m2, err := DecodeMeta(m.AppendVersion(nil, b[0]))
		require.NoError(t, err)
		require.Equal(t, m, m2)
		// In the current version the dictionaries are left out.
		m2, err = DecodeMeta(m.Append(nil))
		require.NoError(t, err)
		require.Equal(t, withoutDicts(m), m2)
	})
}

// TestReplacedMarker: the marker of a replaced segment is never a meta
// (DecodeMeta, as every version before the marker, refuses it) and no meta
// is taken for it.
func TestReplacedMarker(t *testing.T) {
	require.True(t, IsReplaced(Replaced))
	require.True(t, IsReplaced(nil), "the empty marker of earlier stores")
	_, err := DecodeMeta(Replaced)
	require.ErrorIs(t, err, blockenc.ErrCorrupt)
	m := Meta{ID: 7, Blocks: 1, Cells: 1, Keys: 1, FirstKey: []byte("a"), LastKey: []byte("a")}
	for v := metaVersionV1; v <= MetaVersion; v++ {
		require.False(t, IsReplaced(m.AppendVersion(nil, byte(v))), "meta version %d", v)
	}
}
