package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frame is a frame of one Put of seq (room for the length, then the
// record), as a Store queues it.
func frame(seq uint64) []byte {
	return Append(make([]byte, FrameLen), seq, []Op{{Key: fmt.Appendf(nil, "k%d", seq), Value: []byte("v"), Kind: blockenc.KindPut}})
}

// commit queues fr for f and waits for it, as a Store's write does.
func commit(w *Files, f *File, fr []byte) error { return commitGather(w, f, fr, false) }

// commitGather is commit with Wait's gather.
func commitGather(w *Files, f *File, fr []byte, gather bool) error {
	end, err := w.Queue(f, fr, nil)
	if err != nil {
		return err
	}
	return w.Wait(f, end, gather)
}

// holdFirstWrite makes w's next write wait until release is closed (held
// is closed once it waits), and fails the write after it with fail; the
// writes after those run as usual.
func holdFirstWrite(w *Files, fail error) (held, release chan struct{}) {
	held, release = make(chan struct{}), make(chan struct{})
	n := 0 // one leader writes at a time
	w.SetWriteHook(func() error {
		switch n++; n {
		case 1:
			close(held)
			<-release
		case 2:
			return fail
		}
		return nil
	})
	return held, release
}

// waitQueued waits until f has end bytes queued.
func waitQueued(t *testing.T, f *File, end int64) {
	t.Helper()
	require.Eventually(t, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.end >= end
	}, 10*time.Second, time.Millisecond)
}

// onlyFile returns the records of the one WAL file in dir.
func onlyFile(t *testing.T, dir string) []Rec {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, Dir, "*"+Suffix))
	require.NoError(t, err)
	require.Len(t, paths, 1)
	b, err := os.ReadFile(paths[0])
	require.NoError(t, err)
	recs, err := DecodeFile(b)
	require.NoError(t, err)
	return recs
}

// TestGroupCommit: the frames queued while a write is in progress go out
// together in the next write (and fsync), and every writer returns once
// its frame is in the file.
func TestGroupCommit(t *testing.T) {
	for _, syncWrites := range []bool{false, true} {
		dir := t.TempDir()
		w, _, err := OpenFiles(dir, syncWrites, 0)
		require.NoError(t, err)
		var f File
		require.NoError(t, commit(w, &f, frame(1)))
		held, release := holdFirstWrite(w, nil)
		writes := w.Writes()

		const followers = 8
		done := make(chan error, followers+1)
		go func() { done <- commit(w, &f, frame(2)) }()
		<-held
		for i := range followers {
			go func() { done <- commit(w, &f, frame(uint64(10+i))) }()
		}
		waitQueued(t, &f, int64(len(frame(1))+len(frame(2))+followers*len(frame(10))))
		close(release)
		for range followers + 1 {
			require.NoError(t, <-done)
		}
		assert.Equal(t, writes+2, w.Writes(), "sync %v: the held write, then one for all %d followers", syncWrites, followers)
		recs := onlyFile(t, dir)
		require.Len(t, recs, 2+followers)
		seen := map[uint64]bool{}
		for _, r := range recs {
			seen[r.Seq] = true
		}
		assert.Len(t, seen, 2+followers, "each frame once")
		w.CloseAll()
	}
}

// TestGroupCommitFails: when a group's write fails, every writer in it
// gets the error, the file keeps only the frames written before, and no
// later frame is taken.
func TestGroupCommitFails(t *testing.T) {
	dir := t.TempDir()
	w, _, err := OpenFiles(dir, false, 0)
	require.NoError(t, err)
	var f File
	boom := errors.New("boom")
	held, release := holdFirstWrite(w, boom)
	done := make(chan error, 6)
	go func() { done <- commit(w, &f, frame(1)) }()
	<-held
	for i := range 5 {
		go func() { done <- commit(w, &f, frame(uint64(10+i))) }()
	}
	waitQueued(t, &f, int64(len(frame(1))+5*len(frame(10))))
	close(release)
	var failed int
	for range 6 {
		if err := <-done; err != nil {
			assert.ErrorIs(t, err, boom)
			failed++
		}
	}
	assert.Equal(t, 5, failed, "the held write succeeds, its followers' fails")
	_, err = w.Queue(&f, frame(99), nil)
	assert.ErrorIs(t, err, boom, "the file takes no more frames")
	recs := onlyFile(t, dir)
	require.Len(t, recs, 1)
	assert.Equal(t, uint64(1), recs[0].Seq)
	w.CloseAll()
}

// TestGroupCommitManyWriters: writers at once each get their frames into
// the file exactly once, in the order each queued them, in fewer writes
// than frames.
func TestGroupCommitManyWriters(t *testing.T) {
	dir := t.TempDir()
	w, _, err := OpenFiles(dir, false, 0)
	require.NoError(t, err)
	w.SetWriteHook(func() error { time.Sleep(20 * time.Microsecond); return nil }) // a slow disk: others queue meanwhile
	var f File
	const writers, each = 16, 100
	commitAll(t, w, &f, writers, each, false)
	recs := onlyFile(t, dir)
	require.Len(t, recs, writers*each)
	last := make([]uint64, writers)
	for _, r := range recs {
		g := (r.Seq - 1) / each
		require.Greater(t, r.Seq, last[g], "writer %d's frames in its order, each once", g)
		last[g] = r.Seq
	}
	assert.Less(t, w.Writes(), int64(writers*each), "frames share writes")
	w.CloseAll()
}

// TestGroupCommitGathers: writers at once without fsyncs (a write is over
// before the next writer queues) share writes when the leader yields
// first (Wait's gather): fewer than half as many writes as frames, each
// frame once.
func TestGroupCommitGathers(t *testing.T) {
	dir := t.TempDir()
	w, _, err := OpenFiles(dir, false, 0)
	require.NoError(t, err)
	var f File
	const writers, each = 16, 100
	commitAll(t, w, &f, writers, each, true)
	require.Len(t, onlyFile(t, dir), writers*each)
	assert.Less(t, w.Writes(), int64(writers*each/2), "frames share writes")
	w.CloseAll()
}

// commitAll has writers goroutines commit each frames apiece to f at once
// (writer g the seqs g*each+1 .. g*each+each, in order).
func commitAll(t *testing.T, w *Files, f *File, writers, each int, gather bool) {
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				assert.NoError(t, commitGather(w, f, frame(uint64(g*each+i+1)), gather))
			}
		}()
	}
	wg.Wait()
}
