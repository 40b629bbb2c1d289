package kv

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
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
	if err != nil {
		t.Fatal(err)
	}
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
			if err := s.Put([]byte(fmt.Sprintf("key%06d", i)), val); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Compact(); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	size := dirSize(t, dir)
	t.Logf("live block bytes %d, files %d", st.BytesStored, size)
	if limit := 2*st.BytesStored + 1<<20 + 256<<10; size > limit {
		t.Fatalf("%d bytes on disk for %d live bytes (limit %d): garbage not reclaimed", size, st.BytesStored, limit)
	}
	s = mustOpen(t, o)
	if v, err := s.Get([]byte("key000042")); err != nil || v[0] != 42 || v[1] != 2 {
		t.Fatalf("after reopen: %x, %v", v[:2], err)
	}
	s.Close()
}
