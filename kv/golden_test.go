package kv

import (
	"encoding/binary"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kv's default compaction blocks are those of the segment meta's worked
// example (package segment's doc): their settings bytes.
func TestDefaultSettings(t *testing.T) {
	o := DefaultOptions("")
	require.Equal(t, golden.Unhex(t, "01 05 02 09 03 10 808001 808004"), o.blockSettings(o.compactionBlock()))
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
