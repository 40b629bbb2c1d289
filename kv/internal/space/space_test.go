package space

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeFS is a filesystem whose free space the test sets, counting the
// statfs calls.
type fakeFS struct {
	free, total int64
	err         error
	calls       int
}

func (f *fakeFS) stat(string) (Usage, error) {
	f.calls++
	return Usage{Total: f.total, Free: f.free}, f.err
}

// fakeClock is a clock the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func newFakeGate(fs *fakeFS, reserve int64) (*Gate, *fakeClock) {
	g := NewGate("/data", fs.stat, reserve)
	c := &fakeClock{t: time.Unix(1, 0)}
	g.now = c.now
	return g, c
}

// write admits need bytes and, when admitted, takes them from fs as the
// step would.
func (f *fakeFS) write(g *Gate, need int64, c Class) error {
	err := g.Admit("step", need, c)
	if err == nil {
		f.free -= need
	}
	return err
}

func TestGateClasses(t *testing.T) {
	fs := &fakeFS{free: 100 << 20, total: 200 << 20}
	g, _ := newFakeGate(fs, 40<<20)
	// Write must leave the whole reserve: 60 MiB fit, one byte more does not.
	require.NoError(t, fs.write(g, 30<<20, Write))
	require.NoError(t, fs.write(g, 30<<20, Write))
	err := fs.write(g, 1, Write)
	require.ErrorIs(t, err, ErrNoSpace)
	assert.Contains(t, err.Error(), "step needs 1 bytes; the filesystem of /data has 41943040 free, of which steps under way take 0 and 41943040 is held in reserve")
	// Reclaim may use half of the reserve, and no more.
	require.NoError(t, fs.write(g, 20<<20, Reclaim))
	require.ErrorIs(t, fs.write(g, 1, Reclaim), ErrNoSpace)
	require.ErrorIs(t, fs.write(g, 1, Write), ErrNoSpace)
	assert.Equal(t, int64(40<<20), g.Reserve())
}

func TestGateRefusedChargesNothing(t *testing.T) {
	fs := &fakeFS{free: 10 << 20}
	g, _ := newFakeGate(fs, 4<<20)
	require.ErrorIs(t, fs.write(g, 7<<20, Write), ErrNoSpace)
	require.NoError(t, fs.write(g, 6<<20, Write))
}

func TestGateResumesWhenSpaceFreed(t *testing.T) {
	fs := &fakeFS{free: 5 << 20}
	g, _ := newFakeGate(fs, 4<<20)
	require.ErrorIs(t, g.Admit("w", 2<<20, Write), ErrNoSpace)
	// Space freed elsewhere: the very next step sees it, without waiting
	// for RefreshEvery (a short gate asks on every step).
	fs.free = 50 << 20
	require.NoError(t, g.Admit("w", 2<<20, Write))
}

func TestGateRefreshes(t *testing.T) {
	fs := &fakeFS{free: 100 << 20}
	g, clock := newFakeGate(fs, 0)
	g.RefreshBytes = 1 << 20
	require.NoError(t, g.Admit("w", 1000, Write))
	assert.Equal(t, 1, fs.calls, "first step asks")
	require.NoError(t, g.Admit("w", 1000, Write))
	assert.Equal(t, 1, fs.calls, "charged figures serve until a refresh is due")
	// Another writer took space: the charges do not see it until the
	// figures are asked again, by bytes...
	fs.free = 10 << 20
	require.NoError(t, g.Admit("w", 1<<20, Write))
	require.NoError(t, g.Admit("w", 1, Write))
	assert.Equal(t, 2, fs.calls, "refreshed after RefreshBytes")
	// ...or by time.
	clock.t = clock.t.Add(g.RefreshEvery)
	require.NoError(t, g.Admit("w", 1, Write))
	assert.Equal(t, 3, fs.calls, "refreshed after RefreshEvery")
	// A step that does not fit in the charged figures asks again first.
	fs.free = 200 << 20
	require.NoError(t, g.Admit("w", 150<<20, Write))
	assert.Equal(t, 4, fs.calls)
}

func TestGateStatError(t *testing.T) {
	fs := &fakeFS{err: fmt.Errorf("statfs: %w", errors.ErrUnsupported)}
	g, _ := newFakeGate(fs, 1<<20)
	require.NoError(t, g.Admit("w", 1<<40, Write), "no figures: admitted")
	_, err := g.Usage()
	require.ErrorIs(t, err, errors.ErrUnsupported)
	var nilGate *Gate
	require.NoError(t, nilGate.Admit("w", 1<<40, Write))
	assert.Zero(t, nilGate.Reserve())
}

func TestClassify(t *testing.T) {
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		err := Classify(&os.PathError{Op: "write", Path: "f", Err: errno})
		require.ErrorIs(t, err, ErrNoSpace)
		require.ErrorIs(t, err, errno)
	}
	for _, errno := range []syscall.Errno{syscall.EIO, syscall.EROFS} {
		err := Classify(fmt.Errorf("write: %w", errno))
		require.NotErrorIs(t, err, ErrNoSpace)
		require.ErrorIs(t, err, errno)
	}
	require.NoError(t, Classify(nil))
	once := Classify(syscall.ENOSPC)
	assert.Equal(t, once, Classify(once), "wrapped once")
}

func TestStatfsAndPreallocate(t *testing.T) {
	dir := t.TempDir()
	u, err := Statfs(dir)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no statfs on this system")
	}
	require.NoError(t, err)
	assert.Positive(t, u.Total)
	assert.LessOrEqual(t, u.Free, u.Total)
	f, err := os.Create(filepath.Join(dir, "f"))
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, Preallocate(f, 0, 1<<20))
	fi, err := f.Stat()
	require.NoError(t, err)
	assert.Zero(t, fi.Size(), "the size stays: readers see only what was written")
	_, err = Statfs(filepath.Join(dir, "missing"))
	require.Error(t, err)
}

func TestGateHold(t *testing.T) {
	fs := &fakeFS{free: 100 << 20}
	g, clock := newFakeGate(fs, 10<<20)
	release, err := g.Hold("flush", 60<<20, Reclaim)
	require.NoError(t, err)
	// A refresh does not forget a step under way: it has not written yet.
	clock.t = clock.t.Add(g.RefreshEvery)
	require.ErrorIs(t, fs.write(g, 31<<20, Write), ErrNoSpace)
	require.NoError(t, fs.write(g, 30<<20, Write))
	release()
	release()
	require.NoError(t, fs.write(g, 50<<20, Write))
	_, err = g.Hold("compaction", 20<<20, Reclaim)
	require.ErrorIs(t, err, ErrNoSpace)
}

func TestGateRoomTotal(t *testing.T) {
	fs := &fakeFS{free: 100 << 20, total: 1 << 30}
	g, _ := newFakeGate(fs, 10<<20)
	assert.Equal(t, int64(90<<20), g.Room(Write))
	assert.Equal(t, int64(95<<20), g.Room(Reclaim))
	release, err := g.Hold("compaction", 40<<20, Reclaim)
	require.NoError(t, err)
	assert.Equal(t, int64(50<<20), g.Room(Write))
	release()
	assert.Equal(t, int64(1<<30), g.Total())
	var nilGate *Gate
	assert.Equal(t, int64(math.MaxInt64), nilGate.Room(Write))
	assert.Equal(t, int64(math.MaxInt64), nilGate.Total())
}
