package kv

import (
	"bytes"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/space"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultEngine fails the writes for which fail returns an error, as a disk
// that went bad or read-only would.
type faultEngine struct {
	engine.Engine
	fail atomic.Pointer[func(*engine.Batch) error]
}

func (e *faultEngine) Write(b *engine.Batch) error {
	if f := e.fail.Load(); f != nil {
		if err := (*f)(b); err != nil {
			return err
		}
	}
	return e.Engine.Write(b)
}

func (e *faultEngine) setFail(f func(*engine.Batch) error) {
	if f == nil {
		e.fail.Store(nil)
		return
	}
	e.fail.Store(&f)
}

// newFaultStore opens a Store with tiny memstores on an in-memory Badger
// behind a faultEngine.
func newFaultStore(t *testing.T) (*Store, *faultEngine) {
	eng, err := badgereng.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	fe := &faultEngine{Engine: eng}
	o := DefaultOptions("")
	o.MemstoreSize = 64 << 10
	s, err := OpenEngine(fe, o)
	require.NoError(t, err)
	return s, fe
}

// eio is an I/O error as the filesystem returns it.
var eio = &os.PathError{Op: "write", Path: "000001.vlog", Err: syscall.EIO}

// An I/O fault of a write reaches the caller wrapped; reads go on.
func TestFaultWriteEIO(t *testing.T) {
	s, fe := newFaultStore(t)
	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	fe.setFail(func(*engine.Batch) error { return eio })
	err := s.Put([]byte("b"), []byte("2"))
	require.ErrorIs(t, err, syscall.EIO)
	require.NotErrorIs(t, err, ErrNoSpace)
	fe.setFail(func(*engine.Batch) error { return &os.PathError{Op: "write", Path: "f", Err: syscall.ENOSPC} })
	require.ErrorIs(t, s.Put([]byte("b"), []byte("2")), ErrNoSpace, "ENOSPC from the engine is ErrNoSpace")
	v, err := s.Get([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, []byte("1"), v)
	_, err = s.Get([]byte("b"))
	require.ErrorIs(t, err, ErrNotFound)
	fe.setFail(nil)
	require.NoError(t, s.Put([]byte("b"), []byte("2")), "a write after the fault cleared")
	require.NoError(t, s.Close())
}

// A background flush that meets an I/O fault stops the writes with that
// error instead of retrying at every write; reads and Close go on.
func TestFaultBackgroundEIOStopsWrites(t *testing.T) {
	s, fe := newFaultStore(t)
	blocks := s.keys.Tag(layout.TagSegment)
	fe.setFail(func(b *engine.Batch) error {
		for _, o := range b.Ops() {
			if bytes.HasPrefix(o.Key, blocks) {
				return eio
			}
		}
		return nil
	})
	val := make([]byte, 100)
	var written [][]byte
	var err error
	for i := 0; i < 100000 && err == nil; i++ {
		k := []byte(fmt.Sprintf("key%06d", i))
		if err = s.Put(k, val); err == nil {
			written = append(written, k)
		}
	}
	require.ErrorIs(t, err, syscall.EIO, "writes stop once a flush failed")
	require.Eventually(t, func() bool { return s.ioErr.Load() != nil || s.Put([]byte("x"), val) != nil },
		5*time.Second, 10*time.Millisecond)
	for i := 0; i < 3; i++ {
		require.ErrorIs(t, s.Put([]byte("more"), val), syscall.EIO, "writes stay stopped")
	}
	for _, k := range written {
		_, err := s.Get(k)
		require.NoError(t, err, "%s", k)
	}
	require.ErrorIs(t, s.Stats().BackgroundErr, syscall.EIO)
	require.ErrorIs(t, s.Close(), syscall.EIO, "Close returns, naming the fault")
}

// openFakeSpace opens a test Store of memstoreSize whose space Gate sees
// a fake filesystem of total bytes, free of them at first; the Gate asks
// the returned counter at every step and keeps an 8 MiB reserve.
func openFakeSpace(t *testing.T, memstoreSize, total, free int64) (*Store, Options, *atomic.Int64) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.MemstoreSize = memstoreSize
	s := mustOpen(t, o)
	f := new(atomic.Int64)
	f.Store(free)
	g := space.NewGate(dir, func(string) (space.Usage, error) {
		return space.Usage{Total: total, Free: f.Load()}, nil
	}, 8<<20)
	g.RefreshEvery = 0 // the tests change the figures between steps
	s.space = g
	s.wal.SetGate(g, walChunkSize(memstoreSize))
	return s, o, f
}

// The Store's steps go through its space Gate: with a fake filesystem,
// writes fail with ErrNoSpace when their WAL chunk does not fit, reads go
// on, a flush that does not fit fails, and writes resume once space
// appears; Stats reports the figures.
func TestSpaceGateFake(t *testing.T) {
	s, o, free := openFakeSpace(t, 1<<20, 2<<30, 1<<30)

	require.NoError(t, s.Put([]byte("a"), []byte("1")))
	st := s.Stats()
	assert.Equal(t, int64(1<<30), st.FreeBytes)
	assert.Equal(t, int64(8<<20), st.ReservedBytes)

	free.Store(8 << 20) // only the reserve left
	big := make([]byte, 200<<10)
	err := s.Put([]byte("big"), big) // past the WAL file's first chunk
	require.ErrorIs(t, err, ErrNoSpace)
	v, err := s.Get([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, []byte("1"), v)
	free.Store(4<<20 + 1<<10) // a flush may use half the reserve; a tiny one fits
	require.NoError(t, s.Flush())
	require.ErrorIs(t, s.Put([]byte("b"), []byte("2")), ErrNoSpace, "a new WAL file needs its first chunk")
	free.Store(1 << 30)
	require.NoError(t, s.Put([]byte("big"), big), "writes resume without a reopen")
	free.Store(0)
	require.ErrorIs(t, s.Flush(), ErrNoSpace)
	require.ErrorIs(t, s.Compact(), ErrNoSpace)
	free.Store(1 << 30)
	require.NoError(t, s.Close())
	s = mustOpen(t, o)
	for k, want := range map[string][]byte{"a": []byte("1"), "big": big} {
		v, err := s.Get([]byte(k))
		require.NoError(t, err, k)
		require.Equal(t, want, v, k)
	}
	require.NoError(t, s.Close())
}
