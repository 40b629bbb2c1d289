package engine

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ p, want []byte }{
		{[]byte("ab"), []byte("ac")},
		{[]byte("a\xff"), []byte("b")},
		{[]byte("a\xfe\xff\xff"), []byte("a\xff")},
		{[]byte{0x00}, []byte{0x01}},
		{[]byte{0xff}, nil},
		{[]byte{0xff, 0xff}, nil},
		{[]byte{}, nil},
	}
	for _, c := range cases {
		require.Equal(t, c.want, PrefixEnd(c.p), "PrefixEnd(%q)", c.p)
	}
}

// tooBig is an engine whose transactions hold at most max operations.
type tooBig struct {
	Engine
	max    int
	writes [][]Op
}

func (e *tooBig) Write(b *Batch) error {
	if b.Len() > e.max {
		return ErrTooLarge
	}
	e.writes = append(e.writes, append([]Op(nil), b.Ops()...))
	return nil
}

// WriteSplit writes a batch that does not fit in halves, in order, and
// fails on one operation that does not fit.
func TestWriteSplit(t *testing.T) {
	var b Batch
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		b.Set([]byte(k), []byte("v"+k))
	}
	b.Delete([]byte("f"))
	require.Equal(t, 6, b.Len())
	require.Equal(t, 5*3+1, b.Size())
	e := &tooBig{max: 2}
	require.NoError(t, WriteSplit(e, &b))
	var keys []string
	for _, w := range e.writes {
		require.LessOrEqual(t, len(w), 2)
		for _, o := range w {
			keys = append(keys, string(o.Key))
		}
	}
	require.Equal(t, []string{"a", "b", "c", "d", "e", "f"}, keys)
	last := e.writes[len(e.writes)-1]
	require.True(t, last[len(last)-1].Delete)

	e = &tooBig{max: 0}
	err := WriteSplit(e, &b)
	require.True(t, errors.Is(err, ErrTooLarge))
	b.Reset()
	require.Zero(t, b.Len())
	require.Zero(t, b.Size())
}

// Split keeps the unseen mark on both halves; Reset clears it.
func TestBatchUnseen(t *testing.T) {
	var b Batch
	b.Set([]byte("a"), []byte("1"))
	b.Set([]byte("b"), []byte("2"))
	require.False(t, b.Unseen())
	b.SetUnseen()
	x, y := b.Split()
	require.True(t, x.Unseen())
	require.True(t, y.Unseen())
	b.Reset()
	require.False(t, b.Unseen())
}
