package kv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// prefixKeys surround the prefixes the tests use: keys with them, keys just
// below and just above them, and keys around 0xff bytes.
var prefixKeys = []string{
	"a", "ab", "ab\x00", "abc", "abd", "ab\xff", "ac", "b",
	"x\xfe", "x\xfe\xff", "x\xff", "x\xff\x00", "x\xff\xff", "y",
	"\xff", "\xff\x00", "\xff\xff", "\xff\xff\x01",
}

// openPrefixStore holds prefixKeys (value "v"+key), half of them flushed
// into a segment and half in the memstore when split is true, all flushed
// otherwise.
func openPrefixStore(t *testing.T, split bool) *Store {
	t.Helper()
	s := mustOpen(t, testOptions(""))
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	for i, k := range prefixKeys {
		if split && i == len(prefixKeys)/2 {
			require.NoError(t, s.Flush())
		}
		require.NoError(t, s.Put([]byte(k), []byte("v"+k)))
	}
	if !split {
		require.NoError(t, s.Flush())
	}
	return s
}

func prefixWant(keys ...string) [][2]string {
	out := [][2]string{}
	for _, k := range keys {
		out = append(out, [2]string{k, "v" + k})
	}
	return out
}

func TestIteratorPrefix(t *testing.T) {
	cases := []struct {
		name   string
		prefix []byte
		want   [][2]string
	}{
		{"plain", []byte("ab"), prefixWant("ab", "ab\x00", "abc", "abd", "ab\xff")},
		{"longer", []byte("abc"), prefixWant("abc")},
		{"no keys", []byte("aa"), prefixWant()},
		{"ends in 0xff", []byte("x\xfe"), prefixWant("x\xfe", "x\xfe\xff")},
		{"last byte 0xff", []byte("x\xff"), prefixWant("x\xff", "x\xff\x00", "x\xff\xff")},
		{"all 0xff", []byte("\xff"), prefixWant("\xff", "\xff\x00", "\xff\xff", "\xff\xff\x01")},
		{"all 0xff twice", []byte("\xff\xff"), prefixWant("\xff\xff", "\xff\xff\x01")},
		{"empty", []byte{}, prefixWant(prefixKeys...)},
	}
	for _, split := range []bool{false, true} {
		s := openPrefixStore(t, split)
		for _, c := range cases {
			got, err := scan(s.NewIterator(IterOptions{Prefix: c.prefix}))
			require.NoError(t, err, "%s split=%v", c.name, split)
			require.Equal(t, c.want, append([][2]string{}, got...), "%s split=%v", c.name, split)
			got, err = scanBack(s.NewIterator(IterOptions{Prefix: c.prefix}))
			require.NoError(t, err, "%s split=%v backward", c.name, split)
			require.Equal(t, reversed(c.want), append([][2]string{}, got...), "%s split=%v backward", c.name, split)
		}
	}
}

func TestIteratorPrefixWinsOverBounds(t *testing.T) {
	s := openPrefixStore(t, true)
	got, err := scan(s.NewIterator(IterOptions{
		LowerBound: []byte("a"), UpperBound: []byte("abc"), Prefix: []byte("ab"),
	}))
	require.NoError(t, err)
	require.Equal(t, prefixWant("ab", "ab\x00", "abc", "abd", "ab\xff"), got)
}

func TestIteratorPrefixSeekGE(t *testing.T) {
	s := openPrefixStore(t, true)
	it := s.NewIterator(IterOptions{Prefix: []byte("ab")})
	defer it.Close()
	// Below the prefix: clamped to it.
	require.True(t, it.SeekGE([]byte("a")))
	require.Equal(t, []byte("ab"), it.Key())
	require.True(t, it.SeekGE([]byte("abc\x00")))
	require.Equal(t, []byte("abd"), it.Key())
	require.True(t, it.Next())
	require.Equal(t, []byte("ab\xff"), it.Key())
	require.False(t, it.Next(), "ac is past the prefix")
	require.False(t, it.SeekGE([]byte("ac")))
	require.NoError(t, it.Err())
}

func TestIteratorPrefixCallerSliceCopied(t *testing.T) {
	s := openPrefixStore(t, false)
	p := []byte("ab")
	it := s.NewIterator(IterOptions{Prefix: p})
	p[0], p[1] = 'x', 'y'
	got, err := scan(it)
	require.NoError(t, err)
	require.Equal(t, prefixWant("ab", "ab\x00", "abc", "abd", "ab\xff"), got)
}

