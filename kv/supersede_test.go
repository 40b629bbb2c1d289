package kv

import (
	"fmt"
	"strings"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// TestSupersededMeta: the meta and blocks of a segment that a compaction
// replaced, shown again by the engine (Badger can drop a deletion while an
// older version of the key lives on), are recognised at Open by their
// seqs, which a newer segment covers, and deleted: Open succeeds and no
// write the compaction dropped comes back. Also when the compaction left
// nothing (its output keeps the seqs it replaced).
func TestSupersededMeta(t *testing.T) {
	for _, all := range []bool{false, true} {
		t.Run(fmt.Sprintf("compaction-empties=%v", all), func(t *testing.T) {
			dir := t.TempDir()
			o := testOptions(dir)
			o.CompactionTrigger = -1
			s := mustOpen(t, o)
			m := model{}
			putEach(t, s, m, 200, "key%04d", "value %d")
			require.NoError(t, s.Flush())
			first := s.keys.Segment(s.segs[0].Meta.ID)
			meta := s.keys.Meta(s.segs[0].Meta.ID)
			old := map[string]string{}
			for k, v := range dump(t, badgerDB(s)) {
				if strings.HasPrefix(k, string(first)) || k == string(meta) {
					old[k] = v
				}
			}
			require.Greater(t, len(old), 1, "the first segment's meta and blocks")
			lo, hi := []byte("key0010"), []byte("key0050")
			if all {
				lo, hi = []byte("key"), []byte("kez")
			}
			require.NoError(t, s.DeleteRange(lo, hi))
			m.deleteRange(lo, hi)
			require.NoError(t, s.Flush())
			require.NoError(t, s.Compact())
			require.Len(t, s.segs, 1)
			require.NoError(t, s.Close())

			// The engine shows the replaced segment again.
			db, err := badger.Open(smallBadger(badger.DefaultOptions(dir)).WithLogger(nil))
			require.NoError(t, err)
			setKeys(t, db, old)
			require.NoError(t, db.Close())

			s = mustOpen(t, o)
			requireModel(t, s, m, "after the replaced segment came back")
			require.Len(t, s.segs, 1)
			for k := range dump(t, badgerDB(s)) {
				require.False(t, strings.HasPrefix(k, string(first)) || k == string(meta), "%q left behind", k)
			}
			require.NoError(t, s.Close())
		})
	}
}
