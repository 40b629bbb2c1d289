package enginetest

import (
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/stretchr/testify/require"
)

func TestInjector(t *testing.T) {
	inner, err := badgereng.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	inj := New(inner)
	e := inj.Engine()
	defer e.Close()
	_, async := e.(engine.AsyncWriter)
	rec, isRec := e.(engine.Reclaimer)
	require.True(t, async, "an owned Badger commits asynchronously")
	require.True(t, isRec)
	require.False(t, rec.Shared())
	shared := New(badgereng.Wrap(inner.DB())).Engine()
	_, async = shared.(engine.AsyncWriter)
	require.False(t, async, "a wrapped Badger does not")

	var b engine.Batch
	b.Set([]byte("a"), []byte("1"))
	b.Set([]byte("b"), []byte("2"))
	require.NoError(t, e.Write(&b))
	require.EqualValues(t, 1, inj.Calls())

	// One transient fault: the second call from now.
	inj.FailAt(2, false)
	get := func() error {
		return e.Get([]byte("a"), engine.ViewFunc(func([]byte) error { return nil }))
	}
	require.NoError(t, get())
	require.ErrorIs(t, get(), engine.ErrInjected)
	require.NoError(t, get())
	require.EqualValues(t, 1, inj.Injected())

	// An iterator move that fails leaves the iterator invalid with the
	// error.
	it, err := e.NewIter(engine.IterOptions{})
	require.NoError(t, err)
	inj.FailAt(2, false)
	require.True(t, it.First())
	require.False(t, it.Next())
	require.False(t, it.Valid())
	require.ErrorIs(t, it.Err(), engine.ErrInjected)
	require.NoError(t, it.Close())

	// Sticky: every call from the chosen one on.
	inj.FailAt(1, true)
	require.ErrorIs(t, e.Write(&b), engine.ErrInjected)
	require.ErrorIs(t, e.DeleteRange([]byte("a"), []byte("z")), engine.ErrInjected)
	require.ErrorIs(t, e.(engine.AsyncWriter).WriteAsync(&b, func(error) { t.Fatal("done after a failed hand-over") }), engine.ErrInjected)
	require.ErrorIs(t, rec.DropPrefixes([]byte("a")), engine.ErrInjected)
	require.EqualValues(t, 6, inj.Injected())
	inj.FailAt(0, false)
	require.NoError(t, get())
}
