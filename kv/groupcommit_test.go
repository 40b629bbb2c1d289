package kv

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWALWriteFailsAfterAdd: a WAL write that fails after the writer's
// cells went into the memstore (they go in while the write is in
// progress) fails the write and the Store, which shows none of them, and
// a reopen finds the writes acknowledged before.
func TestWALWriteFailsAfterAdd(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	s := mustOpen(t, o)
	require.NoError(t, s.Put([]byte("first"), []byte("v")))
	boom := errors.New("boom")
	s.wal.SetWriteHook(func() error { return boom })
	assert.ErrorIs(t, s.Put([]byte("second"), []byte("v")), boom)
	_, err := s.Get([]byte("first"))
	assert.ErrorIs(t, err, boom, "the Store refuses reads")
	assert.ErrorIs(t, s.Put([]byte("third"), []byte("v")), boom, "and writes")
	assert.Error(t, s.Close(), "Close flushes nothing")

	s = mustOpen(t, o)
	defer s.Close()
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Equal(t, [][2]string{{"first", "v"}}, got)
}

// TestConcurrentWritersModel: many goroutines Apply at once, with and
// without SyncWrites, each on keys of its own, in batches of a Put pair
// (one value on two keys) and sometimes a Delete. Every writer reads its
// own writes back at once (a write is visible when Apply returns), a
// reader checks that no pair is ever seen torn, and after a reopen the
// store holds exactly what each writer's model says.
func TestConcurrentWritersModel(t *testing.T) {
	for _, syncWrites := range []bool{false, true} {
		t.Run(fmt.Sprintf("sync=%v", syncWrites), func(t *testing.T) {
			dir := t.TempDir()
			o := testOptions(dir)
			o.SyncWrites = syncWrites
			s := mustOpen(t, o)
			const writers, keys = 16, 20
			ops := 150
			if testing.Short() {
				ops = 40
			}
			models := make([]model, writers)
			key := func(w, k int, half string) []byte { return fmt.Appendf(nil, "w%02d/k%02d/%s", w, k, half) }
			stop := make(chan struct{})
			var wg, rg sync.WaitGroup
			rg.Add(1)
			go func() { // pairs are never torn
				defer rg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					w, k := i%writers, i%keys
					it := s.NewIterator(IterOptions{LowerBound: key(w, k, "a"), UpperBound: key(w, k, "c")})
					got, err := scan(it)
					if !assert.NoError(t, err) {
						return
					}
					if len(got) > 0 && !assert.Len(t, got, 2, "pair %d/%d torn", w, k) ||
						len(got) == 2 && !assert.Equal(t, got[0][1], got[1][1], "pair %d/%d torn", w, k) {
						return
					}
				}
			}()
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					m := model{}
					models[w] = m
					for n := range ops {
						k := (n*7 + w) % keys
						b := s.NewBatch()
						if n%5 == 4 {
							b.Delete(key(w, k, "a"))
							b.Delete(key(w, k, "b"))
							delete(m, string(key(w, k, "a")))
							delete(m, string(key(w, k, "b")))
						} else {
							v := fmt.Sprintf("w%d-n%d", w, n)
							b.Put(key(w, k, "a"), []byte(v))
							b.Put(key(w, k, "b"), []byte(v))
							m[string(key(w, k, "a"))] = v
							m[string(key(w, k, "b"))] = v
						}
						if !assert.NoError(t, s.Apply(b)) {
							return
						}
						v, err := s.Get(key(w, k, "b"))
						if want, ok := m[string(key(w, k, "b"))]; ok {
							if !assert.NoError(t, err) || !assert.Equal(t, want, string(v), "read back at once") {
								return
							}
						} else if !assert.ErrorIs(t, err, ErrNotFound, "read back at once") {
							return
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			rg.Wait()
			require.False(t, t.Failed())
			st := s.Stats()
			assert.Positive(t, st.WALWrites)
			assert.LessOrEqual(t, st.WALWrites, int64(writers*ops), "at most one WAL write per Apply")
			require.NoError(t, s.Close())
			s = mustOpen(t, o)
			defer s.Close()
			all := model{}
			for _, m := range models {
				for k, v := range m {
					all[k] = v
				}
			}
			got, err := scan(s.NewIterator(IterOptions{}))
			require.NoError(t, err)
			assert.Equal(t, all.rangeOf(nil, nil), got)
		})
	}
}
