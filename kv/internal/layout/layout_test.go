package layout

import (
	"encoding/binary"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyLayout(t *testing.T) {
	k := NewKeys([]byte("P"))
	var all []byte
	for _, c := range []struct {
		got  []byte
		want string
	}{
		{k.WAL(300, 1), "50 00 77 000000000000012c 0001"},
		{k.Block(7, []byte("pear")), "50 00 73 0000000000000007 70656172"},
		{k.Meta(7), "50 00 6d 0000000000000007"},
		{k.Dict(7, 1), "50 00 64 0000000000000007 00000001"},
		{k.Filter(7, 1), "50 00 66 0000000000000007 00000001"},
		{RegistryKey([]byte("P")), "ff 6b76656e632f73746f72652f 50"},
	} {
		require.Equal(t, golden.Unhex(t, c.want), c.got)
		all = binary.AppendUvarint(all, uint64(len(c.got)))
		all = append(all, c.got...)
	}
	golden.Check(t, "keys-v2.bin", all)
	for _, key := range [][]byte{k.WAL(1, 0), k.Block(1, nil), k.Block(1, []byte("x")), k.Meta(1), k.Dict(1, 0), k.Filter(1, 0)} {
		assert.True(t, k.Own(key), "%q", key)
	}
	id, part := k.ParseRun(k.Dict(7, 1))
	assert.Equal(t, uint64(7), id)
	assert.Equal(t, uint32(1), part)
	id, run := k.ParseRun(k.Filter(8, 2))
	assert.Equal(t, uint64(8), id)
	assert.Equal(t, uint32(2), run)
	for _, key := range [][]byte{[]byte("P\x00"), []byte("P\x00w"), []byte("P\x00x12345678"), append(k.Meta(1), 0), k.WAL(1, 0)[:12], k.Segment(1)[:10], k.DictSegment(1), append(k.Dict(1, 0), 0), k.FilterSegment(1), append(k.Filter(1, 0), 0)} {
		assert.False(t, k.Own(key), "%q", key)
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
		assert.Equal(t, c.want, Overlaps([]byte(c.p), []byte(c.q)), "%q %q", c.p, c.q)
	}
}
