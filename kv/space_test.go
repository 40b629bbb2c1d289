package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dirSize sums the sizes of the files under dir.
func dirSize(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	})
	require.NoError(t, err)
	return n
}

// Compact makes Badger give back the space of the WAL records and of the
// compacted-away segments: after Close the files hold little more than
// the live blocks (plus Badger's fixed 1 MiB DISCARD file).
func TestCompactReclaimsSpace(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.BlockSize = 32 << 10
	o.MemstoreSize = 1 << 20
	s := mustOpen(t, o)
	val := make([]byte, 100)
	for round := 0; round < 3; round++ { // every key written three times
		for i := 0; i < 10000; i++ {
			val[0], val[1] = byte(i), byte(round)
			require.NoError(t, s.Put([]byte(fmt.Sprintf("key%06d", i)), val))
		}
	}
	require.NoError(t, s.Compact())
	st := s.Stats()
	require.NoError(t, s.Close())
	size := dirSize(t, dir)
	t.Logf("live block bytes %d, files %d", st.BytesStored, size)
	require.LessOrEqual(t, size, 2*st.BytesStored+1<<20+256<<10, "bytes on disk for %d live bytes: garbage not reclaimed", st.BytesStored)
	s = mustOpen(t, o)
	v, err := s.Get([]byte("key000042"))
	require.NoError(t, err)
	assert.Equal(t, []byte{42, 2}, v[:2], "after reopen")
	require.NoError(t, s.Close())
}
