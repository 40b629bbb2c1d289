package wal

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openBuffered returns buffered Files in a new directory, max bytes of
// frames queued at most.
func openBuffered(t *testing.T, max int) (*Files, string) {
	t.Helper()
	dir := t.TempDir()
	w, recs, err := OpenFiles(dir, false, 0)
	require.NoError(t, err)
	require.Empty(t, recs)
	w.SetBuffered(max)
	t.Cleanup(w.CloseAll)
	return w, dir
}

// TestBufferedOrder: Queue returns without a write of its own, and the
// frames of many writers reach the file in the order they queued (their
// seals ran), however the background writes group them.
func TestBufferedOrder(t *testing.T) {
	w, dir := openBuffered(t, 4<<10) // small: writers wait for room too
	var f File
	var mu sync.Mutex
	var next uint64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				var seq uint64
				fr := frame(0)
				_, err := w.Queue(&f, fr, func() {
					mu.Lock()
					next++
					seq = next
					mu.Unlock()
					Seal(fr[FrameLen:], seq)
				})
				if !assert.NoError(t, err) {
					return
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, w.Drain(&f))
	recs := onlyFile(t, dir)
	require.Len(t, recs, 1600)
	for i, r := range recs {
		require.Equal(t, uint64(i+1), r.Seq, "record %d", i)
	}
	assert.Less(t, w.Writes(), int64(1600), "writes of groups")
}

// TestBufferedBound: while a background write is held, Queue takes frames
// up to the bound and then waits for the write to take them.
func TestBufferedBound(t *testing.T) {
	fr := frame(1)
	w, dir := openBuffered(t, 3*len(fr))
	held, release := holdFirstWrite(w, nil)
	var f File
	_, err := w.Queue(&f, frame(1), nil)
	require.NoError(t, err)
	<-held // the write of frame 1 is in progress; 2..4 fit in the buffer
	for seq := uint64(2); seq <= 4; seq++ {
		_, err := w.Queue(&f, frame(seq), nil)
		require.NoError(t, err)
	}
	queued := make(chan error)
	go func() {
		_, err := w.Queue(&f, frame(5), nil)
		queued <- err
	}()
	select {
	case err := <-queued:
		require.Failf(t, "Queue past the bound returned", "err %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-queued)
	require.NoError(t, w.Drain(&f))
	var seqs []uint64
	for _, r := range onlyFile(t, dir) {
		seqs = append(seqs, r.Seq)
	}
	assert.Equal(t, []uint64{1, 2, 3, 4, 5}, seqs)
}

// TestBufferedFails: a failed background write fails Drain, SyncFile and
// every later Queue, into that file and any other, with its error; the
// frames before it are in the file, none after.
func TestBufferedFails(t *testing.T) {
	w, dir := openBuffered(t, 1<<20)
	boom := errors.New("boom")
	held, release := holdFirstWrite(w, boom)
	var f, g File
	_, err := w.Queue(&f, frame(1), nil)
	require.NoError(t, err)
	<-held
	_, err = w.Queue(&f, frame(2), nil) // written by the failing write
	require.NoError(t, err)
	close(release)
	require.ErrorIs(t, w.Drain(&f), boom)
	require.ErrorIs(t, w.SyncFile(&f), boom)
	_, err = w.Queue(&f, frame(3), nil)
	require.ErrorIs(t, err, boom)
	_, err = w.Queue(&g, frame(3), nil)
	require.ErrorIs(t, err, boom)
	recs := onlyFile(t, dir)
	require.Len(t, recs, 1)
	assert.Equal(t, uint64(1), recs[0].Seq)
}

// TestBufferedFlushed: Flushed waits for a background write in progress
// before it closes and removes the file.
func TestBufferedFlushed(t *testing.T) {
	w, dir := openBuffered(t, 1<<20)
	held, release := holdFirstWrite(w, nil)
	var f File
	_, err := w.Queue(&f, frame(1), nil)
	require.NoError(t, err)
	<-held
	done := make(chan error)
	go func() { done <- w.Flushed(&f, 1) }()
	select {
	case err := <-done:
		require.Failf(t, "Flushed returned during a write", "err %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	require.NoError(t, <-done)
	paths, err := filepath.Glob(filepath.Join(dir, Dir, "*"+Suffix))
	require.NoError(t, err)
	assert.Empty(t, paths)
}
