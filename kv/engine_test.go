package kv

import (
	"testing"

	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/stretchr/testify/require"
)

// OpenEngine opens a Store on any engine: its writes survive Close and a
// new OpenEngine on the same keys, and it refuses what Wrap refuses.
func TestOpenEngine(t *testing.T) {
	db := memDB(t)
	o := testOptions("")
	o.Prefix = []byte("eng")
	eng := badgereng.Wrap(db)
	s, err := OpenEngine(eng, o)
	require.NoError(t, err)
	m := model{}
	putEach(t, s, m, 500, "key%04d", "value %d")
	require.NoError(t, s.Flush())
	require.NoError(t, s.Put([]byte("key0001"), []byte("in the WAL")))
	m["key0001"] = "in the WAL"
	_, err = OpenEngine(eng, o)
	require.ErrorIs(t, err, ErrPrefixInUse, "a second Store on the prefix and engine")
	o2 := o
	o2.Prefix = []byte("eng\x00x")
	_, err = OpenEngine(badgereng.Wrap(db), o2)
	require.ErrorIs(t, err, ErrPrefixInUse, "a namespace inside the registered one")
	require.NoError(t, s.Close())
	require.False(t, db.IsClosed(), "Close closes the engine, which leaves a caller's DB open")

	s, err = OpenEngine(badgereng.Wrap(db), o)
	require.NoError(t, err)
	requireModel(t, s, m)
	require.NoError(t, s.Close())

	_, err = OpenEngine(nil, o)
	require.ErrorIs(t, err, ErrInvalidOptions)
	o.Prefix = nil
	_, err = OpenEngine(badgereng.Wrap(db), o)
	require.ErrorIs(t, err, ErrInvalidOptions)
}
