package kv

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A full scan of a Store bigger than its cache leaves the Gets' hot blocks
// cached (the scan stops filling the cache once it has streamed more than
// the cache holds), and a scan of a Store that fits is served from the
// cache the second time.
func TestScanCache(t *testing.T) {
	for _, big := range []bool{true, false} {
		t.Run(fmt.Sprintf("bigger-than-cache=%v", big), func(t *testing.T) {
			o := testOptions("")
			o.BlockSize = 4 << 10
			o.CacheSize = 64 << 10
			n := 20000 // about 500 blocks
			if !big {
				n = 200 // about 6 blocks, each costing its bytes and a 4 KiB buffer
			}
			s := mustOpen(t, o)
			defer s.Close()
			val := make([]byte, 100)
			for i := range n {
				val[0] = byte(i)
				require.NoError(t, s.Put(fmt.Appendf(nil, "key%06d", i), val))
			}
			require.NoError(t, s.Compact())
			scan := func() {
				it := s.NewIterator(IterOptions{})
				k := 0
				for ok := it.First(); ok; ok = it.Next() {
					k++
				}
				require.NoError(t, it.Close())
				require.Equal(t, n, k)
			}
			if !big {
				// A scan of fewer blocks than a read-ahead waits for reads
				// them as Gets do: into the cache at their second miss.
				scan()
				_, _, m0 := s.cache.Stats()
				scan()
				_, _, m1 := s.cache.Stats()
				require.Greater(t, m1, m0, "the second scan missed the blocks the first read once")
				scan()
				_, _, m2 := s.cache.Stats()
				require.Equal(t, m1, m2, "misses in a third scan of a store that fits the cache")
				return
			}
			hot := func() {
				for i := 0; i < n; i += n / 4 { // 4 blocks: about a third of the cache
					_, err := s.Get(fmt.Appendf(nil, "key%06d", i))
					require.NoError(t, err)
				}
			}
			hot()
			hot()
			_, _, m0 := s.cache.Stats()
			scan()
			_, _, m1 := s.cache.Stats()
			require.Greater(t, m1-m0, int64(50), "the scan read most blocks from Badger")
			hot()
			_, _, m2 := s.cache.Stats()
			require.Equal(t, m1, m2, "misses of the hot Gets after the scan")
		})
	}
}
