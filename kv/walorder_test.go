package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/wal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWALFileSeqOrder: writers that Apply at once take their seqs as
// their records queue, so each WAL file holds its records in ascending
// seq order, every seq once, and every acknowledged write is in one.
func TestWALFileSeqOrder(t *testing.T) {
	o := testOptions(t.TempDir())
	o.MemstoreSize = 8 << 20 // no freeze: one file
	s := mustOpen(t, o)
	defer s.Close()
	const writers, puts = 16, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range puts {
				if !assert.NoError(t, s.Put(fmt.Appendf(nil, "w%02d/%03d", w, i), []byte("v"))) {
					return
				}
			}
		}()
	}
	wg.Wait()
	require.False(t, t.Failed())
	files, err := filepath.Glob(filepath.Join(s.wal.Path(), "*"+wal.Suffix))
	require.NoError(t, err)
	require.Len(t, files, 1)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	recs, err := wal.DecodeFile(b)
	require.NoError(t, err)
	require.Len(t, recs, writers*puts)
	for i, r := range recs {
		seq, ops, err := wal.Decode(r.B)
		require.NoError(t, err)
		require.Len(t, ops, 1)
		assert.Equal(t, r.Seq, seq)
		if i > 0 {
			require.Equal(t, recs[i-1].Seq+1, r.Seq, "record %d", i)
		}
	}
}