func TestIteratorPrefixSnapshot(t *testing.T) {
	s := openPrefixStore(t, true)
	sn := s.Snapshot()
	require.NoError(t, s.Put([]byte("abb"), []byte("new")))
	require.NoError(t, s.Delete([]byte("abc")))
	require.NoError(t, s.Put([]byte("abd"), []byte("changed")))
	require.NoError(t, s.Flush())

	got, err := scan(sn.NewIterator(IterOptions{Prefix: []byte("ab")}))
	require.NoError(t, err)
	require.Equal(t, prefixWant("ab", "ab\x00", "abc", "abd", "ab\xff"), got, "snapshot")
	require.NoError(t, sn.Close())

	got, err = scan(s.NewIterator(IterOptions{Prefix: []byte("ab")}))
	require.NoError(t, err)
	require.Equal(t, [][2]string{
		{"ab", "vab"}, {"ab\x00", "vab\x00"}, {"abb", "new"}, {"abd", "changed"}, {"ab\xff", "vab\xff"},
	}, got, "current")
}

func TestIteratorSetBounds(t *testing.T) {
	for _, split := range []bool{false, true} {
		s := openPrefixStore(t, split)
		it := s.NewIterator(IterOptions{Prefix: []byte("ab")})
		require.True(t, it.First())
		require.Equal(t, []byte("ab"), it.Key())

		// Unpositioned until First or SeekGE.
		lo, hi := []byte("x\xfe"), []byte("x\xff\x00")
		it.SetBounds(lo, hi)
		require.False(t, it.Valid())
		require.Nil(t, it.Key())
		require.Nil(t, it.Value())
		require.False(t, it.Next())
		lo[0], hi[0] = 'a', 'z' // copied

		var keys []string
		for ok := it.First(); ok; ok = it.Next() {
			keys = append(keys, string(it.Key()))
		}
		require.Equal(t, []string{"x\xfe", "x\xfe\xff", "x\xff"}, keys, "split=%v", split)

		// SeekGE below the new lower bound is clamped to it.
		it.SetBounds([]byte("b"), nil)
		require.True(t, it.SeekGE([]byte("a")))
		require.Equal(t, []byte("b"), it.Key())
		keys = nil
		for ok := true; ok; ok = it.Next() {
			keys = append(keys, string(it.Key()))
		}
		require.Equal(t, prefixKeys[7:], keys, "split=%v", split)

		// Unbounded both ways: everything.
		it.SetBounds(nil, nil)
		got, err := scan(it)
		require.NoError(t, err)
		require.Equal(t, prefixWant(prefixKeys...), got, "split=%v", split)
	}
}

func TestIteratorSetBoundsSnapshot(t *testing.T) {
	s := openPrefixStore(t, true)
	it := s.NewIterator(IterOptions{UpperBound: []byte("ab\x00")})
	require.True(t, it.First())
	require.Equal(t, []byte("a"), it.Key())
	require.NoError(t, s.Put([]byte("abb"), []byte("new")))
	require.NoError(t, s.Delete([]byte("abc")))
	require.NoError(t, s.Flush())

	// The read point stays: later writes are not seen.
	it.SetBounds([]byte("ab"), []byte("ac"))
	got, err := scan(it)
	require.NoError(t, err)
	require.Equal(t, prefixWant("ab", "ab\x00", "abc", "abd", "ab\xff"), got)
}

func TestIteratorSetBoundsAfterClose(t *testing.T) {
	s := openPrefixStore(t, false)
	it := s.NewIterator(IterOptions{})
	require.NoError(t, it.Close())
	it.SetBounds([]byte("a"), []byte("b"))
	require.ErrorIs(t, it.Err(), ErrClosed)
	require.False(t, it.First())
	require.False(t, it.SeekGE([]byte("a")))
	require.False(t, it.Valid())
	require.ErrorIs(t, it.Err(), ErrClosed)
}

func TestIteratorPrefixSeekLT(t *testing.T) {
	s := openPrefixStore(t, true)
	it := s.NewIterator(IterOptions{Prefix: []byte("ab")})
	defer it.Close()
	// Above the prefix: clamped to its end.
	require.True(t, it.SeekLT([]byte("b")))
	require.Equal(t, []byte("ab\xff"), it.Key())
	require.True(t, it.SeekLT([]byte("abd")))
	require.Equal(t, []byte("abc"), it.Key())
	require.True(t, it.Prev())
	require.Equal(t, []byte("ab\x00"), it.Key())
	require.True(t, it.Prev())
	require.Equal(t, []byte("ab"), it.Key())
	require.False(t, it.Prev(), "a is below the prefix")
	require.False(t, it.SeekLT([]byte("ab")))
	require.NoError(t, it.Err())
	// Off the start, Next starts over at the first key.
	require.True(t, it.Next())
	require.Equal(t, []byte("ab"), it.Key())
}
