package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/internal/itertest"
	"github.com/stretchr/testify/require"
)

// TestIteratorReverseVersions reads backward, and walks both ways, at
// snapshots that pin several versions of every key, so that segments hold
// keys with many versions (some above a snapshot's read point, tombstones
// among them) across many blocks, before and after compaction.
func TestIteratorReverseVersions(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	defer func() { require.NoError(t, s.Close()) }()
	key := func(k int) []byte { return fmt.Appendf(nil, "key%03d", k) }
	m := model{}
	var snaps []*Snapshot
	var models []model
	for r := 0; r < 6; r++ {
		for k := 0; k < 60; k++ {
			if (k+r)%5 == 0 {
				require.NoError(t, s.Delete(key(k)))
				delete(m, string(key(k)))
				continue
			}
			v := fmt.Sprintf("v%d-%d", r, k)
			require.NoError(t, s.Put(key(k), []byte(v)))
			m[string(key(k))] = v
		}
		snaps, models = append(snaps, s.Snapshot()), append(models, m.clone())
		if r%2 == 1 {
			require.NoError(t, s.Flush())
		}
	}
	s.mu.RLock()
	multi := false
	for _, g := range s.segs {
		multi = multi || g.Meta.Cells > g.Meta.Keys
	}
	s.mu.RUnlock()
	require.True(t, multi, "no segment holds several versions of a key")

	rng := rand.New(rand.NewPCG(3, 4))
	check := func(stage string) {
		for i, sn := range snaps {
			want := models[i].rangeOf(nil, nil)
			got, err := scanBack(sn.NewIterator(IterOptions{}))
			require.NoError(t, err, "%s snapshot %d", stage, i)
			require.Equal(t, reversed(want), got, "%s snapshot %d backward", stage, i)
			prog := make([]byte, 80)
			for j := range prog {
				prog[j] = byte(rng.IntN(256))
			}
			it := sn.NewIterator(IterOptions{})
			itertest.Walk(t, it, want, prog, func(b byte) []byte { return key(int(b) % 64) }, fmt.Sprintf("%s snapshot %d", stage, i))
			require.NoError(t, it.Close())
		}
		got, err := scanBack(s.NewIterator(IterOptions{}))
		require.NoError(t, err, stage)
		require.Equal(t, reversed(m.rangeOf(nil, nil)), got, "%s: current backward", stage)
	}
	check("flushed")
	require.NoError(t, s.Compact())
	check("compacted")
	for _, sn := range snaps {
		require.NoError(t, sn.Close())
	}
}
