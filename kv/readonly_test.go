package kv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A ReadOnly Store beside its writer on one DB sees what the writer has
// flushed, after Refresh; never its unflushed writes; and refuses writes.
func TestReadOnlyRefresh(t *testing.T) {
	db := memDB(t)
	o := testOptions("")
	o.Prefix = []byte("ro")
	// The writer compacts only when asked: a reader must Refresh before
	// the writer deletes the segments it reads.
	o.CompactionTrigger = -1
	ro := o
	ro.ReadOnly = true
	_, err := Wrap(db, ro)
	require.ErrorIs(t, err, ErrNotFound, "no Store registered yet")

	w, err := Wrap(db, o)
	require.NoError(t, err)
	m := model{}
	putEach(t, w, m, 300, "key%04d", "first %d")
	require.NoError(t, w.Flush())

	r, err := Wrap(db, ro)
	require.NoError(t, err, "a reader beside the writer: no claim")
	requireModel(t, r, m)

	flushed := model{}
	for k, v := range m {
		flushed[k] = v
	}
	putEach(t, w, m, 200, "key%04d", "second %d")
	require.NoError(t, w.Delete([]byte("key0250")))
	delete(m, "key0250")
	require.NoError(t, r.Refresh())
	requireModel(t, r, flushed, "writes not flushed are not seen")
	snap := r.Snapshot()

	require.NoError(t, w.Flush())
	requireModel(t, r, flushed, "flushed, but not refreshed")
	require.NoError(t, r.Refresh())
	requireModel(t, r, m, "after Refresh")
	v, err := snap.Get([]byte("key0001"))
	require.NoError(t, err)
	require.Equal(t, "first 1", string(v), "a Snapshot keeps what it saw")
	require.NoError(t, snap.Close())

	require.NoError(t, w.Compact())
	require.NoError(t, r.Refresh())
	requireModel(t, r, m, "after the writer's compaction")

	require.ErrorIs(t, r.Put([]byte("x"), []byte("y")), ErrReadOnly)
	require.ErrorIs(t, r.DeleteRange([]byte("a"), []byte("b")), ErrReadOnly)
	require.ErrorIs(t, r.Flush(), ErrReadOnly)
	require.ErrorIs(t, r.Compact(), ErrReadOnly)
	require.ErrorIs(t, r.Reclaim(), ErrReadOnly)
	require.NoError(t, r.Close())
	require.NoError(t, w.Refresh(), "Refresh of a writer does nothing")
	require.NoError(t, w.Close())
}

// Open of a directory ReadOnly reads what a closed writer left.
func TestReadOnlyOpen(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, testOptions(dir))
	m := model{}
	putEach(t, s, m, 400, "key%04d", "value %d")
	require.NoError(t, s.Close())

	o := testOptions(dir)
	o.ReadOnly = true
	r, err := Open(o)
	require.NoError(t, err)
	requireModel(t, r, m)
	require.ErrorIs(t, r.Put([]byte("x"), []byte("y")), ErrReadOnly)
	require.NoError(t, r.Close())

	o.Dir = ""
	_, err = Open(o)
	require.ErrorIs(t, err, ErrInvalidOptions)
}
